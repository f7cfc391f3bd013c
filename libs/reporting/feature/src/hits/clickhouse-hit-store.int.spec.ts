import { whyDockerIsUnavailable } from '@funnel/testing';
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
