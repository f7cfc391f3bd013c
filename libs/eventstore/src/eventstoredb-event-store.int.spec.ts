import { whyDockerIsUnavailable } from '@funnel/testing';
import type { StartedTestContainer } from 'testcontainers';
import { describeEventStoreContract } from './event-store.contract';
import { EventStoreDbEventStore } from './eventstoredb-event-store';
import { MaxAppendSizeExceededError } from './event-store.port';

/**
 * Runs the contract against a real EventStoreDB: the one at EVENTSTORE_URL, else a throwaway container
 * when a Docker engine answers. Without either it registers a single todo and says why on stdout, so a
 * run without EventStoreDB is visibly "not run" rather than quietly green.
 */
const IMAGE = 'eventstore/eventstore:24.10';
const configuredUrl = process.env['EVENTSTORE_URL'] || undefined;
const dockerUnavailable = configuredUrl ? undefined : whyDockerIsUnavailable();

if (dockerUnavailable !== undefined) {
  const reason = `EVENTSTORE_URL is not set and no Docker engine answers (${dockerUnavailable})`;
  process.stdout.write(`EventStoreDB contract suite not run: ${reason}\n`);
  describe('EventStoreDbEventStore', () => {
    test.todo(`EventStoreDB contract suite: not run (${reason})`);
  });
} else {
  describe('EventStoreDbEventStore', () => {
    let connectionString = configuredUrl ?? '';
    let container: StartedTestContainer | undefined;

    beforeAll(async () => {
      if (configuredUrl) return;
      const { GenericContainer, Wait } = await import('testcontainers');
      container = await new GenericContainer(IMAGE)
        .withEnvironment({
          EVENTSTORE_INSECURE: 'true',
          EVENTSTORE_RUN_PROJECTIONS: 'None',
          EVENTSTORE_MEM_DB: 'true',
        })
        .withExposedPorts(2113)
        .withWaitStrategy(Wait.forHttp('/health/live', 2113).forStatusCodeMatching((status) => status >= 200 && status < 300))
        .withStartupTimeout(120_000)
        .start();
      connectionString = `esdb://${container.getHost()}:${container.getMappedPort(2113)}?tls=false`;
    }, 180_000);

    afterAll(async () => {
      await container?.stop();
    });

    describeEventStoreContract('EventStoreDB', async () => {
      const store = new EventStoreDbEventStore(connectionString);
      return { store, cleanup: () => store.close() };
    });

    it("refuses an append over the server's MaxAppendSize (1 MiB by default) with MaxAppendSizeExceededError, appending nothing", async () => {
      const store = new EventStoreDbEventStore(connectionString);
      try {
        const stream = `large-${Date.now()}`;
        const refused = store.append(stream, [{ type: 'Large', data: { text: 'x'.repeat(1024 * 1024) } }], { expectedRevision: 'no_stream' });
        await expect(refused).rejects.toBeInstanceOf(MaxAppendSizeExceededError);
        await expect(refused).rejects.toMatchObject({ streamName: stream, maxAppendSize: 1024 * 1024 });
        expect(await store.readStream(stream)).toEqual([]);
      } finally {
        await store.close();
      }
    });
  });
}
