import { openChdbClient, whyChdbIsUnavailable } from './chdb-client';

const unavailable = whyChdbIsUnavailable();

if (unavailable !== undefined) {
  process.stdout.write(`openChdbClient suite not run: chdb does not load here (${unavailable})\n`);
  describe('openChdbClient', () => {
    test.todo(`openChdbClient: not run (chdb does not load here: ${unavailable})`);
  });
} else {
  describe('openChdbClient', () => {
    it('runs ClickHouse SQL through the @clickhouse/client API: bound parameters, JSONEachRow inserts and reads, commands', async () => {
      const { client, version, close } = await openChdbClient();
      try {
        expect(version).toMatch(/^\d+\.\d+\.\d+/);
        await client.command({
          query: `CREATE TABLE t (account_id String, tags Map(String, String), time DateTime64(3, 'UTC')) ENGINE = MergeTree ORDER BY account_id`,
        });
        await client.insert({
          table: 't',
          format: 'JSONEachRow',
          values: [
            { account_id: "it's \\ {a:String}", tags: { k: 'v' }, time: '2026-01-10 12:00:00.000' },
            { account_id: 'other', tags: {}, time: '2026-01-10 13:00:00.000' },
          ],
        });
        const result = await client.query({
          query:
            'SELECT account_id, tags, toUnixTimestamp64Milli(time) AS time_ms FROM t WHERE account_id IN {ids:Array(String)} AND time >= fromUnixTimestamp64Milli({start:Int64})',
          query_params: { ids: ["it's \\ {a:String}", 'nobody'], start: Date.parse('2026-01-10T00:00:00Z') },
          format: 'JSONEachRow',
        });
        expect(await result.json()).toEqual([{ account_id: "it's \\ {a:String}", tags: { k: 'v' }, time_ms: Date.parse('2026-01-10T12:00:00Z') }]);
      } finally {
        await close();
      }
    });

    it('starts each engine on an empty data directory, and refuses a second one while the first is open', async () => {
      const first = await openChdbClient();
      await first.client.command({ query: 'CREATE TABLE kept (n UInt8) ENGINE = MergeTree ORDER BY n' });
      await expect(openChdbClient()).rejects.toThrow(/one active data directory per process/);
      expect(await (await first.client.query({ query: "SELECT count() AS n FROM system.tables WHERE name = 'kept'", format: 'JSONEachRow' })).json()).toEqual([
        { n: 1 },
      ]);
      await first.close();
      await expect(first.client.query({ query: 'SELECT 1' })).rejects.toThrow(/closed/);

      const second = await openChdbClient();
      try {
        const result = await second.client.query({
          query: "SELECT count() AS n FROM system.tables WHERE database = currentDatabase() AND name = 'kept'",
          format: 'JSONEachRow',
        });
        expect(await result.json()).toEqual([{ n: 0 }]);
      } finally {
        await second.close();
      }
    });
  });
}
