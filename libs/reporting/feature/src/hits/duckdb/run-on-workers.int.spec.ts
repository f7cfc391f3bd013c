import { DuckDBInstance } from '@duckdb/node-api';
import { backgroundWorkers, runOnWorkers } from './run-on-workers';

describe('runOnWorkers (a long statement on DuckDB worker threads, its state looked at from the event loop)', () => {
  const opened: DuckDBInstance[] = [];
  afterAll(() => opened.forEach((instance) => instance.closeSync()));

  async function connection(threads: number) {
    const instance = await DuckDBInstance.create(':memory:', { threads: String(threads) });
    opened.push(instance);
    return { instance, connection: await instance.connect() };
  }

  it.each([1, 2, 4])('counts the background workers of an instance of %i threads (the caller runs one)', async (threads) => {
    const { instance } = await connection(threads);
    expect(await backgroundWorkers(instance)).toBe(threads - 1);
  });

  it.each([0, 1])('commits a transaction of 300,000 rows (%i background workers), which other connections see then', async (backgroundThreads) => {
    const { instance, connection: writer } = await connection(backgroundThreads + 1);
    const workers = await backgroundWorkers(instance);
    await writer.run('CREATE TABLE t (n BIGINT, s VARCHAR)');
    await writer.run('BEGIN TRANSACTION');
    await writer.run("INSERT INTO t SELECT i, 'row ' || (i % 977) FROM range(300000) r(i)");
    const reader = await instance.connect();
    expect((await reader.runAndReadAll('SELECT count(*) FROM t')).getRows()[0][0]).toBe(0n);
    await runOnWorkers(writer, 'COMMIT', workers);
    expect((await reader.runAndReadAll('SELECT count(*), sum(n) FROM t')).getRows()[0]).toEqual([300_000n, 44_999_850_000n]);
  });

  it("rejects with the statement's error, and the connection goes on", async () => {
    const { instance, connection: writer } = await connection(2);
    const workers = await backgroundWorkers(instance);
    await expect(runOnWorkers(writer, 'COMMIT', workers)).rejects.toThrow(/no transaction is active/i);
    await expect(runOnWorkers(writer, 'SELECT * FROM missing_table', workers)).rejects.toThrow(/missing_table/);
    await runOnWorkers(writer, 'CREATE TABLE ok (n INTEGER)', workers);
    expect((await writer.runAndReadAll('SELECT count(*) FROM ok')).getRows()[0][0]).toBe(0n);
  });
});
