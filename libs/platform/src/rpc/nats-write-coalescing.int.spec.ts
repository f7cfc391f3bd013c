import { type NatsConnection, connect } from 'nats';
import { RunningNatsServer, startNatsServer } from '@funnel/testing';
import { coalesceWritesPerLoopTurn } from './nats-write-coalescing';

/** Counts the socket writes of a connection (nats.js v2 internals, as the coalescing itself uses). */
function countWrites(nc: NatsConnection): () => number {
  const transport = (nc as unknown as { protocol: { transport: { send(frame: Uint8Array): void } } }).protocol.transport;
  const send = transport.send.bind(transport);
  let writes = 0;
  transport.send = (frame) => {
    writes++;
    send(frame);
  };
  return () => writes;
}

describe('coalesceWritesPerLoopTurn (against a real nats-server)', () => {
  let nats: RunningNatsServer;
  beforeAll(async () => {
    nats = await startNatsServer();
  });
  afterAll(async () => {
    await nats?.stop();
  });

  it('sends what one loop turn publishes in one write, delivered in order; closing flushes first', async () => {
    const subscriber = await connect({ servers: nats.url });
    const received: string[] = [];
    subscriber.subscribe('coalesce.test', { callback: (_error, message) => received.push(new TextDecoder().decode(message.data)) });
    await subscriber.flush();

    const publisher = await connect({ servers: nats.url });
    // If nats.js changes its internals this returns false: the guard that keeps the optimisation from silently vanishing.
    expect(coalesceWritesPerLoopTurn(publisher)).toBe(true);
    const writes = countWrites(publisher);
    // Three callbacks of one turn, as three HTTP requests would be.
    await new Promise<void>((resolve) => {
      let pending = 3;
      for (let callback = 0; callback < 3; callback++) {
        setImmediate(() => {
          for (let i = 0; i < 10; i++) publisher.publish('coalesce.test', new TextEncoder().encode(`${callback}-${i}`));
          if (--pending === 0) setImmediate(resolve);
        });
      }
    });
    expect(writes()).toBe(1);
    publisher.publish('coalesce.test', new TextEncoder().encode('last'));
    await publisher.close();
    await subscriber.flush();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(received).toEqual([...[0, 1, 2].flatMap((c) => Array.from({ length: 10 }, (_, i) => `${c}-${i}`)), 'last']);
    await subscriber.close();
  });
});
