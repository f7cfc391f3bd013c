import { type RecordedEvent, SqliteEventStore } from '@funnel/eventstore';
import { EmbeddedReadStore } from '@funnel/readstore';
import { Registry } from 'prom-client';
import { registerProjectionLagMetric } from './projection-lag';
import { ProjectionRunner } from './projection-runner';

describe('projection_lag_events', () => {
  let eventStore: SqliteEventStore;
  let registry: Registry;
  let gate: Promise<void>;
  let open: () => void;
  const applied: RecordedEvent[] = [];
  let runner: ProjectionRunner;

  const lagLines = async () => (await registry.metrics()).split('\n').filter((line) => line.startsWith('projection_lag_events{'));

  beforeEach(async () => {
    eventStore = new SqliteEventStore({ filename: ':memory:' });
    registry = new Registry();
    registerProjectionLagMetric(registry, eventStore);
    gate = new Promise((resolve) => (open = resolve));
    applied.length = 0;
    runner = new ProjectionRunner({
      name: 'tags',
      eventStore,
      readStore: new EmbeddedReadStore(),
      streamNamePrefixes: ['tag-'],
      apply: async (events) => {
        await gate;
        applied.push(...events);
      },
    });
    await runner.start();
  });

  afterEach(async () => {
    open();
    await runner.stop();
    await eventStore.close();
  });

  it('shows the events of its streams a projection has not applied yet, then 0 once it has', async () => {
    expect(await lagLines()).toEqual(['projection_lag_events{projection="tags"} 0']);
    await eventStore.append('tag-1', [
      { type: 'A', data: {} },
      { type: 'B', data: {} },
    ]);
    await eventStore.append('user-1', [{ type: 'Other', data: {} }]);
    const last = await eventStore.append('tag-2', [{ type: 'C', data: {} }]);

    expect(await lagLines()).toEqual(['projection_lag_events{projection="tags"} 3']);

    open();
    expect(await runner.waitFor(last.position)).toBe(true);
    expect(applied).toHaveLength(3);
    expect(await lagLines()).toEqual(['projection_lag_events{projection="tags"} 0']);
  });

  it('drops a projection once it is stopped', async () => {
    await runner.stop();
    expect(await lagLines()).toEqual([]);
  });
});
