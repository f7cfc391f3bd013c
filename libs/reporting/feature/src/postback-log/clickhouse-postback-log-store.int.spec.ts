import { openChdbClient, whyChdbIsUnavailable } from '@funnel/testing';
import { createClient, type ClickHouseClient } from '@clickhouse/client';
import { ClickHousePostbackLogStore } from './clickhouse-postback-log-store';
import { describePostbackLogStoreContract, expectTimeLimitOverAMillionRows } from './postback-log-store.contract';

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
  process.stdout.write(`ClickHouse postback log contract suite not run: ${reason}\n`);
  describe('ClickHousePostbackLogStore', () => {
    test.todo(`ClickHouse postback log contract suite: not run (${reason})`);
  });
} else {
  describe(`ClickHousePostbackLogStore on ${engine}`, () => {
    let client: ClickHouseClient;
    let release: () => Promise<void>;
    let tables = 0;
    const made: string[] = [];
    const open = (): Promise<ClickHousePostbackLogStore> => {
      const tablePrefix = `pblog_test_${process.pid}_${++tables}_`;
      made.push(`${tablePrefix}postback_log`);
      return ClickHousePostbackLogStore.on(client, { tablePrefix });
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

    describePostbackLogStoreContract(engine, open);

    it('stops a query past its time limit, and answers the next one', async () => {
      const store = await open();
      const table = made[made.length - 1];
      await client.command({
        query: `INSERT INTO ${table}
        SELECT 'ACCOUNT00001', concat('JOB', leftPad(toString(intDiv(number, 1000)), 9, '0')), number % 1000, 1772323200000 + number,
               concat('HIT', leftPad(toString(number), 9, '0')), concat('TSOURCE0000', toString(number % 7)), concat('FUNNEL00000', toString(number % 5)),
               concat('https://ts.example/pb?i=', toString(number)), 'postbackUrl', if(number % 3 = 0, 'delivered', 'pending'), 1, NULL, 1772323200000 + number, 1
        FROM numbers(1000000)`,
      });
      await expectTimeLimitOverAMillionRows(store);
    }, 60_000);
  });
}
