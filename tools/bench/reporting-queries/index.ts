import { join } from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { freePort, runTs, waitForHttp } from '../processes';
import { DAY_MS, benchDataset, type Dataset, type StandaloneLauncher } from './dataset';
import { benchQueries, type BenchQuery } from './queries';

export type { StandaloneLauncher } from './dataset';

/** Hits generated (`BENCH_QUERY_HITS`, default the 10,000,000). */
const HITS = Number(process.env.BENCH_QUERY_HITS ?? 10_000_000);
/** Timed requests per query over HTTP (after 2 warm-ups); each of the two engine passes takes half as many. */
const ITERATIONS = Number(process.env.BENCH_QUERY_ITERATIONS ?? 16);
const WARMUPS = 2;
/** A query's timed runs on one side stop after this long (at least 5 runs), so a slow machine does not stretch the section past minutes. */
const BUDGET_MS = Number(process.env.BENCH_QUERY_BUDGET_MS ?? 30_000);
const MIN_RUNS = 5;

export interface Latency {
  p50: number;
  p95: number;
  samples: number[];
}

export interface QueryFigure {
  name: string;
  http?: Latency;
  /** Why there is no HTTP figure (the route refused the request). */
  httpMissing?: string;
  /** The engine alone: both passes pooled, and each pass's p50. */
  engine: Latency;
  enginePasses: [number, number];
  /** The answer's size on each side (rowsTotal of a drilldown, hits of a page), to show both answered the same. */
  answers: { http?: number; engine: number };
}

export interface ReportingQueryFigures {
  dataset: Dataset;
  queries: QueryFigure[];
}

function latency(samples: number[]): Latency {
  const sorted = [...samples].sort((a, b) => a - b);
  // Nearest rank.
  const at = (p: number) => sorted[Math.max(0, Math.ceil(p * sorted.length) - 1)];
  return { p50: at(0.5), p95: at(0.95), samples };
}

/** `count` timed runs after the warm-ups, fewer (but MIN_RUNS) when they pass `budgetMs`. */
async function timedRuns(count: number, budgetMs: number, run: (iteration: number) => Promise<void>): Promise<number[]> {
  for (let i = 0; i < WARMUPS; i++) await run(i);
  const samples: number[] = [];
  const deadline = performance.now() + budgetMs;
  for (let i = 0; i < count && (i < MIN_RUNS || performance.now() < deadline); i++) {
    const started = performance.now();
    await run(WARMUPS + i);
    samples.push(performance.now() - started);
  }
  return samples;
}

/** Runs a query's statements and answers its size: the exact row count of a drilldown, or the hits of a page. */
async function runEngine(connection: DuckDBConnection, query: BenchQuery, iteration: number): Promise<number> {
  let size = 0;
  for (const [n, statement] of query.engine(iteration).entries()) {
    const reader = await connection.runAndReadAll(statement.sql, statement.params);
    if (n > 0) continue;
    if (query.expect === 'hits') size = Math.min(reader.currentRowCount, query.hitsPerPage ?? Infinity);
    else size = reader.currentRowCount === 0 ? 0 : Number(reader.getRowObjectsJS()[0].rows_total);
  }
  return size;
}

/** One engine pass: the bench process opens the file read-only (no server holds it meanwhile) and times every query. */
async function enginePass(file: string, queries: BenchQuery[]): Promise<{ samples: number[][]; sizes: number[] }> {
  const instance = await DuckDBInstance.create(file, { access_mode: 'READ_ONLY' });
  const connection = await instance.connect();
  try {
    const samples: number[][] = [];
    const sizes: number[] = [];
    for (const query of queries) {
      sizes.push(await runEngine(connection, query, 0));
      samples.push(await timedRuns(Math.ceil(ITERATIONS / 2), BUDGET_MS / 2, (i) => runEngine(connection, query, i).then(() => undefined)));
    }
    return { samples, sizes };
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

/** Visitors of the window's first ten minutes: they exist, and each lookup asks another one. */
async function sampleVisitors(file: string, dataset: Dataset): Promise<string[]> {
  const instance = await DuckDBInstance.create(file, { access_mode: 'READ_ONLY' });
  const connection = await instance.connect();
  try {
    const from = dataset.shape.startMs + (dataset.shape.days - 23) * DAY_MS;
    const reader = await connection.runAndReadAll(
      'SELECT DISTINCT visitor_id FROM hits WHERE account_id = ? AND time_ms >= ? AND time_ms < ? ORDER BY visitor_id LIMIT 50',
      [dataset.accountId, BigInt(from), BigInt(from + 600_000)],
    );
    return reader.getRowObjectsJS().map((row) => String(row.visitor_id));
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

/** The answer's size as the engine counts it: rowsTotal of a drilldown, the hits of a page. */
function answerSize(query: BenchQuery, body: unknown): number {
  const answer = body as { rowsTotal?: number; hits?: unknown[] };
  return query.expect === 'hits' ? (answer.hits?.length ?? -1) : (answer.rowsTotal ?? -1);
}

/**
 * The reporting-query section: the data set (generated or cached), an engine pass, the same
 * queries over HTTP against a standalone on that data dir, a second engine pass. DuckDB lets one
 * process hold a file at a time, so the engine and the server take turns; the two engine passes
 * bracket the HTTP one, so a change in the machine's speed meanwhile shows as a gap between them.
 */
export async function reportingQueryFigures(launcher: StandaloneLauncher, log: (line: string) => void): Promise<ReportingQueryFigures> {
  const dataset = await benchDataset(HITS, launcher, log);
  const file = join(dataset.dataDir, 'reporting.duckdb');
  const visitors = await sampleVisitors(file, dataset);
  if (visitors.length === 0) throw new Error(`no visitors in ${file}: the data set is empty`);
  const queries = benchQueries(dataset, visitors);

  log('  engine alone (DuckDB through @duckdb/node-api on the same file), first pass');
  const before = await enginePass(file, queries);

  log('  over HTTP (standalone on the same data dir)');
  const port = await freePort();
  const standalone = await runTs('apps/standalone/src/main.ts', launcher.env(dataset.dataDir, { PORT: String(port) }));
  const http: { samples?: number[]; missing?: string; size?: number }[] = [];
  try {
    const base = `http://127.0.0.1:${port}/v1`;
    await waitForHttp(`${base}/visitortag/list/`, { 'x-api-key': launcher.apiKey }, 120_000);
    for (const query of queries) {
      const post = async (iteration: number) => {
        const { path, body } = query.http(iteration);
        const r = await fetch(`${base}${path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-api-key': launcher.apiKey },
          body: JSON.stringify(body),
        });
        return { status: r.status, text: await r.text(), path };
      };
      const first = await post(0);
      if (first.status === 404) {
        http.push({ missing: `POST /v1${first.path} answered 404 (route not there)` });
        continue;
      }
      if (first.status !== 200) throw new Error(`POST /v1${first.path} answered ${first.status}: ${first.text.slice(0, 500)}`);
      const samples = await timedRuns(ITERATIONS, BUDGET_MS, async (i) => {
        const answer = await post(i);
        if (answer.status !== 200) throw new Error(`POST /v1${answer.path} answered ${answer.status}: ${answer.text.slice(0, 500)}`);
      });
      http.push({ samples, size: answerSize(query, JSON.parse(first.text)) });
    }
  } finally {
    await standalone.stop();
  }

  log('  engine alone, second pass');
  const after = await enginePass(file, queries);

  return {
    dataset,
    queries: queries.map((query, n) => ({
      name: query.name,
      http: http[n].samples ? latency(http[n].samples!) : undefined,
      httpMissing: http[n].missing,
      engine: latency([...before.samples[n], ...after.samples[n]]),
      enginePasses: [latency(before.samples[n]).p50, latency(after.samples[n]).p50],
      answers: { http: http[n].size, engine: before.sizes[n] },
    })),
  };
}
