import type { LoggerService, LogLevel as NestLogLevel } from '@nestjs/common';
import type { Logger } from 'pino';

/**
 * Routes Nest's own logs (bootstrap, router, transport status) through pino so every line of the
 * process is JSON. Nest passes the context (the class that logs) as the last string argument.
 */
export class PinoNestLogger implements LoggerService {
  constructor(private readonly logger: Logger) {}

  /** The pino logger underneath, for code that writes structured lines itself (the access log). */
  get pino(): Logger {
    return this.logger;
  }

  log(message: unknown, ...optionalParams: unknown[]): void {
    this.write('info', message, optionalParams);
  }

  error(message: unknown, ...optionalParams: unknown[]): void {
    // Nest calls error(message, stack?, context?).
    const [stackOrContext, context] = optionalParams;
    if (typeof context === 'string' && typeof stackOrContext === 'string') {
      this.logger.error({ context, stack: stackOrContext }, stringify(message));
      return;
    }
    this.write('error', message, optionalParams);
  }

  warn(message: unknown, ...optionalParams: unknown[]): void {
    this.write('warn', message, optionalParams);
  }

  debug(message: unknown, ...optionalParams: unknown[]): void {
    this.write('debug', message, optionalParams);
  }

  verbose(message: unknown, ...optionalParams: unknown[]): void {
    this.write('trace', message, optionalParams);
  }

  fatal(message: unknown, ...optionalParams: unknown[]): void {
    this.write('fatal', message, optionalParams);
  }

  /** Levels are pino's business (LOG_LEVEL); Nest's per-level switches are ignored on purpose. */
  setLogLevels(_levels: NestLogLevel[]): void {
    return;
  }

  private write(level: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace', message: unknown, optionalParams: unknown[]): void {
    const last = optionalParams[optionalParams.length - 1];
    const context = typeof last === 'string' ? last : undefined;
    if (message instanceof Error) {
      this.logger[level]({ context, err: message }, message.message);
    } else if (message !== null && typeof message === 'object') {
      this.logger[level]({ context, ...(message as Record<string, unknown>) });
    } else {
      this.logger[level]({ context }, stringify(message));
    }
  }
}

function stringify(message: unknown): string {
  return typeof message === 'string' ? message : String(message);
}
