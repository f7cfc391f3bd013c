import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { StartedTestContainer } from 'testcontainers';
import { describeEventStoreContract } from './event-store.contract';
import { EventStoreDbEventStore } from './eventstoredb-event-store';

/**
 * Runs the contract against a real EventStoreDB: the one at EVENTSTORE_URL, else a throwaway container
 * when a Docker engine answers. Without either it registers a single todo and says why on stdout, so a
 * run without EventStoreDB is visibly "not run" rather than quietly green.
 */
const IMAGE = 'eventstore/eventstore:24.10';
const configuredUrl = process.env['EVENTSTORE_URL'] || undefined;
const dockerUnavailable = configuredUrl ? undefined : whyDockerIsUnavailable();

if (dockerUnavailable !== undefined) {
  const reason = `EVENTSTORE_URL is not set and no Docker engine answers (${dockerUnavailable})`;
  process.stdout.write(`EventStoreDB contract suite not run: ${reason}\n`);
  describe('EventStoreDbEventStore', () => {
    test.todo(`EventStoreDB contract suite: not run (${reason})`);
  });
} else {
  describe('EventStoreDbEventStore', () => {
    let connectionString = configuredUrl ?? '';
    let container: StartedTestContainer | undefined;

    beforeAll(async () => {
      if (configuredUrl) return;
      const { GenericContainer, Wait } = await import('testcontainers');
      container = await new GenericContainer(IMAGE)
        .withEnvironment({
          EVENTSTORE_INSECURE: 'true',
          EVENTSTORE_RUN_PROJECTIONS: 'None',
          EVENTSTORE_MEM_DB: 'true',
        })
        .withExposedPorts(2113)
        .withWaitStrategy(Wait.forHttp('/health/live', 2113).forStatusCodeMatching((status) => status >= 200 && status < 300))
        .withStartupTimeout(120_000)
        .start();
      connectionString = `esdb://${container.getHost()}:${container.getMappedPort(2113)}?tls=false`;
    }, 180_000);

    afterAll(async () => {
      await container?.stop();
    });

    describeEventStoreContract('EventStoreDB', async () => {
      const store = new EventStoreDbEventStore(connectionString);
      return { store, cleanup: () => store.close() };
    });
  });
}

/** Returns undefined when a Docker engine answers a ping within 2 s, else the reason it does not. */
function whyDockerIsUnavailable(): string | undefined {
  const dockerHost = process.env['DOCKER_HOST'];
  let target: { socketPath: string } | { host: string; port: number };
  if (dockerHost) {
    const url = new URL(dockerHost);
    if (url.protocol === 'unix:') target = { socketPath: url.pathname };
    else if (url.protocol === 'tcp:' || url.protocol === 'http:') target = { host: url.hostname, port: Number(url.port || 2375) };
    else return `DOCKER_HOST=${dockerHost} is not a unix or tcp address`;
  } else {
    const candidates = [
      '/var/run/docker.sock',
      join(homedir(), '.docker', 'run', 'docker.sock'),
      ...(process.env['XDG_RUNTIME_DIR'] ? [join(process.env['XDG_RUNTIME_DIR'], 'docker.sock')] : []),
    ];
    const socketPath = candidates.find((candidate) => existsSync(candidate));
    if (!socketPath) return 'DOCKER_HOST is not set and there is no docker.sock';
    target = { socketPath };
  }
  // Jest registers tests synchronously, so the ping runs in a short-lived child process.
  const ping = `
    const request = require('node:http').get({ ...${JSON.stringify(target)}, path: '/_ping', timeout: 1800 }, (response) =>
      process.exit(response.statusCode === 200 ? 0 : 1));
    request.on('timeout', () => process.exit(1));
    request.on('error', () => process.exit(1));`;
  const result = spawnSync(process.execPath, ['-e', ping], { timeout: 2000, stdio: 'ignore' });
  return result.status === 0 ? undefined : `${JSON.stringify(target)} did not answer a Docker ping within 2 s`;
}
