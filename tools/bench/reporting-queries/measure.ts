/** Timed requests per query over HTTP (after 2 warm-ups); each of the two engine passes takes half as many. */
export const ITERATIONS = Number(process.env.BENCH_QUERY_ITERATIONS ?? 16);
const WARMUPS = 2;
/** A query's timed runs on one side stop after this long (at least 5 runs), so a slow machine does not stretch the section past minutes. */
export const BUDGET_MS = Number(process.env.BENCH_QUERY_BUDGET_MS ?? 30_000);
const MIN_RUNS = 5;

export interface Latency {
  p50: number;
  p95: number;
  samples: number[];
}

/** p50 and p95 (nearest rank) of milliseconds. */
export function latency(samples: number[]): Latency {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (p: number) => sorted[Math.max(0, Math.ceil(p * sorted.length) - 1)];
  return { p50: at(0.5), p95: at(0.95), samples };
}

/** `count` timed runs after the warm-ups, fewer (but MIN_RUNS) when they pass `budgetMs`; answers their milliseconds. */
export async function timedRuns(count: number, budgetMs: number, run: (iteration: number) => Promise<void>): Promise<number[]> {
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
