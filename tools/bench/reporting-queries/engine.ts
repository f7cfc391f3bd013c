import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import type { Dataset } from './dataset';
import { BUDGET_MS, ITERATIONS, timedRuns } from './measure';
import { reportWindow, type BenchQuery } from './queries';

/** Runs a query as the service does, each statement on a connection of its own (as the service's runner takes one per statement); answers the answer's size. */
function runEngine(connections: DuckDBConnection[], query: BenchQuery, iteration: number): Promise<number> {
  let next = 0;
  return query.engine(iteration, async ({ sql, params }) => {
    const connection = connections[next++ % connections.length];
    return (await connection.runAndReadAll(sql, params)).getRowObjectsJson() as Record<string, unknown>[];
  });
}

/** Opens the file read-only in this process (no server may hold it meanwhile: DuckDB allows one process per file). */
async function withFile<T>(file: string, use: (connections: DuckDBConnection[]) => Promise<T>): Promise<T> {
  const instance = await DuckDBInstance.create(file, { access_mode: 'READ_ONLY' });
  const connections = [await instance.connect(), await instance.connect()];
  try {
    return await use(connections);
  } finally {
    for (const connection of connections) connection.closeSync();
    instance.closeSync();
  }
}

/** One engine pass: every query's statements timed on the file (half the HTTP side's runs and budget), and its answer's size. */
export function enginePass(file: string, queries: BenchQuery[]): Promise<{ samples: number[][]; sizes: number[] }> {
  return withFile(file, async (connections) => {
    const samples: number[][] = [];
    const sizes: number[] = [];
    for (const query of queries) {
      sizes.push(await runEngine(connections, query, 0));
      samples.push(await timedRuns(Math.ceil(ITERATIONS / 2), BUDGET_MS / 2, (i) => runEngine(connections, query, i).then(() => undefined)));
    }
    return { samples, sizes };
  });
}

/** Visitors of the report window's first ten minutes: they exist, and each lookup asks another one. */
export function sampleVisitors(file: string, dataset: Dataset): Promise<string[]> {
  return withFile(file, async ([connection]) => {
    const [from] = reportWindow(dataset.shape);
    const reader = await connection.runAndReadAll(
      'SELECT DISTINCT visitor_id FROM hits WHERE account_id = ? AND time_ms >= ? AND time_ms < ? ORDER BY visitor_id LIMIT 50',
      [dataset.accountId, BigInt(from), BigInt(from + 600_000)],
    );
    return reader.getRowObjectsJS().map((row) => String(row.visitor_id));
  });
}
