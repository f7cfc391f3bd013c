import { join } from 'node:path';
import { freePort, runTs, waitForHttp } from '../processes';
import { benchDataset, type Dataset, type StandaloneLauncher } from './dataset';
import { enginePass, sampleVisitors } from './engine';
import { httpPass } from './http';
import { latency, type Latency } from './measure';
import { benchQueries } from './queries';

export type { StandaloneLauncher } from './dataset';

/** Hits generated (`BENCH_QUERY_HITS`, default the 10,000,000). */
const HITS = Number(process.env.BENCH_QUERY_HITS ?? 10_000_000);

export interface QueryFigure {
  name: string;
  http?: Latency;
  /** Why there is no HTTP figure (the route is not there). */
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
  let http;
  try {
    const base = `http://127.0.0.1:${port}/v1`;
    await waitForHttp(`${base}/visitortag/list/`, { 'x-api-key': launcher.apiKey }, 120_000);
    http = await httpPass(base, launcher.apiKey, queries);
  } finally {
    await standalone.stop();
  }

  log('  engine alone, second pass');
  const after = await enginePass(file, queries);

  return {
    dataset,
    queries: queries.map((query, n) => ({
      name: query.name,
      http: http[n].samples ? latency(http[n].samples) : undefined,
      httpMissing: http[n].missing,
      engine: latency([...before.samples[n], ...after.samples[n]]),
      enginePasses: [latency(before.samples[n]).p50, latency(after.samples[n]).p50],
      answers: { http: http[n].size, engine: before.sizes[n] },
    })),
  };
}
