import { randomUUID } from 'node:crypto';
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import Database from 'better-sqlite3';
import { LogSubscription } from './log-subscription';
import { openPrivateSqlite } from './private-sqlite';
import type { SqliteDurability } from './private-sqlite';
import { SqliteWriteHealth, storageErrorOf, type StorageUnavailableError } from './storage-health';
import { toError } from './log-subscription';
import {
  MaxAppendSizeExceededError,
  START_POSITION,
  WrongExpectedRevisionError,
  type AppendOptions,
  type AppendResult,
  type CountEventsOptions,
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

export interface SqliteEventStoreOptions {
  /** Path of the database file, or `:memory:` (tests only: nothing is shared or persisted). */
  filename: string;
  /**
   * `normal` (default): WAL with synchronous=NORMAL, safe against process crashes, may lose the last
   * commits on power loss. `full`: fsync on every append, for when that matters more than throughput.
   */
  durability?: SqliteDurability;
  /** How often live subscriptions look for appends made by other connections (other processes). */
  pollIntervalMs?: number;
  /**
   * The largest append taken (its events' data and metadata, UTF-8 JSON bytes), refused beyond with
   * MaxAppendSizeExceededError as EventStoreDB refuses one over its MaxAppendSize; unbounded when unset.
   */
  maxAppendBytes?: number;
  /** Told when appends start failing for the storage (a full disk, a read-only volume) and when they succeed again. */
  onStorageChange?: (failure: StorageUnavailableError | undefined) => void;
}

/** An event to append with its data and metadata as JSON text. */
interface SerializedEvent {
  id?: string;
  type: string;
  data: string;
  metadata: string;
}

/** An append waiting for the next group commit. */
interface QueuedAppend {
  streamName: string;
  events: NewEvent[];
  serialized: SerializedEvent[];
  expected: ExpectedRevision;
  shareData: boolean;
  resolve: (result: AppendResult) => void;
  reject: (error: unknown) => void;
  /** The appends of one appendMany: once one of them fails, the later ones are not written. */
  chain?: AppendChain;
  /** Refused before its turn (too large): fails when its turn comes, ending its chain there. */
  refused?: Error;
}

interface AppendChain {
  ended: boolean;
}

/** What the appends of an appendMany after its first failure are rejected with (appendMany rejects with that failure's error). */
class NotAppendedError extends Error {
  constructor(streamName: string) {
    super(`append to ${streamName}: not written, as an earlier append of the same appendMany failed`);
    this.name = 'NotAppendedError';
  }
}

/** What one append of a group commit wrote: its result and its events' row ids and data. */
interface AppendOutcome {
  result: AppendResult;
  rows: [rowId: number, text: string][];
}

const DEFAULT_BATCH_SIZE = 1000;
const DEFAULT_POLL_INTERVAL_MS = 100;
/** Appends an appendMany serializes per event-loop turn (a bulk of 1,000 large records would hold the loop). */
const SERIALIZED_PER_TURN = 50;
/** Longest stretch a subscription keeps the event loop to itself. */
const MAX_BUSY_MS = 20;
/*
 * No statement takes its LIMIT as a parameter: SQLite's planner reads a bound LIMIT, so every run
 * with it bound again re-prepares the statement (measured: 25 to 60 µs a run instead of 1 to 10, and
 * each append woke a dozen subscriptions' page reads). Limits are written into the SQL, as integers,
 * and the statements kept per limit; a stream read with maxCount stops iterating instead.
 */

const SELECT_COLUMNS = 'position, stream_name, revision, event_id, type, data, metadata, recorded_at';
/** The same columns without the data (NULL in its place): read on demand (see RECENT_DATA_ENTRIES). */
const SELECT_COLUMNS_WITHOUT_DATA = 'position, stream_name, revision, event_id, type, NULL, metadata, recorded_at';
type EventRow = [
  position: number,
  streamName: string,
  revision: number,
  eventId: string,
  type: string,
  data: string | null,
  metadata: string,
  recordedAt: number,
];
/**
 * The data (JSON text) of this many of the latest events appended by this process is kept: live
 * subscriptions read an event's data only when their handler reads it, from here when it is recent,
 * so a subscriber that does not look at the data (or several subscribers of one large event, a
 * 200-node funnel) does not read it from the file again.
 */
const RECENT_DATA_ENTRIES = 128;

/**
 * Embedded event store: one SQLite file in WAL mode. The global position is the row id, so
 * commit = prepare. Several processes may share the file (a CLI appending while the service runs):
 * appends take the write lock first, and live subscriptions poll for foreign commits.
 */
export class SqliteEventStore implements EventStore {
  private readonly db: Database.Database;
  private readonly selectLastRevision: Database.Statement<[string], number | null>;
  private readonly insertEvent: Database.Statement<[string, number, string, string, string, string, number]>;
  private readonly selectStream: Database.Statement<[string, number], EventRow>;
  private readonly selectHead: Database.Statement<[], number | null>;
  private readonly selectDataVersion: Database.Statement<[], number>;
  private readonly selectData: Database.Statement<[number], string>;
  private readonly pageStatements = new Map<string, Database.Statement<unknown[], EventRow>>();
  /** Row id to data of the latest events appended here (at most RECENT_DATA_ENTRIES). */
  private readonly recentData = new Map<number, RecentData>();
  private readonly countStatements = new Map<string, Database.Statement<unknown[], number>>();
  /** One append inside the group's transaction, under a savepoint: a failed one leaves nothing and the others go on. */
  private readonly appendOne: Database.Transaction<(append: QueuedAppend, recordedAt: number) => AppendOutcome>;
  private readonly commitGroup: Database.Transaction<(group: QueuedAppend[]) => (AppendOutcome | Error)[]>;
  /** Appends made since the last group commit, committed together at the end of this event-loop turn. */
  private queued: QueuedAppend[] = [];
  private groupCommit: NodeJS.Immediate | undefined;
  private readonly subscriptions = new Set<SqliteSubscription>();
  private readonly pollIntervalMs: number;
  private readonly maxAppendBytes: number | undefined;
  private readonly health: SqliteWriteHealth;
  private poller: NodeJS.Timeout | undefined;
  private lastDataVersion = 0;
  private closed = false;

  constructor(options: SqliteEventStoreOptions) {
    this.pollIntervalMs = options.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS;
    this.maxAppendBytes = options.maxAppendBytes;
    this.db = openPrivateSqlite(options.filename, options.durability);
    this.health = new SqliteWriteHealth(this.db, 'event log', options.filename);
    if (options.onStorageChange) this.health.onChange(options.onStorageChange);
    // Replays read the whole log: map the file and keep a larger page cache instead of a read() per page.
    this.db.pragma('mmap_size = 268435456');
    this.db.pragma('cache_size = -65536');
    this.db.exec(`
      CREATE TABLE IF NOT EXISTS events (
        position    INTEGER PRIMARY KEY AUTOINCREMENT,
        stream_name TEXT    NOT NULL,
        revision    INTEGER NOT NULL,
        event_id    TEXT    NOT NULL,
        type        TEXT    NOT NULL,
        data        TEXT    NOT NULL,
        metadata    TEXT    NOT NULL,
        recorded_at INTEGER NOT NULL,
        UNIQUE (stream_name, revision)
      )`);

    this.selectLastRevision = this.db.prepare<[string], number | null>('SELECT MAX(revision) FROM events WHERE stream_name = ?').pluck();
    this.insertEvent = this.db.prepare(
      `INSERT INTO events (stream_name, revision, event_id, type, data, metadata, recorded_at)
       VALUES (?, ?, ?, ?, ?, ?, ?)`,
    );
    this.selectStream = this.db
      .prepare<[string, number], EventRow>(`SELECT ${SELECT_COLUMNS} FROM events WHERE stream_name = ? AND revision >= ? ORDER BY revision`)
      .raw();
    this.selectHead = this.db.prepare<[], number | null>('SELECT MAX(position) FROM events').pluck();
    this.selectData = this.db.prepare<[number], string>('SELECT data FROM events WHERE position = ?').pluck();
    // Changes whenever another connection commits; costs no table access, so polling stays cheap.
    this.selectDataVersion = this.db.prepare<[], number>('PRAGMA data_version').pluck();
    this.appendOne = this.db.transaction((append: QueuedAppend, recordedAt: number) => this.appendInTransaction(append, recordedAt));
    this.commitGroup = this.db.transaction((group: QueuedAppend[]) => {
      const recordedAt = Date.now();
      return group.map((append) => {
        if (append.chain?.ended) return new NotAppendedError(append.streamName);
        try {
          if (append.refused) throw append.refused;
          return this.appendOne(append, recordedAt);
        } catch (error) {
          // A storage failure, or one that ended the transaction, fails the whole group: nothing of it is written.
          if (storageErrorOf(error, 'event log') || !this.db.inTransaction) throw error;
          if (append.chain) append.chain.ended = true;
          return toError(error);
        }
      });
    });
  }

  async append(streamName: string, events: NewEvent[], options?: AppendOptions): Promise<AppendResult> {
    const serialized = serializeAppend(streamName, events, this.maxAppendBytes);
    if (this.closed) throw new Error('SqliteEventStore is closed');
    return new Promise<AppendResult>((resolve, reject) => {
      this.queued.push({
        streamName,
        events,
        serialized,
        expected: options?.expectedRevision ?? 'any',
        shareData: options?.shareData === true,
        resolve,
        reject,
      });
      this.groupCommit ??= setImmediate(() => this.commitQueued());
    });
  }

  /**
   * The appends go into one group commit, in order, as one chain: the first that fails (its
   * expected revision, its size) ends it, those after it are not written (see EventStore.appendMany).
   * Their events are serialized SERIALIZED_PER_TURN appends per turn, then queued at once.
   */
  async appendMany(appends: readonly StreamAppend[]): Promise<AppendResult[]> {
    if (this.closed) throw new Error('SqliteEventStore is closed');
    const chain: AppendChain = { ended: false };
    const queued: QueuedAppend[] = [];
    const results: Promise<AppendResult>[] = [];
    for (const [index, { streamName, events, options }] of appends.entries()) {
      if (index > 0 && index % SERIALIZED_PER_TURN === 0) await yieldToEventLoop();
      let serialized: SerializedEvent[] = [];
      let refused: Error | undefined;
      try {
        serialized = serializeAppend(streamName, events, this.maxAppendBytes);
      } catch (error) {
        refused = toError(error);
      }
      const expected = options?.expectedRevision ?? 'any';
      const shareData = options?.shareData === true;
      results.push(new Promise((resolve, reject) => queued.push({ streamName, events, serialized, expected, shareData, resolve, reject, chain, refused })));
      if (refused) break;
    }
    if (this.closed) throw new Error('SqliteEventStore is closed');
    this.queued.push(...queued);
    if (queued.length) this.groupCommit ??= setImmediate(() => this.commitQueued());
    const settled = await Promise.allSettled(results);
    const failed = settled.find((outcome) => outcome.status === 'rejected');
    if (failed) throw failed.reason;
    return settled.map((outcome) => (outcome as PromiseFulfilledResult<AppendResult>).value);
  }

  /**
   * Group commit: the appends made during one event-loop turn (the requests of one poll of the
   * sockets) share one transaction and one WAL commit, in the order they were made. Each append
   * still checks its stream's expected revision when its turn in the transaction comes, so a lost
   * race is still a WrongExpectedRevisionError for that append alone; the others are written. The
   * subscriptions are told once per group, so a projection applies the group as one batch and
   * answers every read-your-writes wait of it at once. Each append resolves once the transaction
   * has committed; a failure of the commit itself (a full disk) rejects every append of the group,
   * none of which was written.
   */
  private commitQueued(): void {
    this.groupCommit = undefined;
    const group = this.queued;
    this.queued = [];
    if (group.length === 0) return;
    let outcomes: (AppendOutcome | Error)[];
    try {
      // IMMEDIATE takes the write lock before the revision checks, so another process cannot slip in between.
      // A full disk or read-only volume is a StorageUnavailableError (507/503), and readiness reports it.
      outcomes = this.health.write(() => this.commitGroup.immediate(group));
    } catch (error) {
      for (const append of group) append.reject(error);
      return;
    }
    group.forEach((append, index) => {
      const outcome = outcomes[index];
      if (outcome instanceof Error) return;
      outcome.rows.forEach(([rowId, text], eventIndex) => {
        // Shared data is frozen, so neither the caller nor a subscriber can change what the others see;
        // its text is not kept (the subscribers get the objects), so it dies young instead of being promoted.
        this.recentData.set(rowId, append.shareData ? { value: deepFreeze(append.events[eventIndex].data) } : { text });
      });
    });
    for (const rowId of this.recentData.keys()) {
      if (this.recentData.size <= RECENT_DATA_ENTRIES) break;
      this.recentData.delete(rowId);
    }
    if (outcomes.some((outcome) => !(outcome instanceof Error))) for (const subscription of this.subscriptions) subscription.notify();
    group.forEach((append, index) => {
      const outcome = outcomes[index];
      if (outcome instanceof Error) append.reject(outcome);
      else append.resolve(outcome.result);
    });
  }

  async readStream(streamName: string, options?: ReadStreamOptions): Promise<RecordedEvent[]> {
    const fromRevision = options?.fromRevision ?? 0;
    const maxCount = options?.maxCount;
    if (maxCount === undefined || maxCount < 0) return this.selectStream.all(streamName, fromRevision).map((row) => toRecordedEvent(row));
    const events: RecordedEvent[] = [];
    if (maxCount === 0) return events;
    for (const row of this.selectStream.iterate(streamName, fromRevision)) {
      events.push(toRecordedEvent(row));
      // Leaving the loop ends the statement's run.
      if (events.length >= maxCount) break;
    }
    return events;
  }

  subscribeToAll(options: SubscribeToAllOptions): Subscription {
    if (this.closed) throw new Error('SqliteEventStore is closed');
    const batchSize = batchSizeOf(options);
    const subscription = new SqliteSubscription(
      options,
      this.pageReader(options.streamNamePrefixes, true, batchSize),
      this.pageReader(options.streamNamePrefixes, false, batchSize),
      () => this.headRowId(),
      (finished) => this.forget(finished),
    );
    this.subscriptions.add(subscription);
    this.startPolling();
    subscription.start();
    return subscription;
  }

  async headPosition(): Promise<GlobalPosition> {
    const head = this.headRowId();
    return head > 0 ? rowIdToPosition(head) : START_POSITION;
  }

  async countEvents(options: CountEventsOptions): Promise<number> {
    const prefixes = options.streamNamePrefixes ?? [];
    const limit = Math.min(Number.MAX_SAFE_INTEGER, Math.max(0, Math.floor(options.limit) || 0));
    const key = `${limit}:${JSON.stringify(prefixes)}`;
    let statement = this.countStatements.get(key);
    if (!statement) {
      // The inner LIMIT bounds the rows scanned, however far behind the reader is.
      statement = this.db
        .prepare<unknown[], number>(`SELECT COUNT(*) FROM (SELECT 1 FROM events WHERE position > ?${prefixClause(prefixes)} LIMIT ${limit})`)
        .pluck();
      this.countStatements.set(key, statement);
    }
    const after = Math.max(0, Number(options.after.commit));
    return statement.get(after, ...prefixParams(prefixes)) ?? 0;
  }

  storageWritable(): boolean {
    return !this.closed && this.health.writable();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    // The appends already made are committed, not dropped.
    if (this.groupCommit) clearImmediate(this.groupCommit);
    this.commitQueued();
    const subscriptions = [...this.subscriptions];
    await Promise.all(subscriptions.map((subscription) => subscription.stop()));
    await Promise.all(subscriptions.map((subscription) => subscription.whenFinished()));
    this.stopPolling();
    this.db.close();
  }

  private appendInTransaction({ streamName, serialized, expected }: QueuedAppend, recordedAt: number): AppendOutcome {
    const current = this.selectLastRevision.get(streamName) ?? null;
    if (!revisionMatches(expected, current)) {
      throw new WrongExpectedRevisionError(streamName, expected, current ?? 'no_stream');
    }
    let revision = current ?? -1;
    let rowId = 0;
    const rows: AppendOutcome['rows'] = [];
    for (const event of serialized) {
      revision += 1;
      const inserted = this.insertEvent.run(streamName, revision, event.id ?? randomUUID(), event.type, event.data, event.metadata, recordedAt);
      rowId = Number(inserted.lastInsertRowid);
      rows.push([rowId, event.data]);
    }
    return { result: { nextExpectedRevision: revision, position: rowIdToPosition(rowId) }, rows };
  }

  private headRowId(): number {
    return this.selectHead.get() ?? 0;
  }

  /**
   * Reads one page of the log after a row id, filtered by stream-name prefix in SQL: with each
   * event's data (catching up: whole pages at once), or with the data read when the handler first
   * reads it (live: from the recent appends, else from the file).
   */
  private pageReader(prefixes: string[] | undefined, withData: boolean, limit: number): PageReader {
    const key = `${withData ? 'data' : 'lazy'}:${limit}:${prefixes && prefixes.length > 0 ? JSON.stringify(prefixes) : ''}`;
    let statement = this.pageStatements.get(key);
    if (!statement) {
      statement = this.db
        .prepare<unknown[], EventRow>(
          `SELECT ${withData ? SELECT_COLUMNS : SELECT_COLUMNS_WITHOUT_DATA} FROM events WHERE position > ? AND position <= ?${prefixClause(prefixes ?? [])} ORDER BY position LIMIT ${limit}`,
        )
        .raw();
      this.pageStatements.set(key, statement);
    }
    const params = prefixParams(prefixes ?? []);
    const page = statement;
    if (withData) return (after, upTo) => page.all(after, upTo, ...params).map((row) => toRecordedEvent(row));
    const dataOf = (rowId: number): Record<string, unknown> => {
      const recent = this.recentData.get(rowId);
      return recent?.value ?? (JSON.parse(recent?.text ?? this.selectData.get(rowId) ?? '{}') as Record<string, unknown>);
    };
    return (after, upTo) => page.all(after, upTo, ...params).map((row) => toRecordedEvent(row, dataOf));
  }

  private forget(subscription: SqliteSubscription): void {
    this.subscriptions.delete(subscription);
    if (this.subscriptions.size === 0) this.stopPolling();
  }

  private startPolling(): void {
    if (this.poller || this.pollIntervalMs <= 0) return;
    this.lastDataVersion = this.selectDataVersion.get() ?? 0;
    this.poller = setInterval(() => this.pollForForeignAppends(), this.pollIntervalMs);
    // A subscription alone must not keep a CLI or a test run alive.
    this.poller.unref();
  }

  private stopPolling(): void {
    if (this.poller) clearInterval(this.poller);
    this.poller = undefined;
  }

  private pollForForeignAppends(): void {
    if (this.closed) return;
    const version = this.selectDataVersion.get() ?? 0;
    if (version === this.lastDataVersion) return;
    this.lastDataVersion = version;
    for (const subscription of this.subscriptions) subscription.notify();
  }
}

/** A recent append's data: the caller's frozen objects when it shared them (AppendOptions.shareData), else its stored text. */
type RecentData = { text: string; value?: undefined } | { text?: undefined; value: Record<string, unknown> };

/** Freezes a JSON value and everything in it; answers it. */
function deepFreeze<T>(value: T): T {
  if (typeof value !== 'object' || value === null) return value;
  // Children first, so that a frozen object is one whose every part is frozen already. No key list is made per object.
  if (Array.isArray(value)) for (let i = 0; i < value.length; i++) deepFreeze(value[i]);
  else for (const key in value) if (Object.hasOwn(value, key)) deepFreeze((value as Record<string, unknown>)[key]);
  return Object.freeze(value);
}

/** Reads the next page (at most the subscription's batch size) after a row id, up to another. */
type PageReader = (afterRowId: number, upToRowId: number) => RecordedEvent[];

class SqliteSubscription extends LogSubscription {
  /** Set by notify(); an append that lands while a page is being delivered must not be slept through. */
  private pendingNotification = false;
  private lastRowId: number;
  private lastYieldAt = performance.now();
  private readonly batchSize: number;

  constructor(
    options: SubscribeToAllOptions,
    private readonly readCatchUpPage: PageReader,
    private readonly readLivePage: PageReader,
    private readonly headRowId: () => number,
    onFinished: (subscription: SqliteSubscription) => void,
  ) {
    super(options, (subscription) => onFinished(subscription as SqliteSubscription));
    this.lastRowId = options.from ? Math.max(0, Number(options.from.commit)) : 0;
    this.batchSize = batchSizeOf(options);
  }

  /** New events may exist: wake the live loop if it is waiting. */
  notify(): void {
    this.pendingNotification = true;
    this.wake();
  }

  protected async follow(): Promise<void> {
    // Let subscribeToAll return first: a handler may refer to the subscription it belongs to.
    await Promise.resolve();
    // Catch up to the head as it was at the start; later appends belong to the live phase.
    const headAtStart = this.headRowId();
    while (!this.stopped && this.lastRowId < headAtStart) {
      if (!(await this.deliverPage(headAtStart, this.readCatchUpPage))) break;
    }
    if (this.stopped) return;
    this.markCaughtUp();

    while (!this.stopped) {
      this.pendingNotification = false;
      if (await this.deliverPage(this.headRowId(), this.readLivePage)) continue;
      if (this.pendingNotification) continue;
      // Nothing new: sleep until an append in this process or the poller wakes us.
      await this.waitForWake();
    }
  }

  /**
   * Delivers the next page up to `upTo` and returns whether the log may hold more. When the page is
   * not full, every row up to `upTo` has been looked at, so the cursor moves there even past rows
   * the prefix filter left out: a filtered subscription must not rescan them after every append.
   */
  private async deliverPage(upTo: number, readPage: PageReader): Promise<boolean> {
    if (this.lastRowId >= upTo) return false;
    const batch = readPage(this.lastRowId, upTo);
    if (batch.length > 0) await this.deliverAndYield(batch);
    if (batch.length < this.batchSize) {
      this.lastRowId = Math.max(this.lastRowId, upTo);
      return false;
    }
    return true;
  }

  private async deliverAndYield(batch: RecordedEvent[]): Promise<void> {
    await this.deliver(batch);
    this.lastRowId = Number(batch[batch.length - 1].position.commit);
    // Reads are synchronous: without this a long replay would starve timers and I/O of the whole process.
    if (performance.now() - this.lastYieldAt > MAX_BUSY_MS) {
      await yieldToEventLoop();
      this.lastYieldAt = performance.now();
    }
  }
}

/** An append's events as JSON text, refused (nothing appended) when there are none or they exceed `maxAppendBytes`. */
function serializeAppend(streamName: string, events: readonly NewEvent[], maxAppendBytes: number | undefined): SerializedEvent[] {
  if (events.length === 0) throw new Error(`append to ${streamName}: no events given`);
  const serialized = events.map((event) => ({
    id: event.id,
    type: event.type,
    data: JSON.stringify(event.data),
    metadata: JSON.stringify(event.metadata ?? {}),
  }));
  if (maxAppendBytes !== undefined) {
    const size = serialized.reduce((sum, event) => sum + Buffer.byteLength(event.data) + Buffer.byteLength(event.metadata), 0);
    if (size > maxAppendBytes) throw new MaxAppendSizeExceededError(streamName, size, maxAppendBytes);
  }
  return serialized;
}

/** A subscription's page size, an integer (it is written into the SQL). */
function batchSizeOf(options: SubscribeToAllOptions): number {
  const size = Math.floor(options.batchSize ?? DEFAULT_BATCH_SIZE);
  return Number.isFinite(size) ? Math.max(1, size) : DEFAULT_BATCH_SIZE;
}

/** `AND (...)` selecting the streams of the given prefixes; substr() counts characters, so it gets the code-point length. */
function prefixClause(prefixes: string[]): string {
  return prefixes.length ? ` AND (${prefixes.map(() => 'substr(stream_name, 1, ?) = ?').join(' OR ')})` : '';
}

function prefixParams(prefixes: string[]): (string | number)[] {
  return prefixes.flatMap((prefix) => [[...prefix].length, prefix]);
}

function revisionMatches(expected: ExpectedRevision, current: number | null): boolean {
  switch (expected) {
    case 'any':
      return true;
    case 'no_stream':
      return current === null;
    case 'stream_exists':
      return current !== null;
    default:
      return current === expected;
  }
}

function rowIdToPosition(rowId: number): GlobalPosition {
  const position = BigInt(rowId);
  return { commit: position, prepare: position };
}

/**
 * An event of a row. Its data is parsed when first read: a subscriber that looks only at the type of
 * the events it is given (a process manager waiting for deletes) does not pay for parsing records.
 */
function toRecordedEvent(row: EventRow, dataOf?: (rowId: number) => Record<string, unknown>): RecordedEvent {
  const metadata = row[6];
  const text = row[5];
  const rowId = row[0];
  let data: Record<string, unknown> | undefined;
  return {
    id: row[3],
    streamName: row[1],
    type: row[4],
    revision: row[2],
    position: rowIdToPosition(row[0]),
    get data(): Record<string, unknown> {
      return (data ??= text !== null ? (JSON.parse(text) as Record<string, unknown>) : (dataOf?.(rowId) ?? {}));
    },
    set data(value: Record<string, unknown>) {
      data = value;
    },
    // Most events carry metadata, but skipping the parse for the empty case is free.
    metadata: metadata === '{}' ? {} : JSON.parse(metadata),
    recordedAt: new Date(row[7]),
  };
}
