import { setTimeout as sleep } from 'node:timers/promises';
import type { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import duckdb from '@duckdb/node-bindings';

/** The longest wait between two looks at a statement's state (the first is 1 ms, then doubled). */
const LONGEST_LOOK_MS = 8;

/**
 * Runs a long statement (the ingest's COMMIT: compressing and writing up to a row group of hits,
 * 0.1-0.5 s) on DuckDB's own worker threads, looking at its state every few milliseconds from the
 * event loop, instead of `connection.run`, whose libuv thread busy-waits while a worker runs the
 * statement's tasks (duckdb/duckdb#22178: `PendingQueryResult::ExecuteInternal` spins as long as a
 * worker holds the last task). On 2 cores that spinning took a core from the rest of the process:
 * the ingest bench's hits per CPU second rose by a quarter without it.
 *
 * `workers`: DuckDB's background threads (`threads` minus the caller's one). With none, nothing
 * would run the statement but its caller: it runs as usual.
 */
export async function runOnWorkers(connection: DuckDBConnection, sql: string, workers: number): Promise<void> {
  if (workers < 1) {
    await connection.run(sql);
    return;
  }
  const pending = await connection.start(sql);
  // node-api keeps the C API's pending result to itself (its spec fails if a version renames it); the
  // state is looked at without running a task.
  const result = (pending as unknown as { pending_result: duckdb.PendingResult }).pending_result;
  for (let wait = 1; ; wait = Math.min(wait * 2, LONGEST_LOOK_MS)) {
    const state = duckdb.pending_execute_check_state(result);
    if (state === duckdb.PendingState.RESULT_READY || state === duckdb.PendingState.ERROR) break;
    await sleep(wait);
  }
  // Collects the result (or throws the statement's error).
  await pending.getResult();
}

/** DuckDB's background worker threads in `instance` (its `threads` setting less the one thread of the caller). */
export async function backgroundWorkers(instance: DuckDBInstance): Promise<number> {
  const connection = await instance.connect();
  try {
    const reader = await connection.runAndReadAll("SELECT current_setting('threads')::BIGINT - current_setting('external_threads')::BIGINT");
    return Number(reader.getRows()[0][0]);
  } finally {
    connection.closeSync();
  }
}
