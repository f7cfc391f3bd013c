import type { WritePacket } from '@nestjs/microservices';
import { type RpcRequest, ServiceError } from '@funnel/contracts';
import { captureLogs } from '../logging/log-capture';
import { RpcMetrics, createMetricsRegistry } from '../ops/metrics';
import { InProcessBus, type InProcessEndpoint } from './in-process-bus';
import { InProcessServiceClient } from './in-process-service-client';

const request: RpcRequest = { context: { accountId: 'A', userId: 'U', permissions: [], correlationId: 'c' }, body: {} };

/** An endpoint whose requests wait until the test answers them. */
function manualEndpoint() {
  const pending: { respond: (packet: WritePacket) => void; cancelled: boolean }[] = [];
  const endpoint: InProcessEndpoint = {
    deliverRequest(_pattern, _data, respond) {
      const entry = { respond, cancelled: false };
      pending.push(entry);
      return () => {
        entry.cancelled = true;
      };
    },
    deliverEvent: () => undefined,
  };
  return { endpoint, pending };
}

function setUp(timeoutMs: number) {
  const bus = new InProcessBus();
  const { endpoint, pending } = manualEndpoint();
  bus.register(endpoint, { requestPatterns: ['demo.thing.get'], eventPatterns: [] });
  const client = new InProcessServiceClient(bus, { timeoutMs, logger: captureLogs().logger });
  return { client, pending };
}

async function settled(promise: Promise<unknown>): Promise<{ value?: unknown; error?: unknown; ms: number }> {
  const started = performance.now();
  try {
    return { value: await promise, ms: performance.now() - started };
  } catch (error) {
    return { error, ms: performance.now() - started };
  }
}

const activeTimers = () => process.getActiveResourcesInfo().filter((name) => name === 'Timeout').length;

describe('InProcessServiceClient timeouts', () => {
  it('answers with the reply, and a waiting request alone keeps a timer active', async () => {
    const { client, pending } = setUp(1000);
    const before = activeTimers();
    const answer = client.request('demo.thing.get', request);
    expect(activeTimers()).toBe(before + 1);
    pending[0].respond({ response: { ok: true }, isDisposed: true });
    await expect(answer).resolves.toEqual({ ok: true });
    // The shared timer stays set for the next request but no longer keeps the process alive.
    expect(activeTimers()).toBe(before);
  });

  it('fails each request with a 503 once its own timeout has passed, cancels it, and ignores a late reply', async () => {
    const { client, pending } = setUp(200);
    const first = settled(client.request('demo.thing.get', request));
    await new Promise((resolve) => setTimeout(resolve, 100));
    const second = settled(client.request('demo.thing.get', request));
    const third = settled(client.request('demo.thing.get', request));
    pending[2].respond({ response: 'third', isDisposed: true });

    const [a, b, c] = await Promise.all([first, second, third]);
    expect(c).toMatchObject({ value: 'third' });
    for (const timedOut of [a, b]) {
      expect(timedOut.error).toBeInstanceOf(ServiceError);
      expect(timedOut.error).toMatchObject({ status: 503, code: 'SERVICE.UNAVAILABLE' });
      expect(timedOut.ms).toBeGreaterThanOrEqual(195);
      expect(timedOut.ms).toBeLessThan(2000);
    }
    expect(pending.map((p) => p.cancelled)).toEqual([true, true, false]);
    pending[0].respond({ response: 'too late', isDisposed: true });
  });

  it('bounds a request by its own timeoutMs when given: a longer one outlives the default, a shorter one behind it still expires on time', async () => {
    const { client, pending } = setUp(100);
    const slow = settled(client.request('demo.thing.get', request, { timeoutMs: 1000 }));
    const quick = settled(client.request('demo.thing.get', request, { timeoutMs: 50 }));
    const usual = settled(client.request('demo.thing.get', request));
    const [q, u] = await Promise.all([quick, usual]);
    expect(q.error).toMatchObject({ status: 503 });
    expect(q.ms).toBeGreaterThanOrEqual(45);
    expect(q.ms).toBeLessThan(100);
    expect(u.error).toMatchObject({ status: 503 });
    expect(u.ms).toBeGreaterThanOrEqual(95);
    // Past the client's 100 ms, the slow request is still waiting, and gets its answer.
    pending[0].respond({ response: 'report', isDisposed: true });
    expect(await slow).toMatchObject({ value: 'report' });
    expect(pending.map((p) => p.cancelled)).toEqual([false, true, true]);
  });

  it('keeps timing out requests sent after an idle spell', async () => {
    const { client, pending } = setUp(100);
    const answered = client.request('demo.thing.get', request);
    pending[0].respond({ response: 1, isDisposed: true });
    await answered;
    await new Promise((resolve) => setTimeout(resolve, 150));
    const late = await settled(client.request('demo.thing.get', request));
    expect(late.error).toMatchObject({ status: 503 });
    expect(late.ms).toBeGreaterThanOrEqual(95);
  });

  it('counts and times requests by subject and outcome with the metrics option', async () => {
    const bus = new InProcessBus();
    const { endpoint, pending } = manualEndpoint();
    bus.register(endpoint, { requestPatterns: ['demo.thing.get'], eventPatterns: [] });
    const registry = createMetricsRegistry({ defaultMetrics: false });
    const client = new InProcessServiceClient(bus, { timeoutMs: 1000, logger: captureLogs().logger, metrics: new RpcMetrics(registry, 'client') });

    const ok = client.request('demo.thing.get', request);
    pending[0].respond({ response: 1, isDisposed: true });
    await ok;
    const failed = settled(client.request('demo.thing.get', request));
    pending[1].respond({ err: ServiceError.notFound('DEMO.NOT_FOUND', 'no such thing'), isDisposed: true });
    await failed;
    await settled(client.request('demo.nobody.home', request));

    const text = await registry.metrics();
    expect(text).toContain('rpc_client_requests_total{subject="demo.thing.get",outcome="ok"} 1');
    expect(text).toContain('rpc_client_requests_total{subject="demo.thing.get",outcome="client_error"} 1');
    expect(text).toContain('rpc_client_requests_total{subject="demo.nobody.home",outcome="unavailable"} 1');
    expect(text).toContain('rpc_client_request_duration_seconds_count{subject="demo.thing.get",outcome="ok"} 1');
  });
});
