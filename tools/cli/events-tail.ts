import { type NatsConnection, connect } from 'nats';
import { ASSET_EVENTS_SUBJECT_ROOT, ASSET_KINDS } from '@funnel/contracts';
import { ConfigError, JETSTREAM_READER_NAME, jetStreamReaderDeliverSubject, loadConfig, natsAccessOptions, string } from '@funnel/platform';
import { natsAccessFrom, natsConfig } from '@funnel/runtime';
import type { CliIo } from './users';

export const EVENTS_TAIL_USAGE = [
  'usage: npm run -s cli -- events:tail [--kind <kind>]',
  '  prints the asset events of the JetStream stream ASSET_EVENTS that the reader ASSET_EVENTS_READER',
  '  (default events-reader) has not acknowledged yet, then each new one, one JSON line each, and',
  '  acknowledges them (its durable consumer starts at the oldest event the stream keeps). Ctrl-C stops.',
  '  The consumer is created by assets-service (ASSET_EVENTS_READERS). NATS_URL, and NATS_USER /',
  '  NATS_PASSWORD or NATS_CREDS_FILE of that reader (see README "Asset events").',
  `  Kinds: ${ASSET_KINDS.map((k) => k.kind).join(', ')}`,
].join('\n');

export interface TailOptions {
  kind?: string;
}

class UsageError extends Error {}

export function parseTailArgs(argv: readonly string[]): TailOptions {
  const options: TailOptions = {};
  const args = argv.flatMap((arg) => (arg.startsWith('--') && arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg]));
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === '--from-start') {
      throw new UsageError("--from-start was removed: a reader's durable consumer resumes where it left off (its first run starts at the oldest event kept)");
    } else if (arg === '--kind') {
      const kind = args[++i];
      if (!kind || !ASSET_KINDS.some((k) => k.kind === kind)) throw new UsageError(`--kind takes an asset kind, got ${JSON.stringify(kind ?? '')}`);
      options.kind = kind;
    } else throw new UsageError(`unknown argument ${JSON.stringify(arg)}`);
  }
  return options;
}

/**
 * Receives the reader's durable consumer's deliveries on `_INBOX_events.<reader>` (in the reader's
 * queue group, so several processes of one reader share them), gives `out` the payload of each
 * event of the kind asked for (all kinds by default), and acknowledges every delivery once handled.
 * Resolves when `signal` aborts.
 */
export async function tailAssetEvents(
  nc: NatsConnection,
  reader: string,
  options: TailOptions,
  out: (line: string) => void,
  signal: AbortSignal,
): Promise<void> {
  const prefix = options.kind ? `${ASSET_EVENTS_SUBJECT_ROOT}.${options.kind}.` : `${ASSET_EVENTS_SUBJECT_ROOT}.`;
  const subject = jetStreamReaderDeliverSubject(reader);
  const subscription = nc.subscribe(subject, { queue: reader });
  const stop = () => subscription.unsubscribe();
  if (signal.aborted) stop();
  signal.addEventListener('abort', stop, { once: true });
  for await (const message of subscription) {
    if (message.subject.startsWith(prefix)) out(message.string());
    // `$JS.ACK.ASSET_EVENTS.<reader>.…`, the one subject the reader may publish to.
    if (message.reply) nc.publish(message.reply, '+ACK');
  }
}

const tailConfig = {
  ...natsConfig,
  ASSET_EVENTS_READER: string({ default: 'events-reader' }),
};

/** Resolves to the exit code: 0 stopped, 1 failed (configuration, NATS), 2 bad arguments. */
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
    if (!JETSTREAM_READER_NAME.test(config.ASSET_EVENTS_READER)) {
      throw new ConfigError(
        'ASSET_EVENTS_READER',
        'name',
        `must be a reader name (letters, digits, _ and -), got ${JSON.stringify(config.ASSET_EVENTS_READER)}`,
      );
    }
    const servers = config.NATS_URL.split(',')
      .map((server) => server.trim())
      .filter((server) => server !== '');
    nc = await connect({ servers, name: 'events-tail', ...(natsAccessOptions(natsAccessFrom(config)) as object) });
    await tailAssetEvents(nc, config.ASSET_EVENTS_READER, options, io.out, signal);
    return 0;
  } catch (error) {
    io.err(error instanceof ConfigError ? error.message : `error: ${(error as Error).message}`);
    return 1;
  } finally {
    if (nc && !nc.isClosed()) await nc.close();
  }
}
