import { EventStore, GlobalPosition, RecordedEvent, START_POSITION, Subscription, comparePositions } from '@funnel/eventstore';
import { ReadStore } from '@funnel/readstore';

interface Waiter {
  position: GlobalPosition;
  resolve: (reached: boolean) => void;
  timer: NodeJS.Timeout;
}

/** How far projection lag is counted: more than this many events behind shows as this many. */
export const PROJECTION_LAG_LIMIT = 10_000;

/** The runners started on each event store, for the lag metric of the app that owns the store. */
const runnersByStore = new WeakMap<EventStore, Set<ProjectionRunner>>();

/** The projections currently running on `eventStore` (started and not stopped). */
export function runningProjections(eventStore: EventStore): ProjectionRunner[] {
  return [...(runnersByStore.get(eventStore) ?? [])];
}

export interface ProjectionRunnerOptions {
  /** Checkpoint name in the read store. */
  name: string;
  eventStore: EventStore;
  readStore: ReadStore;
  streamNamePrefixes: string[];
  /** Applies a batch of events to read models; must be idempotent (replays happen). */
  apply: (events: RecordedEvent[]) => Promise<void>;
  onError?: (error: Error) => void;
  onLagging?: (position: GlobalPosition, timeoutMs: number) => void;
}

/**
 * Runs one projection: subscribes to the log from its checkpoint, applies batches, advances the
 * checkpoint (compare-and-set), and lets command handlers wait until a position is reflected
 * (read-your-writes).
 */
export class ProjectionRunner {
  private subscription?: Subscription;
  private position: GlobalPosition = START_POSITION;
  private waiters: Waiter[] = [];
  private caughtUp = false;
  private failure?: Error;

  constructor(private readonly options: ProjectionRunnerOptions) {}

  get name(): string {
    return this.options.name;
  }

  /** Events of its streams appended after what it reflects (at most `limit`). */
  lag(limit: number = PROJECTION_LAG_LIMIT): Promise<number> {
    return this.options.eventStore.countEvents({ after: this.position, streamNamePrefixes: this.options.streamNamePrefixes, limit });
  }

  /** Starts from the stored checkpoint; resolves once caught up with the log. */
  async start(): Promise<void> {
    const { name, eventStore, readStore, streamNamePrefixes } = this.options;
    this.position = (await readStore.checkpoints.get(name)) ?? START_POSITION;
    let running = runnersByStore.get(eventStore);
    if (!running) runnersByStore.set(eventStore, (running = new Set()));
    running.add(this);
    this.subscription = eventStore.subscribeToAll({
      from: this.position,
      streamNamePrefixes,
      onEvents: async (events) => {
        if (!events.length) return;
        await this.options.apply(events);
        const last = events[events.length - 1].position;
        await readStore.checkpoints.advance(name, last);
        this.advanceTo(last);
      },
      onError: (error) => {
        this.failure = error;
        this.options.onError?.(error);
      },
    });
    await this.subscription.caughtUp;
    this.caughtUp = true;
  }

  get ready(): boolean {
    return this.caughtUp && !this.failure;
  }

  /** Resolves true once the projection reflects `position`, false after `timeoutMs`. */
  waitFor(position: GlobalPosition, timeoutMs = 5000): Promise<boolean> {
    if (comparePositions(this.position, position) >= 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const waiter: Waiter = {
        position,
        resolve,
        timer: setTimeout(() => {
          this.waiters = this.waiters.filter((w) => w !== waiter);
          this.options.onLagging?.(position, timeoutMs);
          resolve(false);
        }, timeoutMs),
      };
      this.waiters.push(waiter);
    });
  }

  private advanceTo(position: GlobalPosition): void {
    this.position = position;
    if (!this.waiters.length) return;
    const pending: Waiter[] = [];
    for (const w of this.waiters) {
      if (comparePositions(position, w.position) >= 0) {
        clearTimeout(w.timer);
        w.resolve(true);
      } else pending.push(w);
    }
    this.waiters = pending;
  }

  async stop(): Promise<void> {
    runnersByStore.get(this.options.eventStore)?.delete(this);
    await this.subscription?.stop();
    for (const w of this.waiters) {
      clearTimeout(w.timer);
      w.resolve(false);
    }
    this.waiters = [];
  }
}
