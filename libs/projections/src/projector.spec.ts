import { Logger } from '@nestjs/common';
import { type EventStore, type RecordedEvent, SqliteEventStore } from '@funnel/eventstore';
import { EmbeddedReadStore, type ReadStore } from '@funnel/readstore';
import { Projector } from './projector';

/** Counts the events of each `tag-` stream; records the order of index creation and folds. */
class TagCounts extends Projector {
  readonly steps: string[] = [];
  failWith?: Error;
  private readonly counts = this.readStore.collection<{ _id: string; count: number }>('tag_counts');

  constructor(
    eventStore: EventStore,
    private readonly readStore: ReadStore,
  ) {
    super({ name: 'tag-counts', description: 'tag counts projection', eventStore, readStore, streamNamePrefixes: ['tag-'] });
  }

  count(tag: string): Promise<number | undefined> {
    return this.counts.findOne({ _id: tag }).then((doc) => doc?.count);
  }

  protected override async createIndexes(): Promise<void> {
    this.steps.push('indexes');
    await this.counts.createIndex({ count: 1 });
  }

  protected override async project(events: RecordedEvent[]): Promise<void> {
    if (this.failWith) throw this.failWith;
    for (const e of events) {
      this.steps.push(`project ${e.streamName}`);
      const _id = e.streamName.slice('tag-'.length);
      const count = ((await this.counts.findOne({ _id }))?.count ?? 0) + 1;
      await this.counts.bulkWrite([{ replaceOne: { filter: { _id }, replacement: { _id, count }, upsert: true } }]);
    }
  }
}

describe('Projector', () => {
  let eventStore: SqliteEventStore;
  let projector: TagCounts;

  beforeEach(() => {
    eventStore = new SqliteEventStore({ filename: ':memory:' });
    projector = new TagCounts(eventStore, new EmbeddedReadStore());
  });

  afterEach(async () => {
    jest.restoreAllMocks();
    await projector.onApplicationShutdown();
    await eventStore.close();
  });

  it('creates its indexes, then catches up with the log, then reflects what is appended for waitFor', async () => {
    await eventStore.append('tag-a', [{ type: 'Tagged', data: {} }]);
    expect(projector.ready).toBe(false);
    await projector.start();
    expect(projector.ready).toBe(true);
    expect(projector.steps).toEqual(['indexes', 'project tag-a']);

    const { position } = await eventStore.append('tag-a', [{ type: 'Tagged', data: {} }]);
    await expect(projector.waitFor(position)).resolves.toBe(true);
    await expect(projector.count('a')).resolves.toBe(2);
  });

  it('a fold that throws stops it: no longer ready, and the error is logged under its description', async () => {
    const logged = new Promise<unknown>((resolve) => jest.spyOn(Logger.prototype, 'error').mockImplementation((message) => resolve(message)));
    await projector.start();
    projector.failWith = new Error('disk full');
    await eventStore.append('tag-b', [{ type: 'Tagged', data: {} }]);
    await expect(logged).resolves.toBe('tag counts projection stopped: disk full');
    expect(projector.ready).toBe(false);
  });
});
