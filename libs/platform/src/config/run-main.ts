import type { Logger } from 'pino';
import { createLogger } from '../logging/logger';
import { ConfigError } from './config';

export interface RunMainOptions {
  logger?: Logger;
  /** Seams for tests; the process's own by default. */
  exit?: (code: number) => void;
  writeError?: (line: string) => void;
}

/**
 * Runs an app's `main` and turns a failed start into exit code 1: a ConfigError prints its one line
 * to stderr (operators read it, no stack needed); anything else is logged with its stack.
 * Exits explicitly because a half-started app may hold sockets that would keep the process alive.
 */
export function runMain(main: () => Promise<void>, options: RunMainOptions = {}): Promise<void> {
  const exit = options.exit ?? ((code: number) => process.exit(code));
  const writeError = options.writeError ?? ((line: string) => process.stderr.write(`${line}\n`));
  return main().catch((error: unknown) => {
    if (error instanceof ConfigError) {
      writeError(error.message);
    } else {
      (options.logger ?? createLogger('main')).fatal({ err: error }, 'startup failed');
    }
    exit(1);
  });
}
