/** Redirect rounds paired with a baseline's, as the edge rows and their floor measure them. */
import { type LoadResult, load } from '../http-load';
import { cpuMs } from '../processes';

/** The tracking domain of the links `/a/<accountId>/...` (EDGE_DEFAULT_DOMAIN). */
export const DOMAIN = 'edge.bench.local';
/**
 * `BENCH_EDGE_CONNECTIONS`: connections of the redirect rounds, the edge's and the baseline's (default
 * 32). Each redirect waits for its hits' group commit, so at 32 the edge idles between batches and its
 * CPU per redirect includes that; more connections measure it busy.
 */
export const CONNECTIONS = Number(process.env.BENCH_EDGE_CONNECTIONS ?? 32);
/**
 * `BENCH_EDGE_SETTLE_MS`: after each measured round, how long its processes get to finish the work the
 * round left behind before the next baseline round starts (default 2,000 ms: the embedded warehouse
 * commits its open ingest transaction INGEST_IDLE_MS, 1 s, after the last hit). Their CPU meanwhile is
 * counted in the measured round's CPU per answer, and the commit does not slow the baseline's round.
 */
const SETTLE_MS = Number(process.env.BENCH_EDGE_SETTLE_MS ?? 2000);
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** Answers other than `expected`, e.g. "12 x 503" ("" when none). */
export function unexpected(result: LoadResult, expected: string): string {
  const others = Object.entries(result.statusCodes).filter(([code]) => code !== expected);
  return [...others.map(([code, count]) => `${count} x ${code}`), ...(result.errors ? [`${result.errors} errors`] : [])].join(', ');
}

export interface PairedRedirects {
  measure: LoadResult;
  baseline: LoadResult;
  ratios: number[];
  ratio: number;
  /** Median CPU µs per answer of the edge's process, of the baseline's, and of every measured process (when several). */
  cpu?: { measure: number; baseline: number; all?: number };
}

/**
 * Alternates a baseline round and an edge round (`rounds` pairs of `durationSeconds`, each edge round
 * followed by SETTLE_MS); the ratio of each pair cancels the neighbours' load.
 */
export async function pairedRedirects(
  kit: { rounds: number; durationSeconds: number },
  baselineUrl: string,
  edgeUrl: string,
  pids: { measure: number[]; baseline: number },
): Promise<PairedRedirects> {
  const edge = { url: edgeUrl, headers: { host: DOMAIN }, connections: CONNECTIONS };
  await load({ ...edge, durationSeconds: 2 });
  const rounds: { measure: LoadResult; baseline: LoadResult; cpu?: [number, number, number] }[] = [];
  for (let round = 0; round < kit.rounds; round++) {
    const b0 = cpuMs([pids.baseline]);
    const baseline = await load({ url: baselineUrl, connections: CONNECTIONS, durationSeconds: kit.durationSeconds });
    const b1 = cpuMs([pids.baseline]);
    const m0 = cpuMs(pids.measure.slice(0, 1));
    const a0 = cpuMs(pids.measure);
    const measure = await load({ ...edge, durationSeconds: kit.durationSeconds });
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
    const m1 = cpuMs(pids.measure.slice(0, 1));
    const a1 = cpuMs(pids.measure);
    const known = b0 !== undefined && b1 !== undefined && m0 !== undefined && m1 !== undefined && a0 !== undefined && a1 !== undefined;
    rounds.push({
      measure,
      baseline,
      cpu: known ? [((m1 - m0) * 1000) / measure.requests, ((b1 - b0) * 1000) / baseline.requests, ((a1 - a0) * 1000) / measure.requests] : undefined,
    });
  }
  const ratios = rounds.map((r) => r.measure.requestsPerSecond / r.baseline.requestsPerSecond);
  const middle = median(ratios);
  const chosen = rounds[ratios.indexOf(middle)];
  const cpus = rounds.filter((r) => r.cpu).map((r) => r.cpu!);
  return {
    measure: chosen.measure,
    baseline: chosen.baseline,
    ratios,
    ratio: middle,
    cpu:
      cpus.length === rounds.length
        ? {
            measure: median(cpus.map((c) => c[0])),
            baseline: median(cpus.map((c) => c[1])),
            all: pids.measure.length > 1 ? median(cpus.map((c) => c[2])) : undefined,
          }
        : undefined,
  };
}
