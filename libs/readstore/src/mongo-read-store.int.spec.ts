import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { MongoClient } from 'mongodb';
import type { StartedTestContainer } from 'testcontainers';
import { MongoReadStore } from './mongo-read-store';
import { describeReadStoreContract } from './read-store.contract';

/**
 * Runs the ReadStore contract against MongoDB: MONGO_URL when set, else a throwaway mongo:7
 * container when a Docker engine answers. Otherwise registers a todo (not a pass) saying why.
 */

type MongoTarget = { url: string } | { docker: true } | { skipped: string };

const target = resolveTarget();

if ('skipped' in target) {
  process.stdout.write(`MongoDB contract suite not run: ${target.skipped}\n`);
  test.todo(`MongoDB contract suite: not run (${target.skipped})`);
} else {
  const runId = `readstore_contract_${process.pid}_${Date.now().toString(36)}`;
  let url = 'url' in target ? target.url : '';
  let container: StartedTestContainer | undefined;
  let admin: MongoClient | undefined;
  let databases = 0;

  beforeAll(async () => {
    if ('docker' in target) {
      const { GenericContainer, Wait } = await import('testcontainers');
      container = await new GenericContainer('mongo:7').withExposedPorts(27017).withWaitStrategy(Wait.forListeningPorts()).start();
      url = `mongodb://${container.getHost()}:${container.getMappedPort(27017)}/?directConnection=true`;
    }
    admin = await MongoClient.connect(url);
  }, 180_000);

  afterAll(async () => {
    await admin?.close();
    await container?.stop();
  });

  describeReadStoreContract('mongodb', async () => {
    // A database per test keeps tests apart; it is dropped on cleanup.
    const dbName = `${runId}_${++databases}`;
    const store = await MongoReadStore.connect({ url, dbName });
    return {
      store,
      cleanup: async () => {
        await store.close();
        await admin?.db(dbName).dropDatabase();
      },
    };
  });
}

function resolveTarget(): MongoTarget {
  const mongoUrl = process.env['MONGO_URL'];
  if (mongoUrl) return { url: mongoUrl };
  const engine = dockerEndpoint();
  if (!engine) return { skipped: 'MONGO_URL is not set and no Docker engine answers (no DOCKER_HOST, no docker.sock)' };
  return dockerAnswers(engine) ? { docker: true } : { skipped: `MONGO_URL is not set and no Docker engine answers at ${engine}` };
}

/** Where testcontainers would look for Docker: DOCKER_HOST, then the usual socket paths. */
function dockerEndpoint(): string | undefined {
  const dockerHost = process.env['DOCKER_HOST'];
  if (dockerHost) return dockerHost;
  const runtimeDir = process.env['XDG_RUNTIME_DIR'];
  const sockets = ['/var/run/docker.sock', join(homedir(), '.docker', 'run', 'docker.sock'), ...(runtimeDir ? [join(runtimeDir, 'docker.sock')] : [])];
  const socket = sockets.find((path) => existsSync(path));
  return socket ? `unix://${socket}` : undefined;
}

/**
 * Pings the engine (GET /_ping, 2 s timeout). Jest collects tests synchronously, so the ping runs
 * in a short-lived child process that the collection waits on.
 */
function dockerAnswers(endpoint: string): boolean {
  const ping = `
    const http = require('node:http');
    const endpoint = new URL(process.argv[1]);
    const where = endpoint.protocol === 'unix:' ? { socketPath: endpoint.pathname } : { host: endpoint.hostname, port: endpoint.port || 2375 };
    const request = http.get({ ...where, path: '/_ping', timeout: 2000 }, (response) => process.exit(response.statusCode === 200 ? 0 : 1));
    request.on('timeout', () => process.exit(1));
    request.on('error', () => process.exit(1));`;
  const result = spawnSync(process.execPath, ['-e', ping, endpoint], { timeout: 3000, stdio: 'ignore' });
  return result.status === 0;
}
