import { type LogLevel, type Logger, createLogger } from './logger';

export interface CapturedLogs {
  logger: Logger;
  /** Every line written so far, parsed. */
  entries: Array<Record<string, unknown>>;
  /** The raw JSON lines, for asserting what text reached the log (or did not). */
  text(): string;
}

/** A platform logger whose JSON lines are kept in memory instead of written to stdout: for tests. */
export function captureLogs(name = 'test', level: LogLevel = 'trace'): CapturedLogs {
  const lines: string[] = [];
  const entries: Array<Record<string, unknown>> = [];
  const destination = {
    write(line: string) {
      lines.push(line);
      entries.push(JSON.parse(line) as Record<string, unknown>);
    },
  };
  return { logger: createLogger(name, level, { destination }), entries, text: () => lines.join('') };
}
