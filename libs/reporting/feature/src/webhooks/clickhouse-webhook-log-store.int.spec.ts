import { openChdbClient, whyChdbIsUnavailable } from '@funnel/testing';
import { createClient, type ClickHouseClient } from '@clickhouse/client';
import { ClickHouseWebhookLogStore } from './clickhouse-webhook-log-store';
import { describeWebhookLogStoreContract } from './webhook-log-store.contract';

/**
 * The contract on ClickHouse's own SQL: against the server at CLICKHOUSE_URL when it is set, else
 * against ClickHouse embedded in this process (chdb, a data directory of its own). Without either
 * it registers a single todo and says why on stdout. Each store has its own table, dropped after.
 */
const configuredUrl = process.env['CLICKHOUSE_URL'] || undefined;
const chdbUnavailable = configuredUrl ? undefined : whyChdbIsUnavailable();
const engine = configuredUrl ? 'the ClickHouse server at CLICKHOUSE_URL' : 'ClickHouse embedded (chdb)';

if (chdbUnavailable !== undefined) {
  const reason = `CLICKHOUSE_URL is not set and chdb does not load here (${chdbUnavailable})`;
  process.stdout.write(`ClickHouse webhook log contract suite not run: ${reason}\n`);
  describe('ClickHouseWebhookLogStore', () => {
    test.todo(`ClickHouse webhook log contract suite: not run (${reason})`);
  });
} else {
  describe(`ClickHouseWebhookLogStore on ${engine}`, () => {
    let client: ClickHouseClient;
    let release: () => Promise<void>;
    let tables = 0;
    const made: string[] = [];
    const open = (): Promise<ClickHouseWebhookLogStore> => {
      const tablePrefix = `whlog_test_${process.pid}_${++tables}_`;
      made.push(`${tablePrefix}webhook_log`);
      return ClickHouseWebhookLogStore.on(client, { tablePrefix });
    };

    beforeAll(async () => {
      if (configuredUrl) {
        client = createClient({ url: configuredUrl });
        release = () => client.close();
      } else {
        const chdb = await openChdbClient();
        client = chdb.client;
        release = chdb.close;
      }
    });

    afterAll(async () => {
      for (const table of made) await client.command({ query: `DROP TABLE IF EXISTS ${table} SYNC` });
      await release?.();
    });

    describeWebhookLogStoreContract(engine, open);
  });
}
