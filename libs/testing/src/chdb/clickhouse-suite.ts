import type { ClickHouseClient } from '@clickhouse/client';
import { openChdbClient, whyChdbIsUnavailable } from './chdb-client';

export interface ClickHouseSuite {
  /** Where the suite runs: `the ClickHouse server at CLICKHOUSE_URL` or `ClickHouse embedded (chdb)`. */
  engine: string;
  /** The suite's client (from `beforeAll` on). */
  client(): ClickHouseClient;
  /** A table prefix of its own (`<stem>_<pid>_<n>_`); the table `<prefix><table>` is dropped after the suite. */
  tablePrefix(stem: string, table: string): string;
}

/**
 * Describes `<subject> on <engine>` on ClickHouse's own SQL: against the server at CLICKHOUSE_URL
 * when it is set, else against ClickHouse embedded in this process (chdb, a data directory of its
 * own). Without either it registers a single todo and says why on stdout, so the run is visibly
 * "not run" rather than quietly green. The tables named through `tablePrefix` are dropped after.
 */
export function describeOnClickHouse(subject: string, suiteName: string, body: (suite: ClickHouseSuite) => void): void {
  const configuredUrl = process.env['CLICKHOUSE_URL'] || undefined;
  const chdbUnavailable = configuredUrl ? undefined : whyChdbIsUnavailable();
  const engine = configuredUrl ? 'the ClickHouse server at CLICKHOUSE_URL' : 'ClickHouse embedded (chdb)';
  if (chdbUnavailable !== undefined) {
    const reason = `CLICKHOUSE_URL is not set and chdb does not load here (${chdbUnavailable})`;
    process.stdout.write(`${suiteName} not run: ${reason}\n`);
    describe(subject, () => {
      test.todo(`${suiteName}: not run (${reason})`);
    });
    return;
  }
  describe(`${subject} on ${engine}`, () => {
    let client: ClickHouseClient | undefined;
    let release: (() => Promise<void>) | undefined;
    let prefixes = 0;
    const made: string[] = [];

    beforeAll(async () => {
      if (configuredUrl) {
        const { createClient } = await import('@clickhouse/client');
        const server = createClient({ url: configuredUrl });
        client = server;
        release = () => server.close();
      } else {
        const chdb = await openChdbClient();
        client = chdb.client;
        release = chdb.close;
      }
    });

    afterAll(async () => {
      for (const table of made) await client?.command({ query: `DROP TABLE IF EXISTS ${table} SYNC` });
      await release?.();
    });

    body({
      engine,
      client: () => {
        if (!client) throw new Error('the ClickHouse client opens in beforeAll');
        return client;
      },
      tablePrefix: (stem, table) => {
        const prefix = `${stem}_${process.pid}_${++prefixes}_`;
        made.push(`${prefix}${table}`);
        return prefix;
      },
    });
  });
}
