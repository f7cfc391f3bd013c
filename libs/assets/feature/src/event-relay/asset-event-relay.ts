import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { Logger } from '@nestjs/common';
import {
  AckPolicy,
  type ConsumerConfig,
  DeliverPolicy,
  DiscardPolicy,
  type JetStreamManager,
  type NatsConnection,
  RetentionPolicy,
  StorageType,
  type StreamConfig,
  nanos,
} from 'nats';
import { ASSET_EVENTS_RELAY_BUCKET, ASSET_EVENTS_STREAM, ASSET_EVENTS_SUBJECTS } from '@funnel/contracts';
import { EventStore, GlobalPosition, Subscription, comparePositions, positionToString } from '@funnel/eventstore';
import { AssetRegistry } from '@funnel/assets-domain';
import { JetStreamPipeline, jetStreamReaderDeliverSubject } from '@funnel/platform';
import { assetEventMessage } from './asset-event-message';
import { HeldLease, RelayLease, RelayLeaseLost } from './relay-lease';

export interface AssetEventRelayOptions {
  eventStore: EventStore;
  registry: AssetRegistry;
  /** Opens the relay's NATS connection; the relay closes it on stop. */
  connect: () => Promise<NatsConnection>;
  /** Prefix of the connection's reply inboxes (JetStream API answers, publish acknowledgements). */
  inboxPrefix?: string;
  /** How long the stream keeps an event (ASSET_EVENTS_MAX_AGE). */
  maxAgeMs: number;
  /** The stream's de-duplication window (ASSET_EVENTS_DUPLICATE_WINDOW). */
  duplicateWindowMs: number;
  /** The stream's readers (ASSET_EVENTS_READERS): each gets a durable consumer of its own (see ensureReaders). */
  readers?: readonly string[];
  /** A standby takes over after seeing the lease unchanged this long (default 10 s). */
  leaseTtlMs?: number;
  /** Publishes awaiting acknowledgement at most (default 4096). */
  maxInFlight?: number;
  /** How often the checkpoint is written while events flow (default 200 ms). */
  checkpointIntervalMs?: number;
  /** Wait before trying again after a failure (default 1 s), doubling while failures last (up to 30 s). */
  retryDelayMs?: number;
  /** Name of this relay in the lease and the logs (default host, pid and a random suffix). */
  holder?: string;
  logger?: Pick<Logger, 'log' | 'warn' | 'error'>;
}

/** What the relay did since it started: messages JetStream stored, and duplicates it dropped. */
export interface AssetEventRelayStats {
  stored: number;
  duplicates: number;
  /** Times this relay became the active one. */
  leases: number;
}

const DEFAULT_LEASE_TTL_MS = 10_000;
const BATCH_SIZE = 1000;
const SETTLE_ON_STOP_MS = 5000;
const MAX_RETRY_DELAY_MS = 30_000;
const ENCODER = new TextEncoder();

/**
 * Follows the asset event log from the checkpoint and publishes every asset event to the JetStream
 * stream ASSET_EVENTS on `assets.events.<kind>.<EventType>`, Nats-Msg-Id = the event id:
 * - at least once and in log order (so in order per asset): the checkpoint moves only over events
 *   JetStream acknowledged, and a restart resumes from it; what was sent after it again is dropped by
 *   the stream's de-duplication within its window;
 * - fast: up to `maxInFlight` publishes in flight, acknowledgements matched in order;
 * - one active relay across replicas: a lease in the KV bucket ASSET_EVENTS_RELAY (see RelayLease);
 *   the others wait as standbys.
 * Failures (NATS or JetStream down, a refused publish, a lost lease) are logged and retried; they
 * never stop the service.
 */
export class AssetEventRelay {
  private readonly logger: Pick<Logger, 'log' | 'warn' | 'error'>;
  private readonly holder: string;
  private readonly leaseTtlMs: number;
  private nc: NatsConnection | undefined;
  private stopped = false;
  private running: Promise<void> | undefined;
  private wake: (() => void) | undefined;
  private active = false;
  /** Every event up to here is in the stream (as far as this relay knows), while active. */
  private acknowledged: GlobalPosition | undefined;
  /** The pipeline of the current run, while active. */
  private pipeline: JetStreamPipeline<GlobalPosition> | undefined;
  private readonly counters: AssetEventRelayStats = { stored: 0, duplicates: 0, leases: 0 };

  constructor(private readonly options: AssetEventRelayOptions) {
    this.logger = options.logger ?? new Logger('AssetEventRelay');
    this.holder = options.holder ?? `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;
    this.leaseTtlMs = options.leaseTtlMs ?? DEFAULT_LEASE_TTL_MS;
    if (options.duplicateWindowMs > options.maxAgeMs) throw new Error('the duplicate window cannot be longer than the stream keeps events');
  }

  /** Starts relaying in the background (as a standby until it holds the lease). */
  start(): void {
    this.running ??= this.run();
  }

  /** Whether this relay holds the lease and is publishing. */
  get isActive(): boolean {
    return this.active;
  }

  /** While active: the position up to which JetStream acknowledged every event (what the next checkpoint writes). */
  get checkpoint(): GlobalPosition | undefined {
    return this.active ? this.acknowledged : undefined;
  }

  get stats(): AssetEventRelayStats {
    const current = this.pipeline?.stats;
    return { ...this.counters, stored: this.counters.stored + (current?.stored ?? 0), duplicates: this.counters.duplicates + (current?.duplicates ?? 0) };
  }

  /** Stops publishing, waits (up to 5 s) for the acknowledgements in flight, writes the checkpoint, lets the lease go. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.wake?.();
    await this.running;
    const nc = this.nc;
    this.nc = undefined;
    if (nc && !nc.isClosed()) await nc.close();
  }

  private async run(): Promise<void> {
    const firstDelay = this.options.retryDelayMs ?? 1000;
    let delay = firstDelay;
    while (!this.stopped) {
      try {
        const nc = await this.connection();
        const jsm = await nc.jetstreamManager();
        await ensureStream(jsm, this.options);
        await ensureReaders(jsm, this.options.readers ?? []);
        const kv = await nc.jetstream().views.kv(ASSET_EVENTS_RELAY_BUCKET, { history: 1 });
        const lease = new RelayLease(kv, this.holder, this.leaseTtlMs);
        const held = await this.acquire(lease);
        delay = firstDelay;
        if (held) await this.relay(nc, lease, held);
      } catch (error) {
        if (this.stopped) break;
        this.logger.warn(`asset event relay: ${(error as Error).message}; trying again in ${delay} ms`);
        await this.pause(delay);
        // A lasting outage (no JetStream on the server) is retried ever less often, up to every 30 s.
        delay = Math.min(delay * 2, MAX_RETRY_DELAY_MS);
      }
    }
  }

  private async connection(): Promise<NatsConnection> {
    if (this.nc && !this.nc.isClosed()) return this.nc;
    this.nc = await this.options.connect();
    return this.nc;
  }

  /** Waits as a standby until the lease is this relay's (undefined when stopped first). */
  private async acquire(lease: RelayLease): Promise<HeldLease | undefined> {
    while (!this.stopped) {
      const held = await lease.tryAcquire();
      if (held) return held;
      await this.pause(Math.min(1000, this.leaseTtlMs / 4));
    }
    return undefined;
  }

  /** Publishes from the lease's checkpoint until stopped, a failure, or the lease is lost. */
  private async relay(nc: NatsConnection, lease: RelayLease, held: HeldLease): Promise<void> {
    const { eventStore, registry } = this.options;
    this.active = true;
    this.counters.leases++;
    this.logger.log(`asset event relay ${this.holder} is active from ${positionToString(held.position)}`);
    let acked: GlobalPosition = held.position;
    const pipeline = new JetStreamPipeline<GlobalPosition>(nc, {
      inboxPrefix: this.options.inboxPrefix,
      maxInFlight: this.options.maxInFlight,
      onAcked: (position) => (acked = this.acknowledged = position),
    });
    this.acknowledged = held.position;
    this.pipeline = pipeline;
    let failure: Error | undefined;
    let subscription: Subscription | undefined;
    let checkpoints: { stop(): Promise<void> } | undefined;
    /** Set when the run ends: the batch being handed over stops there. */
    let halted = false;
    const ended = new Promise<void>((resolve) => {
      const end = (error?: Error) => {
        halted = true;
        failure ??= error;
        resolve();
      };
      this.wake = () => end();
      subscription = eventStore.subscribeToAll({
        from: held.position,
        streamNamePrefixes: registry.streamPrefixes(),
        batchSize: BATCH_SIZE,
        onEvents: async (events) => {
          for (const event of events) {
            if (!pipeline.hasRoom) await pipeline.room();
            if (halted) return;
            const message = assetEventMessage(registry, event);
            if (message) pipeline.publish(message.subject, ENCODER.encode(JSON.stringify(message.payload)), message.msgId, event.position);
          }
        },
        onError: end,
      });
      checkpoints = this.checkpoints(lease, held, () => acked, pipeline, end);
    });
    if (this.stopped) this.wake?.();
    await ended;
    await checkpoints?.stop();
    this.wake = undefined;
    await subscription?.stop();
    // What is in flight gets its acknowledgements first, so the checkpoint covers it.
    if (!failure) await pipeline.settle(SETTLE_ON_STOP_MS);
    pipeline.close();
    this.counters.stored += pipeline.stats.stored;
    this.counters.duplicates += pipeline.stats.duplicates;
    this.pipeline = undefined;
    this.active = false;
    if (failure instanceof RelayLeaseLost) {
      this.logger.warn(failure.message);
      return;
    }
    if (!nc.isClosed()) {
      // Let go only on a stop: after a failure this relay tries again and should keep its turn.
      await lease.write(held, acked, this.stopped).catch((error: Error) => this.logger.warn(`asset event relay checkpoint: ${error.message}`));
    }
    if (failure && !this.stopped) throw failure;
  }

  /**
   * Writes the checkpoint as acknowledgements come, and renews the lease at least every ttl/3; ends
   * the run on a failure. `stop()` ends the writes and resolves once the one under way (if any) is
   * done, so the last write of the run finds the revision it expects.
   */
  private checkpoints(
    lease: RelayLease,
    held: HeldLease,
    acked: () => GlobalPosition,
    pipeline: JetStreamPipeline<GlobalPosition>,
    end: (error: Error) => void,
  ): { stop(): Promise<void> } {
    let writing: Promise<void> | undefined;
    let lastWrite = performance.now();
    const renewEvery = this.leaseTtlMs / 3;
    const timer = setInterval(
      () => {
        if (pipeline.failed) return end(pipeline.failed);
        const position = acked();
        const moved = comparePositions(position, held.position) > 0;
        if (writing || (!moved && performance.now() - lastWrite < renewEvery)) return;
        writing = lease
          .write(held, position)
          .then(
            () => void (lastWrite = performance.now()),
            (error: Error) => end(error),
          )
          .finally(() => (writing = undefined));
      },
      Math.min(this.options.checkpointIntervalMs ?? 200, renewEvery),
    );
    return {
      async stop() {
        clearInterval(timer);
        await writing;
      },
    };
  }

  private pause(ms: number): Promise<void> {
    if (this.stopped) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wake = done;
    });
  }
}

/** Creates the stream, or brings an existing one's retention and duplicate window to the configured ones. */
export async function ensureStream(jsm: JetStreamManager, options: { maxAgeMs: number; duplicateWindowMs: number }): Promise<void> {
  const wanted: Partial<StreamConfig> = {
    name: ASSET_EVENTS_STREAM,
    subjects: [ASSET_EVENTS_SUBJECTS],
    retention: RetentionPolicy.Limits,
    storage: StorageType.File,
    discard: DiscardPolicy.Old,
    max_age: nanos(options.maxAgeMs),
    duplicate_window: nanos(options.duplicateWindowMs),
  };
  let existing: StreamConfig | undefined;
  try {
    existing = (await jsm.streams.info(ASSET_EVENTS_STREAM)).config;
  } catch (error) {
    if (!isStreamNotFound(error)) throw error;
  }
  if (!existing) {
    await jsm.streams.add(wanted);
    return;
  }
  if (existing.max_age !== wanted.max_age || existing.duplicate_window !== wanted.duplicate_window) {
    await jsm.streams.update(ASSET_EVENTS_STREAM, { ...existing, max_age: wanted.max_age, duplicate_window: wanted.duplicate_window });
  }
}

/** A reader's durable consumer: every event the stream keeps, then each new one, acknowledged one by one. */
export function readerConsumerConfig(reader: string): Partial<ConsumerConfig> {
  return {
    durable_name: reader,
    deliver_subject: jetStreamReaderDeliverSubject(reader),
    // The reader's processes share the deliveries (a queue group), like a service's replicas.
    deliver_group: reader,
    deliver_policy: DeliverPolicy.All,
    ack_policy: AckPolicy.Explicit,
    ack_wait: nanos(30_000),
    max_ack_pending: 1000,
  };
}

/**
 * Creates each reader's durable consumer when absent (an existing one is kept as it is, position
 * included). Only the stream's owner creates consumers: a reader's NATS user may only receive what
 * its consumer delivers to `_INBOX_events.<reader>` and acknowledge it (jetStreamReaderPermissions).
 */
export async function ensureReaders(jsm: JetStreamManager, readers: readonly string[]): Promise<void> {
  for (const reader of readers) {
    try {
      await jsm.consumers.info(ASSET_EVENTS_STREAM, reader);
      continue;
    } catch (error) {
      if (!isConsumerNotFound(error)) throw error;
    }
    await jsm.consumers.add(ASSET_EVENTS_STREAM, readerConsumerConfig(reader));
  }
}

function isConsumerNotFound(error: unknown): boolean {
  return (error as { api_error?: { err_code?: number } }).api_error?.err_code === 10014 || /consumer not found/i.test((error as Error).message ?? '');
}

function isStreamNotFound(error: unknown): boolean {
  return (error as { api_error?: { err_code?: number } }).api_error?.err_code === 10059 || /stream not found/i.test((error as Error).message ?? '');
}
