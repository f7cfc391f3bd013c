import { Logger, OnApplicationShutdown } from '@nestjs/common';
import { EventStore, GlobalPosition, RecordedEvent, positionToString } from '@funnel/eventstore';
import { ReadStore } from '@funnel/readstore';
import { ProjectionRunner } from './projection-runner';

export interface ProjectorOptions {
  /** Checkpoint name in the read store (and the `projection` label of projection_lag_events). */
  name: string;
  eventStore: EventStore;
  readStore: ReadStore;
  streamNamePrefixes: string[];
  /** What the error log calls the projection: `<description> stopped: <error message>`. */
  description: string;
  /** Log a warning when a `waitFor` gives up before the projection reached the position. */
  warnWhenLagging?: boolean;
}

/**
 * A projection as a Nest provider: owns its ProjectionRunner, creates the read model's indexes
 * before starting it, answers `ready` and `waitFor` (read-your-writes), and stops it on application
 * shutdown. A subclass folds each batch into its documents in `project` (idempotently: replays
 * happen), creates its indexes in `createIndexes`, and decides who calls `start`.
 */
export abstract class Projector implements OnApplicationShutdown {
  protected readonly logger = new Logger(this.constructor.name);
  private readonly runner: ProjectionRunner;

  protected constructor({ description, warnWhenLagging, ...options }: ProjectorOptions) {
    this.runner = new ProjectionRunner({
      ...options,
      apply: (events) => this.project(events),
      onError: (error) => this.logger.error(`${description} stopped: ${error.message}`),
      onLagging: warnWhenLagging
        ? (position, timeoutMs) => this.logger.warn(`read model did not reach ${positionToString(position)} within ${timeoutMs} ms`)
        : undefined,
    });
  }

  /** Creates the indexes, then starts from the stored checkpoint; resolves once caught up with the log. */
  async start(): Promise<void> {
    await this.createIndexes();
    await this.runner.start();
  }

  /** Caught up and not stopped by an error. */
  get ready(): boolean {
    return this.runner.ready;
  }

  /** Resolves true once the read model reflects `position`, false after `timeoutMs` (the runner's default when absent). */
  waitFor(position: GlobalPosition, timeoutMs?: number): Promise<boolean> {
    return this.runner.waitFor(position, timeoutMs);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.runner.stop();
  }

  /** The read model's indexes (idempotent); none by default. */
  protected createIndexes(): Promise<void> {
    return Promise.resolve();
  }

  /** Applies a batch of events to the read model. */
  protected abstract project(events: RecordedEvent[]): Promise<void>;
}
