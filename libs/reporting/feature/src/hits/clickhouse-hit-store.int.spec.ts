import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { createClient } from '@clickhouse/client';
import type { StartedTestContainer } from 'testcontainers';
import { ClickHouseHitStore } from './clickhouse-hit-store';
import { describeHitStoreContract } from './hit-store.contract';

/**
 * Runs the contract against a real ClickHouse: the one at CLICKHOUSE_URL, else a throwaway container
 * when a Docker engine answers. Without either it registers a single todo and says why on stdout, so a
 * run without ClickHouse is visibly "not run" rather than quietly green.
 */
const IMAGE = 'clickhouse/clickhouse-server:24.8';
const configuredUrl = process.env['CLICKHOUSE_URL'] || undefined;
const dockerUnavailable = configuredUrl ? undefined : whyDockerIsUnavailable();

if (dockerUnavailable !== undefined) {
  const reason = `CLICKHOUSE_URL is not set and no Docker engine answers (${dockerUnavailable})`;
  process.stdout.write(`ClickHouse hit store contract suite not run: ${reason}\n`);
  describe('ClickHouseHitStore', () => {
    test.todo(`ClickHouse hit store contract suite: not run (${reason})`);
  });
} else {
  describe('ClickHouseHitStore', () => {
    let url = configuredUrl ?? '';
    let container: StartedTestContainer | undefined;
    let tables = 0;

    beforeAll(async () => {
      if (configuredUrl) return;
      const { GenericContainer, Wait } = await import('testcontainers');
      container = await new GenericContainer(IMAGE)
        .withEnvironment({ CLICKHOUSE_USER: 'test', CLICKHOUSE_PASSWORD: 'test', CLICKHOUSE_DEFAULT_ACCESS_MANAGEMENT: '1' })
        .withExposedPorts(8123)
        .withWaitStrategy(Wait.forHttp('/ping', 8123).forStatusCode(200))
        .withStartupTimeout(120_000)
        .start();
      url = `http://test:test@${container.getHost()}:${container.getMappedPort(8123)}`;
    }, 180_000);

    afterAll(async () => {
      await container?.stop();
    });

    // Each test gets its own tables (a prefix of its own) and drops them afterwards.
    describeHitStoreContract(
      'ClickHouse',
      async () => {
        const prefix = `hit_contract_${process.pid}_${++tables}_`;
        const store = await ClickHouseHitStore.connect({ url, tablePrefix: prefix });
        return {
          store,
          cleanup: async () => {
            await store.close();
            const admin = createClient({ url });
            for (const table of ['hits', 'job_batches']) await admin.command({ query: `DROP TABLE IF EXISTS ${prefix}${table}` });
            await admin.close();
          },
        };
      },
      { propertyRuns: 8 },
    );
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
