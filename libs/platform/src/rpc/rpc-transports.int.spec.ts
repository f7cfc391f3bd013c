import { type RpcRequest, ServiceError } from '@funnel/contracts';
import { type RunningNatsServer, eventually, freePort, startNatsServer } from '@funnel/testing';
import { type CapturedLogs, captureLogs } from '../logging/log-capture';
import { Controller, Inject, type INestMicroservice } from '@nestjs/common';
import { ClientNats, EventPattern, MessagePattern, type MicroserviceOptions, Payload } from '@nestjs/microservices';
import { Test } from '@nestjs/testing';
import type { NatsConnection } from 'nats';
import { of } from 'rxjs';
import { InProcessBus } from '../in-process/in-process-bus';
import { InProcessClient } from '../in-process/in-process-client';
import { InProcessServer } from '../in-process/in-process-server';
import { PinoNestLogger } from '../logging/nest-logger';
import { createMetricsRegistry, type Registry, RpcMetrics, RpcMetricsInterceptor } from '../ops/metrics';
import { readinessReport, transportReadinessCheck } from '../ops/readiness';
import { natsClientOptions, natsServerOptions } from './nats-options';
import { RpcErrorFilter } from './rpc-error.filter';
import { ProxyServiceClient, type ServiceClient } from './service-client';
import { NatsServiceClient } from './nats-service-client';
import { LeanServerNats } from './lean-server-nats';
import type { Logger } from 'pino';

/**
 * A demo service for the transport tests: one message pattern whose `mode` picks the behaviour
 * (reply, typed error, crash, hang...), and one event pattern.
 */
const DEMO_SUBJECT = 'demo.echo.run';
const DEMO_EVENT = 'demo.events.pinged';

type DemoMode = 'echo' | 'promise' | 'observable' | 'not-found' | 'crash' | 'hang' | 'mutate' | 'date' | 'stored' | 'cycle';
interface DemoBody {
  mode: DemoMode;
  text?: string;
  items?: string[];
}

const CRASH_MESSAGE = 'db password=hunter2 rejected';

/** What one running instance did, for assertions. */
class DemoInstance {
  readonly handled: string[] = [];
  readonly events: unknown[] = [];
  readonly stored = { items: ['original'] };
  constructor(readonly name: string) {}
}

@Controller()
class DemoController {
  constructor(@Inject(DemoInstance) private readonly instance: DemoInstance) {}

  @MessagePattern(DEMO_SUBJECT)
  run(@Payload() request: RpcRequest<DemoBody>) {
    const { body } = request;
    this.instance.handled.push(body.text ?? '');
    switch (body.mode) {
      case 'echo':
        return { instance: this.instance.name, text: body.text, context: request.context };
      case 'promise':
        return new Promise((resolve) => setTimeout(() => resolve({ text: body.text, via: 'promise' }), 5));
      case 'observable':
        return of({ text: body.text, via: 'observable' });
      case 'not-found':
        throw new ServiceError(404, 'DEMO.NOT_FOUND', 'no such demo', [{ field: 'id', code: 'exists', message: String(body.text) }]);
      case 'crash':
        throw new Error(CRASH_MESSAGE);
      case 'hang':
        return new Promise(() => undefined);
      case 'mutate':
        // A handler that scribbles on its input must not change the caller's object.
        body.items?.push('added by handler');
        return { items: body.items };
      case 'date':
        return { at: new Date('2024-01-02T03:04:05.000Z'), missing: undefined };
      case 'stored':
        // Returns internal state: the caller must get a copy, not the object itself.
        return this.instance.stored;
      case 'cycle': {
        const node: Record<string, unknown> = {};
        node['self'] = node;
        return node;
      }
    }
  }

  @EventPattern(DEMO_EVENT)
  pinged(@Payload() data: unknown) {
    this.instance.events.push(data);
  }
}

interface RunningDemoService {
  app: INestMicroservice;
  instance: DemoInstance;
  logs: CapturedLogs;
  registry: Registry;
  close(): Promise<void>;
}

async function startDemoService(name: string, transport: MicroserviceOptions): Promise<RunningDemoService> {
  const instance = new DemoInstance(name);
  const logs = captureLogs(name);
  const registry = createMetricsRegistry({ defaultMetrics: false });
  const moduleRef = await Test.createTestingModule({
    controllers: [DemoController],
    providers: [{ provide: DemoInstance, useValue: instance }],
  }).compile();
  const app = moduleRef.createNestMicroservice<MicroserviceOptions>({ ...transport, logger: new PinoNestLogger(logs.logger) });
  app.useGlobalFilters(new RpcErrorFilter(logs.logger));
  app.useGlobalInterceptors(new RpcMetricsInterceptor(new RpcMetrics(registry, 'server')));
  await app.listen();
  return { app, instance, logs, registry, close: () => app.close() };
}

const demoRequest = (body: DemoBody): RpcRequest<DemoBody> => ({
  context: { accountId: 'acc-1', userId: 'usr-1', permissions: ['assets:read'], correlationId: 'gw-corr-1' },
  body,
});

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

async function failureOf(promise: Promise<unknown>): Promise<ServiceError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ServiceError) return error;
    throw new Error(`expected a ServiceError, got ${String(error)}`);
  }
  throw new Error('expected the request to fail');
}

async function timed<T>(work: Promise<T>): Promise<{ result: T; ms: number }> {
  const startedAt = Date.now();
  const result = await work;
  return { result, ms: Date.now() - startedAt };
}

/** Makes sure NATS has processed the service's subscriptions before a test publishes. */
async function flushSubscriptions(service: RunningDemoService): Promise<void> {
  await service.app.unwrap<NatsConnection>().flush();
}

// NATS apps wait 2 s after unsubscribing by default; tests have nothing in flight at close.
const natsTestOverrides = { gracePeriod: 50 };

interface TransportHarness {
  startService(name: string): Promise<RunningDemoService>;
  createClient(timeoutMs?: number): { client: ServiceClient; logs: CapturedLogs };
  teardown(): Promise<void>;
}

// ---------------------------------------------------------------------------------------------
// The same behaviour over both transports
// ---------------------------------------------------------------------------------------------

function describeRpcTransport(transportName: string, createHarness: () => Promise<TransportHarness>) {
  describe(`request/reply over ${transportName}`, () => {
    let harness: TransportHarness;
    let service: RunningDemoService;
    let client: ServiceClient;
    let clientLogs: CapturedLogs;

    beforeAll(async () => {
      harness = await createHarness();
      service = await harness.startService('demo-1');
      ({ client, logs: clientLogs } = harness.createClient());
    });
    afterAll(async () => {
      await client?.close();
      await service?.close();
      await harness?.teardown();
    });

    it('echoes the body and passes the caller context through', async () => {
      const reply = await client.request(DEMO_SUBJECT, demoRequest({ mode: 'echo', text: 'hello' }));
      expect(reply).toEqual({ instance: 'demo-1', text: 'hello', context: demoRequest({ mode: 'echo' }).context });
    });

    it('delivers Promise and Observable results', async () => {
      await expect(client.request(DEMO_SUBJECT, demoRequest({ mode: 'promise', text: 'p' }))).resolves.toEqual({ text: 'p', via: 'promise' });
      await expect(client.request(DEMO_SUBJECT, demoRequest({ mode: 'observable', text: 'o' }))).resolves.toEqual({ text: 'o', via: 'observable' });
    });

    it('delivers values as JSON does on the wire (dates as ISO strings, undefined dropped)', async () => {
      await expect(client.request(DEMO_SUBJECT, demoRequest({ mode: 'date' }))).resolves.toEqual({ at: '2024-01-02T03:04:05.000Z' });
    });

    it('turns a ServiceError thrown by the handler into the same ServiceError for the caller', async () => {
      const error = await failureOf(client.request(DEMO_SUBJECT, demoRequest({ mode: 'not-found', text: 'tag-9' })));
      expect(error.toJSON()).toEqual({
        status: 404,
        code: 'DEMO.NOT_FOUND',
        message: 'no such demo',
        details: [{ field: 'id', code: 'exists', message: 'tag-9' }],
      });
    });

    it('turns an unexpected handler error into a 500 whose correlation id is in the service log', async () => {
      const error = await failureOf(client.request(DEMO_SUBJECT, demoRequest({ mode: 'crash' })));
      expect(error).toMatchObject({ status: 500, code: 'INTERNAL', message: 'internal error', details: [] });
      expect(error.correlationId).toMatch(/^[0-9a-f-]{36}$/);
      // Nothing from inside the service reaches the caller.
      expect(JSON.stringify(error.toJSON())).not.toContain('hunter2');
      expect(error.stack ?? '').not.toContain('DemoController');
      const logged = service.logs.entries.find((entry) => entry['correlationId'] === error.correlationId);
      expect(logged).toMatchObject({
        level: 'error',
        requestCorrelationId: 'gw-corr-1',
        subject: DEMO_SUBJECT,
        err: { message: CRASH_MESSAGE, stack: expect.stringContaining('DemoController') },
      });
    });

    it('answers 503 within the timeout when the handler never replies', async () => {
      const { client: impatient } = harness.createClient(300);
      const { result: error, ms } = await timed(failureOf(impatient.request(DEMO_SUBJECT, demoRequest({ mode: 'hang' }))));
      expect(error).toMatchObject({ status: 503, code: 'SERVICE.UNAVAILABLE', message: 'demo is unavailable' });
      expect(ms).toBeGreaterThanOrEqual(250);
      expect(ms).toBeLessThan(2000);
      await impatient.close();
    });

    it('answers 503 at once for a subject nobody serves', async () => {
      const { result: error, ms } = await timed(failureOf(client.request('nobody.serves.this', demoRequest({ mode: 'echo' }))));
      expect(error).toMatchObject({ status: 503, code: 'SERVICE.UNAVAILABLE', message: 'nobody is unavailable' });
      expect(ms).toBeLessThan(1000);
      expect(clientLogs.entries).toContainEqual(expect.objectContaining({ level: 'warn', subject: 'nobody.serves.this' }));
    });

    it('counts handled requests by subject and outcome on the service', async () => {
      const text = await service.registry.metrics();
      expect(text).toMatch(new RegExp(`rpc_server_requests_total\\{subject="${DEMO_SUBJECT}",outcome="ok"\\} [1-9]`));
      expect(text).toContain(`rpc_server_requests_total{subject="${DEMO_SUBJECT}",outcome="client_error"} 1`);
      expect(text).toContain(`rpc_server_requests_total{subject="${DEMO_SUBJECT}",outcome="server_error"} 1`);
    });
  });
}

// ---------------------------------------------------------------------------------------------
// NATS
// ---------------------------------------------------------------------------------------------

/** The two NATS callers: Nest's ClientNats behind ProxyServiceClient, and the gateway's NatsServiceClient. */
type NatsCaller = 'ClientNats' | 'NatsServiceClient';

interface CallerUnderTest {
  client: ServiceClient;
  readiness: { name: string; check: () => Promise<boolean> | boolean; dispose(): void };
}

function natsCaller(kind: NatsCaller, url: string, logger: Logger, timeoutMs?: number): CallerUnderTest {
  if (kind === 'NatsServiceClient') {
    const client = new NatsServiceClient(url, { timeoutMs, logger });
    client.warmUp();
    return { client, readiness: { name: 'gateway-nats', check: () => client.connected, dispose: () => undefined } };
  }
  const proxy = new ClientNats(natsClientOptions(url).options);
  return { client: new ProxyServiceClient(proxy, { timeoutMs, logger }), readiness: transportReadinessCheck('gateway-nats', proxy) };
}

function natsHarness(
  nats: () => RunningNatsServer,
  ownsServer: boolean,
  caller: NatsCaller = 'ClientNats',
  server: 'ServerNats' | 'LeanServerNats' = 'ServerNats',
): () => Promise<TransportHarness> {
  return async () => ({
    startService: async (name) => {
      const options = natsServerOptions(nats().url, 'demo', natsTestOverrides);
      const service = await startDemoService(name, server === 'LeanServerNats' ? { strategy: new LeanServerNats(options.options) } : options);
      await flushSubscriptions(service);
      return service;
    },
    createClient: (timeoutMs) => {
      const logs = captureLogs('gateway');
      return { client: natsCaller(caller, nats().url, logs.logger, timeoutMs).client, logs };
    },
    teardown: async () => {
      if (ownsServer) await nats().stop();
    },
  });
}

describe('NATS transport', () => {
  let nats: RunningNatsServer;
  beforeAll(async () => {
    nats = await startNatsServer();
  });
  afterAll(async () => {
    await nats?.stop();
  });

  describeRpcTransport(
    'NATS (ClientNats)',
    natsHarness(() => nats, false),
  );
  describeRpcTransport(
    'NATS (NatsServiceClient)',
    natsHarness(() => nats, false, 'NatsServiceClient'),
  );
  describeRpcTransport(
    'NATS (NatsServiceClient to LeanServerNats)',
    natsHarness(() => nats, false, 'NatsServiceClient', 'LeanServerNats'),
  );

  describe('queue group', () => {
    const services: RunningDemoService[] = [];
    let client: ProxyServiceClient;
    beforeAll(async () => {
      services.push(await startDemoService('instance-a', natsServerOptions(nats.url, 'demo', natsTestOverrides)));
      services.push(await startDemoService('instance-b', natsServerOptions(nats.url, 'demo', natsTestOverrides)));
      await Promise.all(services.map(flushSubscriptions));
      client = new ProxyServiceClient(new ClientNats(natsClientOptions(nats.url).options), { logger: captureLogs().logger });
    });
    afterAll(async () => {
      await client?.close();
      await Promise.all(services.map((service) => service.close()));
    });

    it('hands each request to exactly one instance of the group', async () => {
      const texts = Array.from({ length: 60 }, (_, index) => `request-${index}`);
      const replies = await Promise.all(
        texts.map((text) => client.request<{ instance: string; text: string }>(DEMO_SUBJECT, demoRequest({ mode: 'echo', text }))),
      );
      expect(replies.map((reply) => reply.text)).toEqual(texts);
      const handled = [...services[0].instance.handled, ...services[1].instance.handled];
      expect(handled.sort()).toEqual([...texts].sort());
      // Random distribution: both instances take part (one taking all 60 has odds of 2^-59).
      expect(services[0].instance.handled.length).toBeGreaterThan(0);
      expect(services[1].instance.handled.length).toBeGreaterThan(0);
    });
  });

  describe('when the service is down', () => {
    it('answers 503 within 5 s', async () => {
      const service = await startDemoService('short-lived', natsServerOptions(nats.url, 'demo', natsTestOverrides));
      await flushSubscriptions(service);
      const client = new ProxyServiceClient(new ClientNats(natsClientOptions(nats.url).options), { logger: captureLogs().logger });
      await expect(client.request(DEMO_SUBJECT, demoRequest({ mode: 'echo', text: 'up' }))).resolves.toMatchObject({ text: 'up' });
      await service.close();
      const { result: error, ms } = await timed(failureOf(client.request(DEMO_SUBJECT, demoRequest({ mode: 'echo' }))));
      expect(error).toMatchObject({ status: 503, code: 'SERVICE.UNAVAILABLE' });
      expect(ms).toBeLessThan(5000);
      await client.close();
    });
  });
});

describe('NatsServiceClient when NATS goes away', () => {
  it('fails a waiting request at once rather than at its timeout', async () => {
    const nats = await startNatsServer();
    const service = await startDemoService('hanging', natsServerOptions(nats.url, 'demo', natsTestOverrides));
    await flushSubscriptions(service);
    const client = new NatsServiceClient(nats.url, { timeoutMs: 4000, logger: captureLogs().logger });
    try {
      await expect(client.request(DEMO_SUBJECT, demoRequest({ mode: 'echo' }))).resolves.toMatchObject({ instance: 'hanging' });
      const waiting = timed(failureOf(client.request(DEMO_SUBJECT, demoRequest({ mode: 'hang' }))));
      await new Promise((resolve) => setTimeout(resolve, 200));
      await nats.stop();
      const { result: error, ms } = await waiting;
      expect(error).toMatchObject({ status: 503, code: 'SERVICE.UNAVAILABLE' });
      expect(ms).toBeLessThan(2000);
    } finally {
      await client.close();
      await service.close();
      await nats.stop();
    }
  });
});

describe.each(['ClientNats', 'NatsServiceClient'] as const)('NATS outages, caller %s', (caller) => {
  it('answers 503 within 5 s while NATS is stopped, and recovers when it is back', async () => {
    const nats = await startNatsServer();
    const service = await startDemoService('survivor', natsServerOptions(nats.url, 'demo', natsTestOverrides));
    await flushSubscriptions(service);
    const { client, readiness: gatewayReadiness } = natsCaller(caller, nats.url, captureLogs().logger);
    const checks = [gatewayReadiness, transportReadinessCheck('service-nats', service.app)];
    const readiness = async () => (await readinessReport(checks)).checks;
    try {
      await expect(client.request(DEMO_SUBJECT, demoRequest({ mode: 'echo', text: 'before' }))).resolves.toMatchObject({ text: 'before' });
      expect(await readiness()).toEqual({ 'gateway-nats': true, 'service-nats': true });

      await nats.stop();
      await eventually(async () => expect(await readiness()).toEqual({ 'gateway-nats': false, 'service-nats': false }), 5000);
      // A request racing the outage is lost and ends with the timeout (4 s); later ones fail at once.
      for (const attempt of ['right after', 'a bit later']) {
        const { result: error, ms } = await timed(failureOf(client.request(DEMO_SUBJECT, demoRequest({ mode: 'echo', text: attempt }))));
        expect(error).toMatchObject({ status: 503, code: 'SERVICE.UNAVAILABLE' });
        expect(ms).toBeLessThan(5000);
      }

      await nats.restart();
      // Both the caller and the service reconnect by themselves.
      const reply = await eventually(() => client.request(DEMO_SUBJECT, demoRequest({ mode: 'echo', text: 'after' })), 15_000);
      expect(reply).toMatchObject({ instance: 'survivor', text: 'after' });
      await eventually(async () => expect(await readiness()).toEqual({ 'gateway-nats': true, 'service-nats': true }), 5000);
    } finally {
      checks.forEach((check) => check.dispose());
      await client.close();
      await service.close();
      await nats.stop();
    }
  });

  it('answers 503 within 5 s when NATS is down at caller start, and connects once NATS is up', async () => {
    const port = await freePort();
    const { client } = natsCaller(caller, `nats://127.0.0.1:${port}`, captureLogs().logger);
    let nats: RunningNatsServer | undefined;
    let service: RunningDemoService | undefined;
    try {
      for (let attempt = 0; attempt < 2; attempt++) {
        const { result: error, ms } = await timed(failureOf(client.request(DEMO_SUBJECT, demoRequest({ mode: 'echo' }))));
        expect(error).toMatchObject({ status: 503, code: 'SERVICE.UNAVAILABLE' });
        expect(ms).toBeLessThan(5000);
      }

      nats = await startNatsServer({ port });
      service = await startDemoService('late', natsServerOptions(nats.url, 'demo', natsTestOverrides));
      await flushSubscriptions(service);
      await expect(client.request(DEMO_SUBJECT, demoRequest({ mode: 'echo', text: 'now' }))).resolves.toMatchObject({ text: 'now' });
    } finally {
      await client.close();
      await service?.close();
      await nats?.stop();
    }
  });
});

// ---------------------------------------------------------------------------------------------
// In-process
// ---------------------------------------------------------------------------------------------

function inProcessHarness(): Promise<TransportHarness> {
  const bus = new InProcessBus();
  return Promise.resolve({
    startService: (name) => startDemoService(name, { strategy: new InProcessServer(bus) }),
    createClient: (timeoutMs) => {
      const logs = captureLogs('gateway');
      return { client: new ProxyServiceClient(new InProcessClient(bus), { timeoutMs, logger: logs.logger }), logs };
    },
    teardown: async () => undefined,
  });
}

describeRpcTransport('the in-process transport', inProcessHarness);

describe('in-process transport', () => {
  @Controller()
  class OtherController {
    @MessagePattern('other.thing.get')
    get(@Payload() request: RpcRequest<{ id: string }>) {
      return { id: request.body.id, from: 'other' };
    }

    @EventPattern(DEMO_EVENT)
    pinged() {
      otherEvents.push('pinged');
    }
  }
  const otherEvents: string[] = [];

  async function startOther(bus: InProcessBus): Promise<INestMicroservice> {
    const moduleRef = await Test.createTestingModule({ controllers: [OtherController] }).compile();
    const app = moduleRef.createNestMicroservice<MicroserviceOptions>({ strategy: new InProcessServer(bus), logger: false });
    await app.listen();
    return app;
  }

  let bus: InProcessBus;
  let demo: RunningDemoService;
  let other: INestMicroservice;
  let proxy: InProcessClient;
  let client: ProxyServiceClient;

  beforeEach(async () => {
    otherEvents.length = 0;
    bus = new InProcessBus();
    demo = await startDemoService('demo', { strategy: new InProcessServer(bus) });
    other = await startOther(bus);
    proxy = new InProcessClient(bus);
    client = new ProxyServiceClient(proxy, { logger: captureLogs().logger });
  });
  afterEach(async () => {
    await client.close();
    await other.close();
    await demo.close();
  });

  it('serves the patterns of several servers on one bus', async () => {
    await expect(client.request('other.thing.get', { ...demoRequest({ mode: 'echo' }), body: { id: 'x1' } })).resolves.toEqual({ id: 'x1', from: 'other' });
    await expect(client.request(DEMO_SUBJECT, demoRequest({ mode: 'echo', text: 'hi' }))).resolves.toMatchObject({ instance: 'demo', text: 'hi' });
  });

  it('refuses a second server for a message pattern that is already served', async () => {
    await expect(startOther(bus)).rejects.toThrow('message pattern(s) already served by another server: other.thing.get');
  });

  it('never lets the handler change the caller’s payload', async () => {
    const request = demoRequest({ mode: 'mutate', items: ['from caller'] });
    const reply = await client.request<{ items: string[] }>(DEMO_SUBJECT, request);
    expect(reply.items).toEqual(['from caller', 'added by handler']);
    expect(request.body.items).toEqual(['from caller']);
  });

  it('never lets the caller change the handler’s state through a reply', async () => {
    const first = await client.request<{ items: string[] }>(DEMO_SUBJECT, demoRequest({ mode: 'stored' }));
    first.items.push('added by caller');
    await expect(client.request(DEMO_SUBJECT, demoRequest({ mode: 'stored' }))).resolves.toEqual({ items: ['original'] });
    expect(demo.instance.stored.items).toEqual(['original']);
  });

  it('answers 500 at once for a reply JSON cannot carry, as the wire would fail', async () => {
    const { result: error, ms } = await timed(failureOf(client.request(DEMO_SUBJECT, demoRequest({ mode: 'cycle' }))));
    expect(error).toMatchObject({ status: 500, code: 'INTERNAL', correlationId: expect.any(String) });
    expect(ms).toBeLessThan(1000);
  });

  it('delivers an emitted event to every server listening to it, each with its own copy', async () => {
    const data = { at: 1 };
    await new Promise<void>((resolve, reject) => proxy.emit(DEMO_EVENT, data).subscribe({ complete: resolve, error: reject }));
    await new Promise((resolve) => setImmediate(resolve));
    expect(demo.instance.events).toEqual([{ at: 1 }]);
    expect(demo.instance.events[0]).not.toBe(data);
    expect(otherEvents).toEqual(['pinged']);
  });

  it('stops serving a server’s patterns once it is closed', async () => {
    await other.close();
    const error = await failureOf(client.request('other.thing.get', { ...demoRequest({ mode: 'echo' }), body: { id: 'x' } }));
    expect(error).toMatchObject({ status: 503, code: 'SERVICE.UNAVAILABLE' });
    await expect(client.request(DEMO_SUBJECT, demoRequest({ mode: 'echo', text: 'still here' }))).resolves.toMatchObject({ text: 'still here' });
    other = await startOther(bus);
  });
});
