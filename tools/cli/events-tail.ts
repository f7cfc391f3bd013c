import { DeliverPolicy, type NatsConnection, connect } from 'nats';
import { ASSET_EVENTS_STREAM, ASSET_EVENTS_SUBJECTS, ASSET_KINDS, ASSET_EVENTS_SUBJECT_ROOT } from '@funnel/contracts';
import { ConfigError, DEFAULT_EVENTS_READER_INBOX_PREFIX, loadConfig, natsAccessOptions, string } from '@funnel/platform';
import { natsAccessFrom, natsConfig } from '@funnel/runtime';
import type { CliIo } from './users';

export const EVENTS_TAIL_USAGE = [
  'usage: npm run -s cli -- events:tail [--kind <kind>] [--from-start]',
  '  prints the asset events of the JetStream stream ASSET_EVENTS as they come, one JSON line each',
  '  (from now; --from-start: from the oldest the stream keeps). Ctrl-C stops.',
  '  NATS_URL, and NATS_USER / NATS_PASSWORD or NATS_CREDS_FILE of a reader (see README "Asset events"),',
  `  NATS_INBOX_PREFIX (default ${DEFAULT_EVENTS_READER_INBOX_PREFIX}). Kinds: ${ASSET_KINDS.map((k) => k.kind).join(', ')}`,
].join('\n');

export interface TailOptions {
  kind?: string;
  fromStart: boolean;
}

class UsageError extends Error {}

export function parseTailArgs(argv: readonly string[]): TailOptions {
  const options: TailOptions = { fromStart: false };
  const args = argv.flatMap((arg) => (arg.startsWith('--') && arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg]));
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === '--from-start') options.fromStart = true;
    else if (arg === '--kind') {
      const kind = args[++i];
      if (!kind || !ASSET_KINDS.some((k) => k.kind === kind)) throw new UsageError(`--kind takes an asset kind, got ${JSON.stringify(kind ?? '')}`);
      options.kind = kind;
    } else throw new UsageError(`unknown argument ${JSON.stringify(arg)}`);
  }
  return options;
}

/**
 * Follows the stream with an ordered consumer (ephemeral: nothing stays on the server after it),
 * from now or from the start, filtered to one kind's subjects; `out` gets each payload as it is.
 * Resolves when `signal` aborts.
 */
export async function tailAssetEvents(nc: NatsConnection, options: TailOptions, out: (line: string) => void, signal: AbortSignal): Promise<void> {
  const consumer = await nc.jetstream().consumers.get(ASSET_EVENTS_STREAM, {
    filterSubjects: options.kind ? `${ASSET_EVENTS_SUBJECT_ROOT}.${options.kind}.>` : ASSET_EVENTS_SUBJECTS,
    // An ordered consumer starts at the stream's first message by default (nats.js hangs on an explicit DeliverPolicy.All).
    ...(options.fromStart ? {} : { deliver_policy: DeliverPolicy.New }),
  });
  const messages = await consumer.consume();
  const stop = () => void messages.close();
  if (signal.aborted) stop();
  signal.addEventListener('abort', stop, { once: true });
  for await (const message of messages) out(message.string());
}

const tailConfig = { ...natsConfig, NATS_INBOX_PREFIX: string({ default: DEFAULT_EVENTS_READER_INBOX_PREFIX }) };

/** Resolves to the exit code: 0 stopped, 1 failed (configuration, NATS, no stream), 2 bad arguments. */
export async function runEventsTailCli(argv: readonly string[], env: NodeJS.ProcessEnv, io: CliIo, signal: AbortSignal): Promise<number> {
  let options: TailOptions;
  try {
    options = parseTailArgs(argv.slice(1));
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    io.err(`error: ${error.message}`);
    io.err(EVENTS_TAIL_USAGE);
    return 2;
  }
  let nc: NatsConnection | undefined;
  try {
    const config = loadConfig(tailConfig, env);
    const servers = config.NATS_URL.split(',')
      .map((server) => server.trim())
      .filter((server) => server !== '');
    nc = await connect({ servers, name: 'events-tail', ...(natsAccessOptions(natsAccessFrom(config)) as object) });
    await tailAssetEvents(nc, options, io.out, signal);
    return 0;
  } catch (error) {
    io.err(error instanceof ConfigError ? error.message : `error: ${(error as Error).message}`);
    return 1;
  } finally {
    if (nc && !nc.isClosed()) await nc.close();
  }
}
