import { openChdbClient, whyChdbIsUnavailable } from '@funnel/testing';
import { createClient, type ClickHouseClient } from '@clickhouse/client';
import { ClickHouseIncomingLogStore } from './clickhouse-incoming-log-store';
import { describeIncomingLogStoreContract } from './incoming-log-store.contract';

/** The contract on ClickHouse's SQL: the server at CLICKHOUSE_URL, else chdb in this process; each store its own table. */
const configuredUrl = process.env['CLICKHOUSE_URL'] || undefined;
const chdbUnavailable = configuredUrl ? undefined : whyChdbIsUnavailable();
const engine = configuredUrl ? 'the ClickHouse server at CLICKHOUSE_URL' : 'ClickHouse embedded (chdb)';

if (chdbUnavailable !== undefined) {
  const reason = `CLICKHOUSE_URL is not set and chdb does not load here (${chdbUnavailable})`;
  process.stdout.write(`ClickHouse incoming postback log contract suite not run: ${reason}\n`);
  describe('ClickHouseIncomingLogStore', () => {
    test.todo(`ClickHouse incoming postback log contract suite: not run (${reason})`);
  });
} else {
  describe(`ClickHouseIncomingLogStore on ${engine}`, () => {
    let client: ClickHouseClient;
    let release: () => Promise<void>;
    let tables = 0;
    const made: string[] = [];

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

    describeIncomingLogStoreContract(engine, () => {
      const tablePrefix = `inpb_test_${process.pid}_${++tables}_`;
      made.push(`${tablePrefix}incoming_postback_log`);
      return ClickHouseIncomingLogStore.on(client, { tablePrefix });
    });
  });
}
