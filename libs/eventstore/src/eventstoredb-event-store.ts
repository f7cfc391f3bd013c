import { LogSubscription } from './log-subscription';
import { randomUUID } from 'node:crypto';
import {
  ANY,
  BACKWARDS,
  END,
  ErrorType,
  EventStoreDBClient,
  FORWARDS,
  NO_STREAM,
  START,
  STREAM_EXISTS,
  excludeSystemEvents,
  isCommandError,
  jsonEvent,
  streamNameFilter,
  type AllStreamResolvedEvent,
  type AllStreamSubscription,
  type AppendExpectedRevision,
  type Filter,
  type Position,
  type RecordedEvent as EsdbRecordedEvent,
} from '@eventstore/db-client';
import {
  MaxAppendSizeExceededError,
  START_POSITION,
  WrongExpectedRevisionError,
  comparePositions,
  type AppendResult,
  type CountEventsOptions,
  type EventMetadata,
  type EventStore,
  type ExpectedRevision,
  type GlobalPosition,
  type NewEvent,
  type ReadStreamOptions,
  type RecordedEvent,
  type StreamAppend,
  type SubscribeToAllOptions,
  type Subscription,
} from './event-store.port';

const DEFAULT_BATCH_SIZE = 1000;
const HEAD_SEARCH_PAGE = 256;
/** countEvents reads $all (no server-side filter on reads) and stops after this many events per counted one asked for. */
const COUNT_SCAN_FACTOR = 10;
const RETRY_DELAY_MS = 250;
const MAX_RETRY_DELAY_MS = 5000;
/** The server reports "no position" (e.g. for some stream reads) as the largest unsigned 64-bit value. */
const NO_POSITION = 2n ** 64n - 1n;

/** Failures worth a resubscribe: the connection or the leader went away, not a wrong request. */
const TRANSIENT_ERROR_TYPES: ReadonlySet<string> = new Set([
  ErrorType.UNAVAILABLE,
  ErrorType.DEADLINE_EXCEEDED,
  ErrorType.TIMEOUT,
  ErrorType.NOT_LEADER,
  ErrorType.CANCELLED,
  ErrorType.UNKNOWN,
]);

/**
 * EventStoreDB adapter (client 6.x, server 23.10+ for the caught-up signal). The only file that knows
 * the client library: everything crossing this boundary is the port's types.
 */
export class EventStoreDbEventStore implements EventStore {
  private readonly client: EventStoreDBClient;
  private readonly subscriptions = new Set<EventStoreDbSubscription>();
  private closed = false;

  /** @param connectionString e.g. `esdb://localhost:2113?tls=false` */
  constructor(connectionString: string) {
    this.client = EventStoreDBClient.connectionString(connectionString);
  }

  /**
   * Concurrent appends are in flight together: the client sends every append of this connection over
   * one BatchAppend call (the server's, when it has it and the call carries no credentials of its own,
   * as here), each with its own expected revision and answer; nothing here waits for one append
   * before sending the next, so the appends of concurrent requests reach the server together.
   */
  async append(streamName: string, events: NewEvent[], options?: { expectedRevision?: ExpectedRevision }): Promise<AppendResult> {
    if (events.length === 0) throw new Error(`append to ${streamName}: no events given`);
    const expected = options?.expectedRevision ?? 'any';
    const proposed = events.map((event) =>
      jsonEvent({
        id: event.id ?? randomUUID(),
        type: event.type,
        data: event.data,
        metadata: event.metadata ?? {},
      }),
    );
    try {
      const result = await this.client.appendToStream(streamName, proposed, {
        expectedRevision: toClientExpectedRevision(expected),
      });
      // Only when the connection string turns throwOnAppendFailure off.
      if (!result.success) {
        throw new WrongExpectedRevisionError(streamName, expected, toActualRevision(result.nextExpectedRevision));
      }
      const position = result.position ? toPosition(result.position) : await this.lastPositionOf(streamName);
      return { nextExpectedRevision: Number(result.nextExpectedRevision), position };
    } catch (error) {
      if (error instanceof Error && isCommandError(error) && error.type === ErrorType.WRONG_EXPECTED_VERSION) {
        throw new WrongExpectedRevisionError(streamName, expected, toActualRevision(error.actualVersion));
      }
      if (error instanceof Error && isCommandError(error) && error.type === ErrorType.MAXIMUM_APPEND_SIZE_EXCEEDED) {
        throw new MaxAppendSizeExceededError(streamName, undefined, error.maxAppendSize);
      }
      throw error;
    }
  }

  /** EventStoreDB writes no transaction across streams: the appends one after another, stopping at the first that fails. */
  async appendMany(appends: readonly StreamAppend[]): Promise<AppendResult[]> {
    const results: AppendResult[] = [];
    for (const { streamName, events, options } of appends) results.push(await this.append(streamName, events, options));
    return results;
  }

  async readStream(streamName: string, options?: ReadStreamOptions): Promise<RecordedEvent[]> {
    if (options?.maxCount === 0) return [];
    const read = this.client.readStream(streamName, {
      direction: FORWARDS,
      fromRevision: options?.fromRevision !== undefined ? BigInt(options.fromRevision) : START,
      ...(options?.maxCount !== undefined ? { maxCount: options.maxCount } : {}),
    });
    const events: RecordedEvent[] = [];
    try {
      for await (const resolved of read) {
        if (resolved.event) events.push(toRecordedEvent(resolved.event));
      }
    } catch (error) {
      if (error instanceof Error && isCommandError(error) && error.type === ErrorType.STREAM_NOT_FOUND) return [];
      throw error;
    }
    return events;
  }

  /** For appends answered without a position (an idempotent repeat of an earlier append). */
  private async lastPositionOf(streamName: string): Promise<GlobalPosition> {
    const read = this.client.readStream(streamName, { direction: BACKWARDS, fromRevision: END, maxCount: 1 });
    for await (const resolved of read) {
      if (resolved.event) return toRecordedEvent(resolved.event).position;
    }
    return START_POSITION;
  }

  subscribeToAll(options: SubscribeToAllOptions): Subscription {
    if (this.closed) throw new Error('EventStoreDbEventStore is closed');
    const subscription = new EventStoreDbSubscription(this.client, options, (finished) => this.subscriptions.delete(finished));
    this.subscriptions.add(subscription);
    subscription.start();
    return subscription;
  }

  /** The newest non-system event: $all also holds server bookkeeping that no subscription delivers. */
  async headPosition(): Promise<GlobalPosition> {
    let from: Position | typeof END = END;
    for (;;) {
      const read = this.client.readAll({ direction: BACKWARDS, fromPosition: from, maxCount: HEAD_SEARCH_PAGE });
      let count = 0;
      let oldest: Position | undefined;
      for await (const resolved of read) {
        const event = resolved.event;
        if (!event) continue;
        // The page may start with the position it was asked to start from: seen already.
        if (from !== END && comparePositions(event.position, from) >= 0) continue;
        count += 1;
        oldest = event.position;
        if (isUserEvent(event)) {
          await read.cancel();
          return toPosition(event.position);
        }
      }
      if (count === 0 || !oldest) return START_POSITION;
      from = oldest;
    }
  }

  /**
   * Reads $all forward from `after` and counts the matching user events. Reads cannot filter on the
   * server, so the scan stops after `limit * COUNT_SCAN_FACTOR` events: when other streams dominate
   * the log the answer is a lower bound.
   */
  async countEvents(options: CountEventsOptions): Promise<number> {
    if (options.limit <= 0) return 0;
    const after = comparePositions(options.after, START_POSITION) === 0 ? undefined : options.after;
    const prefixes = options.streamNamePrefixes?.filter((prefix) => prefix.length > 0) ?? [];
    const read = this.client.readAll({
      direction: FORWARDS,
      fromPosition: after ? { commit: after.commit, prepare: after.prepare } : START,
      maxCount: options.limit * COUNT_SCAN_FACTOR,
    });
    let count = 0;
    for await (const resolved of read) {
      const event = resolved.event;
      if (!event || !isUserEvent(event)) continue;
      // The read starts at `after` itself when an event sits there.
      if (after && comparePositions(toPosition(event.position), after) <= 0) continue;
      if (prefixes.length && !prefixes.some((prefix) => event.streamId.startsWith(prefix))) continue;
      count += 1;
      if (count >= options.limit) {
        await read.cancel();
        break;
      }
    }
    return count;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const subscriptions = [...this.subscriptions];
    await Promise.all(subscriptions.map((subscription) => subscription.stop()));
    await Promise.all(subscriptions.map((subscription) => subscription.whenFinished()));
    await this.client.dispose();
  }
}

/**
 * Catch-up then live in one server-side filtered subscription; the server says when it switched to
 * live ("caughtUp", server 23.10+). Reads the client's stream in batches with backpressure, remembers
 * the last delivered position, and resubscribes from it after transient failures.
 */
class EventStoreDbSubscription extends LogSubscription {
  private lastPosition: GlobalPosition | undefined;
  private readonly batchSize: number;
  private readonly filter: Filter;

  constructor(
    private readonly client: EventStoreDBClient,
    options: SubscribeToAllOptions,
    onFinished: (subscription: EventStoreDbSubscription) => void,
  ) {
    super(options, (subscription) => onFinished(subscription as EventStoreDbSubscription));
    const from = options.from;
    this.lastPosition = from && comparePositions(from, START_POSITION) !== 0 ? from : undefined;
    this.batchSize = Math.max(1, options.batchSize ?? DEFAULT_BATCH_SIZE);
    const prefixes = options.streamNamePrefixes?.filter((prefix) => prefix.length > 0) ?? [];
    this.filter = prefixes.length > 0 ? streamNameFilter({ prefixes }) : excludeSystemEvents();
  }

  /** Follows the log, resubscribing after transient failures with a growing pause. */
  protected async follow(): Promise<void> {
    let failures = 0;
    while (!this.stopped) {
      const outcome = await this.followOnce();
      if (this.stopped) break;
      if (outcome.progressed) failures = 0;
      if (!isTransient(outcome.error)) throw outcome.error;
      // Back off so a server restart does not meet a reconnect storm.
      await this.waitForWake(Math.min(MAX_RETRY_DELAY_MS, RETRY_DELAY_MS * 2 ** failures));
      failures += 1;
    }
  }

  /**
   * One server subscription, from the last delivered position until it fails, ends or we stop.
   * Handler failures are thrown; stream failures are returned so run() can decide to retry.
   */
  private async followOnce(): Promise<{ error: Error; progressed: boolean }> {
    const subscription: AllStreamSubscription = this.client.subscribeToAll(
      { fromPosition: this.lastPosition ?? START, filter: this.filter },
      { highWaterMark: this.batchSize },
    );
    let streamError: Error | undefined;
    let ended = false;
    let progressed = false;
    let taken = 0;
    /** Count of items read at which everything before the server's caught-up signal is delivered. */
    let caughtUpAfter: number | undefined;
    const signal = () => this.wake();
    const onEnded = () => {
      ended = true;
      signal();
    };
    subscription.on('readable', signal);
    subscription.on('end', onEnded);
    subscription.on('close', onEnded);
    subscription.on('error', (error: Error) => {
      streamError ??= error;
      signal();
    });
    subscription.on('caughtUp', () => {
      // Emitted while the events before it still sit in the readable buffer: they are yet to be delivered.
      caughtUpAfter ??= taken + subscription.readableLength;
      signal();
    });

    try {
      while (!this.stopped) {
        const batch: RecordedEvent[] = [];
        let newest: GlobalPosition | undefined;
        let read = 0;
        while (batch.length < this.batchSize) {
          const resolved = subscription.read() as AllStreamResolvedEvent | null;
          if (resolved === null) break;
          // Counted per item: read() may run the transform and emit caughtUp before it returns.
          read += 1;
          taken += 1;
          const event = resolved.event;
          if (!event) continue;
          const position = toPosition(event.position);
          // Guards the resume point: never deliver the same position twice.
          if (this.lastPosition && comparePositions(position, this.lastPosition) <= 0) continue;
          newest = position;
          if (isUserEvent(event)) batch.push(toRecordedEvent(event));
        }
        if (read > 0) progressed = true;
        if (batch.length > 0) await this.deliver(batch);
        if (newest) this.lastPosition = newest;
        if (caughtUpAfter !== undefined && taken >= caughtUpAfter) this.markCaughtUp();
        if (read > 0) continue;
        if (streamError) return { error: streamError, progressed };
        if (ended) return { error: new Error('EventStoreDB ended the subscription'), progressed };
        await this.waitForWake();
      }
      return { error: new Error('stopped'), progressed };
    } finally {
      subscription.removeAllListeners();
      // Errors after we let go (e.g. the cancellation itself) must not crash the process.
      subscription.on('error', () => undefined);
      await subscription.unsubscribe().catch(() => undefined);
    }
  }
}

function toClientExpectedRevision(expected: ExpectedRevision): AppendExpectedRevision {
  switch (expected) {
    case 'any':
      return ANY;
    case 'no_stream':
      return NO_STREAM;
    case 'stream_exists':
      return STREAM_EXISTS;
    default:
      return BigInt(expected);
  }
}

function toActualRevision(actual: bigint | typeof NO_STREAM | undefined): number | 'no_stream' {
  return typeof actual === 'bigint' && actual >= 0n ? Number(actual) : 'no_stream';
}

function toPosition(position: Position): GlobalPosition {
  return { commit: position.commit, prepare: position.prepare };
}

function isUserEvent(event: EsdbRecordedEvent): boolean {
  return !event.streamId.startsWith('$') && !event.type.startsWith('$');
}

function toRecordedEvent(event: EsdbRecordedEvent): RecordedEvent {
  const position = event.position;
  return {
    id: event.id,
    streamName: event.streamId,
    type: event.type,
    revision: Number(event.revision),
    // Stream reads on old servers carry no log position; START_POSITION marks it unknown.
    position: position && position.commit !== NO_POSITION ? toPosition(position) : START_POSITION,
    data: asRecord(event.data),
    metadata: asRecord(event.metadata) as EventMetadata,
    recordedAt: event.created,
  };
}

/** Our events are JSON objects; anything else (binary or foreign events) is kept but wrapped. */
function asRecord(value: unknown): Record<string, unknown> {
  if (value === undefined || value === null) return {};
  if (typeof value === 'object' && !Array.isArray(value) && !(value instanceof Uint8Array)) {
    return value as Record<string, unknown>;
  }
  return { value };
}

function isTransient(error: Error): boolean {
  if (!isCommandError(error)) return true;
  return TRANSIENT_ERROR_TYPES.has(error.type);
}
