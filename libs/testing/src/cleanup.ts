/**
 * What tests leave behind (temporary directories, child processes) goes at the end of the test file
 * that made it: Jest may end its workers with a signal once the run is over (a worker that does not
 * exit at once is killed), and a signal runs no 'exit' handler, so exit alone left directories under
 * the temp dir.
 */
type Cleanup = () => void | Promise<void>;

/** Newest first: a server started in a directory stops before the directory goes. */
const pending: Cleanup[] = [];

/**
 * Runs `cleanup` after the current test file, or at process exit outside Jest (where only its
 * synchronous part runs). Returns a function that drops it, for resources released early.
 */
export function cleanUpLater(cleanup: Cleanup): () => void {
  pending.unshift(cleanup);
  return () => {
    const index = pending.indexOf(cleanup);
    if (index >= 0) pending.splice(index, 1);
  };
}

/** Runs and forgets every pending cleanup, newest first; one failing does not stop the others. */
export async function runPendingCleanups(): Promise<void> {
  const failures: unknown[] = [];
  for (const cleanup of pending.splice(0)) {
    try {
      await cleanup();
    } catch (error) {
      failures.push(error);
    }
  }
  if (failures.length) throw new AggregateError(failures, 'test cleanup failed');
}

function runPendingCleanupsNow(): void {
  for (const cleanup of pending.splice(0)) {
    try {
      void Promise.resolve(cleanup()).catch(() => undefined);
    } catch {
      // At exit there is no one left to tell.
    }
  }
}

declare const afterAll: ((hook: () => Promise<void>) => void) | undefined;

/** Jest gives each test file its own copy of this module, so this hook belongs to the file that imported it. */
function registerHooks(): void {
  if (typeof afterAll === 'function') {
    try {
      afterAll(runPendingCleanups);
      return;
    } catch {
      // Imported from inside a test or hook, where no hook can be added: fall back to exit.
    }
  }
  process.once('exit', runPendingCleanupsNow);
}

registerHooks();
