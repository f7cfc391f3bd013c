import { ServiceError } from '@funnel/contracts';
import { createMetricsRegistry, RpcMetrics, rpcOutcomeOf } from './metrics';

describe('rpcOutcomeOf', () => {
  it.each<[unknown, string]>([
    [ServiceError.notFound('X', 'x'), 'client_error'],
    [{ status: 409, code: 'X', message: 'x' }, 'client_error'],
    [ServiceError.unavailable(), 'unavailable'],
    [ServiceError.internal('id'), 'server_error'],
    [new Error('boom'), 'server_error'],
  ])('classifies %p as %s', (error, outcome) => expect(rpcOutcomeOf(error)).toBe(outcome));
});

describe('RpcMetrics', () => {
  it('counts and times calls by subject and outcome', async () => {
    const registry = createMetricsRegistry({ defaultMetrics: false });
    const metrics = new RpcMetrics(registry, 'server');
    await metrics.measure('assets.visitortag.findById', async () => 'ok');
    await expect(metrics.measure('assets.visitortag.findById', () => Promise.reject(ServiceError.notFound('X', 'x')))).rejects.toBeInstanceOf(ServiceError);
    const text = await registry.metrics();
    expect(text).toContain('rpc_server_requests_total{subject="assets.visitortag.findById",outcome="ok"} 1');
    expect(text).toContain('rpc_server_requests_total{subject="assets.visitortag.findById",outcome="client_error"} 1');
    expect(text).toContain('rpc_server_request_duration_seconds_count{subject="assets.visitortag.findById",outcome="ok"} 1');
  });

  it('shares the series when created twice on one registry', async () => {
    const registry = createMetricsRegistry({ defaultMetrics: false });
    new RpcMetrics(registry, 'client').observe('a.b.c', 'ok', 0.01);
    new RpcMetrics(registry, 'client').observe('a.b.c', 'ok', 0.01);
    expect(await registry.metrics()).toContain('rpc_client_requests_total{subject="a.b.c",outcome="ok"} 2');
  });

  it('adds process metrics and default labels to a registry', async () => {
    const registry = createMetricsRegistry({ defaultLabels: { app: 'gateway' } });
    const text = await registry.metrics();
    expect(text).toMatch(/process_cpu_user_seconds_total\{app="gateway"\}/);
  });
});
