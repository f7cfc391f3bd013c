import { Controller, Inject, type INestMicroservice } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { Test } from '@nestjs/testing';
import { lastValueFrom } from 'rxjs';
import type { RpcRequest } from '@funnel/contracts';
import { type RunningNatsServer, eventually, startNatsServer } from '@funnel/testing';
import { InProcessBus } from '../in-process/in-process-bus';
import { InProcessClient } from '../in-process/in-process-client';
import { InProcessServer } from '../in-process/in-process-server';
import { InProcessServiceClient } from '../in-process/in-process-service-client';
import { captureLogs } from '../logging/log-capture';
import { PinoNestLogger } from '../logging/nest-logger';
import { EVENT_PUBLISHER, type EventPublisher } from './event-publisher';
import { LeanServerNats } from './lean-server-nats';
import { natsServerOptions } from './nats-options';
import { NatsServiceClient } from './nats-service-client';
import { ProxyServiceClient, type ServiceClient } from './service-client';

/**
 * Service events (EventPublisher -> ServiceClient.subscribe): a handler that publishes before it
 * answers is seen by the subscriber by the time the caller has the answer, over NATS and in process.
 */
const REVOKE = 'demo.keys.revoke';
const REVOKED = 'demo.events.revoked';

@Controller()
class RevokingController {
  constructor(@Inject(EVENT_PUBLISHER) private readonly events: EventPublisher) {}

  @MessagePattern(REVOKE)
  revoke(@Payload() request: RpcRequest<{ keyIds: string[] }>) {
    this.events.publish(REVOKED, { keyIds: request.body.keyIds });
    return { revoked: request.body.keyIds.length };
  }
}

const revokeRequest = (keyIds: string[]): RpcRequest<{ keyIds: string[] }> => ({
  context: { accountId: 'A', userId: 'U', permissions: [], correlationId: 'c' },
  body: { keyIds },
});

async function startRevokingService(strategy: LeanServerNats | InProcessServer, events: EventPublisher): Promise<INestMicroservice> {
  const moduleRef = await Test.createTestingModule({
    controllers: [RevokingController],
    providers: [{ provide: EVENT_PUBLISHER, useValue: events }],
  }).compile();
  const app = moduleRef.createNestMicroservice({ strategy, logger: new PinoNestLogger(captureLogs('revoking').logger) });
  await app.listen();
  return app;
}

/** Sends a revoke and reports what the subscriber had seen when the answer arrived. */
async function revokeAndObserve(client: ServiceClient, seen: unknown[], keyIds: string[]) {
  const reply = await client.request<{ revoked: number }>(REVOKE, revokeRequest(keyIds));
  return { reply, seenAtReply: [...seen] };
}

describe('service events in process', () => {
  it('reach subscribers before the reply; unsubscribing stops them; a failing subscriber harms no one', async () => {
    const bus = new InProcessBus();
    const service = await startRevokingService(new InProcessServer(bus), bus);
    const client = new InProcessServiceClient(bus, { logger: captureLogs().logger });
    const seen: unknown[] = [];
    const unsubscribeFailing = client.subscribe(REVOKED, () => {
      throw new Error('subscriber bug');
    });
    const unsubscribe = client.subscribe(REVOKED, (data) => seen.push(data));
    try {
      await expect(revokeAndObserve(client, seen, ['K1'])).resolves.toEqual({ reply: { revoked: 1 }, seenAtReply: [{ keyIds: ['K1'] }] });
      // A Nest ClientProxy's emit goes through the same bus.
      await lastValueFrom(new InProcessClient(bus).emit(REVOKED, { keyIds: ['K2'] }), { defaultValue: undefined });
      expect(seen).toEqual([{ keyIds: ['K1'] }, { keyIds: ['K2'] }]);
      unsubscribe();
      unsubscribeFailing();
      await client.request(REVOKE, revokeRequest(['K3']));
      expect(seen).toHaveLength(2);
    } finally {
      await service.close();
    }
  });

  it('copy what they deliver, as the wire would', () => {
    const bus = new InProcessBus();
    const received: unknown[] = [];
    bus.subscribe(REVOKED, (data) => received.push(data));
    const event = { keyIds: ['K1'], at: new Date(0) };
    bus.publish(REVOKED, event);
    expect(received).toEqual([{ keyIds: ['K1'], at: '1970-01-01T00:00:00.000Z' }]);
    expect(received[0]).not.toBe(event);
  });
});

describe('service events over NATS (LeanServerNats publishes, NatsServiceClient subscribes)', () => {
  let nats: RunningNatsServer;
  beforeAll(async () => {
    nats = await startNatsServer();
  });
  afterAll(async () => {
    await nats?.stop();
  });

  it('an event published before the reply is seen when the reply arrives, and after NATS restarts', async () => {
    const server = new LeanServerNats(natsServerOptions(nats.url, 'revoking', { gracePeriod: 50 }).options);
    const service = await startRevokingService(server, server);
    const client = new NatsServiceClient(nats.url, { timeoutMs: 2000, logger: captureLogs().logger });
    const seen: unknown[] = [];
    const unsubscribe = client.subscribe(REVOKED, (data) => seen.push(data));
    try {
      await expect(revokeAndObserve(client, seen, ['K1'])).resolves.toEqual({ reply: { revoked: 1 }, seenAtReply: [{ keyIds: ['K1'] }] });
      for (let i = 2; i <= 20; i++) {
        const { seenAtReply } = await revokeAndObserve(client, seen, [`K${i}`]);
        expect(seenAtReply[seenAtReply.length - 1]).toEqual({ keyIds: [`K${i}`] });
      }

      await nats.restart();
      // Both sides reconnect by themselves, and the subscription comes back with the client's.
      await eventually(async () => {
        const { seenAtReply } = await revokeAndObserve(client, seen, ['after']);
        expect(seenAtReply[seenAtReply.length - 1]).toEqual({ keyIds: ['after'] });
      }, 15_000);

      unsubscribe();
      const count = seen.length;
      await client.request(REVOKE, revokeRequest(['unheard']));
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(seen).toHaveLength(count);
    } finally {
      await client.close();
      await service.close();
    }
  });

  it('a subscriber that subscribes before the first request still hears events, and publishing without a connection is a no-op', async () => {
    const server = new LeanServerNats(natsServerOptions(nats.url, 'revoking', { gracePeriod: 50 }).options);
    expect(() => server.publish(REVOKED, { keyIds: [] })).not.toThrow();
    const service = await startRevokingService(server, server);
    const client = new NatsServiceClient(nats.url, { timeoutMs: 2000, logger: captureLogs().logger });
    const seen: unknown[] = [];
    client.subscribe(REVOKED, (data) => seen.push(data));
    try {
      // Subscribing connects: wait for it, then an event published without any request arrives.
      await eventually(async () => expect(client.connected).toBe(true), 5000);
      await client.request(REVOKE, revokeRequest(['first']));
      server.publish(REVOKED, { keyIds: ['spontaneous'] });
      await eventually(async () => expect(seen).toContainEqual({ keyIds: ['spontaneous'] }), 2000);
    } finally {
      await client.close();
      await service.close();
    }
  });
});

describe('ProxyServiceClient', () => {
  it('cannot subscribe: it receives nothing and does not fail', () => {
    const client = new ProxyServiceClient(new InProcessClient(new InProcessBus()), { logger: captureLogs().logger });
    const unsubscribe = client.subscribe(REVOKED, () => {
      throw new Error('never called');
    });
    expect(() => unsubscribe()).not.toThrow();
  });
});
