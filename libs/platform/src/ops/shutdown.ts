import type { Logger } from 'pino';
import { createLogger } from '../logging/logger';

export interface ShutdownOptions {
  /** After this long the process exits with 1 even if the handler has not finished. */
  timeoutMs?: number;
  logger?: Logger;
  signals?: readonly NodeJS.Signals[];
  /** Seam for tests; process.exit by default. */
  exit?: (code: number) => void;
}

export const DEFAULT_SHUTDOWN_TIMEOUT_MS = 10_000;

/**
 * On the first SIGTERM/SIGINT, runs `handler` (drain in-flight work, then close connections) once,
 * then exits 0 (1 if it failed or outlived `timeoutMs`). Later signals are ignored while it runs.
 * Returns a function that removes the listeners.
 */
export function onShutdownSignals(handler: () => Promise<void>, options: ShutdownOptions = {}): () => void {
  const signals = options.signals ?? ['SIGTERM', 'SIGINT'];
  const timeoutMs = options.timeoutMs ?? DEFAULT_SHUTDOWN_TIMEOUT_MS;
  const exit = options.exit ?? ((code: number) => process.exit(code));
  let started = false;

  const onSignal = (signal: NodeJS.Signals) => {
    if (started) return;
    started = true;
    const logger = options.logger ?? createLogger('shutdown');
    logger.info({ signal, timeoutMs }, 'shutting down');
    const hardStop = setTimeout(() => {
      logger.error({ timeoutMs }, 'shutdown took too long, exiting');
      exit(1);
    }, timeoutMs);
    // The timer alone must not keep the process alive once everything else is closed.
    hardStop.unref();
    handler().then(
      () => {
        clearTimeout(hardStop);
        logger.info('shutdown complete');
        exit(0);
      },
      (error: unknown) => {
        clearTimeout(hardStop);
        logger.error({ err: error }, 'shutdown failed');
        exit(1);
      },
    );
  };

  for (const signal of signals) process.on(signal, onSignal);
  return () => {
    for (const signal of signals) process.off(signal, onSignal);
  };
}
