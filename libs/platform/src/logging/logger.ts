import pino, { type DestinationStream, type Logger } from 'pino';

export type { Logger } from 'pino';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** Field names whose values never reach a log line, wherever they sit in the logged object. */
export const REDACTED_FIELDS = [
  'password',
  'key',
  'apiKey',
  'token',
  'authorization',
  'secret',
  'refresh_token',
  'access_token',
  'id_token',
  'mfa_token',
  'bearerToken',
  'otp',
  'passwordHash',
  'x-api-key',
  'cookie',
] as const;

/** Redaction depth: log objects such as `{ req: { headers: { authorization } } }` nest three levels. */
const REDACTION_DEPTH = 3;

function redactionPaths(): string[] {
  const paths: string[] = [];
  for (const field of REDACTED_FIELDS) {
    // Bracket notation works for every name, including the dashed ones such as x-api-key.
    const leaf = `[${JSON.stringify(field)}]`;
    for (let depth = 0; depth < REDACTION_DEPTH; depth++) {
      paths.push(Array<string>(depth).fill('*').join('.') + leaf);
    }
  }
  return paths;
}

export interface LoggerOptions {
  /** Where the JSON lines go; stdout when absent. Tests pass a stream to read the lines back. */
  destination?: DestinationStream;
}

let stdout: DestinationStream | undefined;

/** One synchronous stdout stream for every logger: lines are never lost on process.exit. */
function stdoutDestination(): DestinationStream {
  stdout ??= pino.destination({ dest: 1, sync: true });
  return stdout;
}

/** A pino logger writing one JSON object per line, with secret fields redacted. */
export function createLogger(name: string, level: LogLevel = 'info', options: LoggerOptions = {}): Logger {
  return pino(
    {
      name,
      level,
      redact: { paths: redactionPaths(), censor: '[redacted]' },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
    },
    options.destination ?? stdoutDestination(),
  );
}
