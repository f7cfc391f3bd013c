import { ServiceError } from '@funnel/contracts';
import type { MessageHandler } from '@nestjs/microservices';
import { isObservable, lastValueFrom, throwError } from 'rxjs';
import { createMetricsRegistry, measureRequestHandlers, RpcMetrics, rpcOutcomeOf } from './metrics';

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

describe('measureRequestHandlers', () => {
  const handler = (body: (data: unknown) => unknown, extra: Partial<MessageHandler> = {}): MessageHandler =>
    Object.assign(async (data: unknown) => body(data), extra) as MessageHandler;

  it('counts and times each request handler by subject, leaving plain results plain and event handlers alone', async () => {
    const event = handler(() => undefined, { isEventHandler: true });
    const handlers = new Map<string, MessageHandler>([
      ['assets.visitortag.findById', handler((data) => ({ echoed: data }), { extras: { x: 1 } })],
      ['assets.visitortag.create', handler(() => throwError(() => ServiceError.conflict('ASSET.ALREADY_EXISTS', 'exists').toJSON()))],
      ['assets.visitortag.delete', handler(() => Promise.reject(new Error('boom')))],
      ['identity.apikeys.revoked', event],
    ]);
    const registry = createMetricsRegistry({ defaultMetrics: false });
    measureRequestHandlers({ getHandlers: () => handlers }, new RpcMetrics(registry, 'server'));

    const found = await handlers.get('assets.visitortag.findById')!('x');
    expect(isObservable(found)).toBe(false);
    expect(found).toEqual({ echoed: 'x' });
    expect(handlers.get('assets.visitortag.findById')!.extras).toEqual({ x: 1 });
    const conflict = await handlers.get('assets.visitortag.create')!({});
    await expect(lastValueFrom(conflict as never)).rejects.toMatchObject({ status: 409 });
    await expect(handlers.get('assets.visitortag.delete')!({})).rejects.toThrow('boom');
    expect(handlers.get('identity.apikeys.revoked')).toBe(event);

    const text = await registry.metrics();
    expect(text).toContain('rpc_server_requests_total{subject="assets.visitortag.findById",outcome="ok"} 1');
    expect(text).toContain('rpc_server_requests_total{subject="assets.visitortag.create",outcome="client_error"} 1');
    expect(text).toContain('rpc_server_requests_total{subject="assets.visitortag.delete",outcome="server_error"} 1');
    expect(text).toContain('rpc_server_request_duration_seconds_count{subject="assets.visitortag.findById",outcome="ok"} 1');
    expect(text).not.toContain('identity.apikeys.revoked');
  });
});
