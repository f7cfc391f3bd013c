import { type RpcRequest, ServiceError } from '@funnel/contracts';
import { captureLogs } from '../logging/log-capture';
import { EmptyResponseException } from '@nestjs/microservices/errors/empty-response.exception';
import { NO_MESSAGE_HANDLER } from '@nestjs/microservices/constants';
import { NatsError, ErrorCode as NatsErrorCode } from 'nats';
import { EMPTY, NEVER, type Observable, of, throwError } from 'rxjs';
import { createMetricsRegistry, RpcMetrics } from '../ops/metrics';
import { classifyRpcFailure } from './rpc-failure';
import { ProxyServiceClient, type RpcClientProxy } from './service-client';

const request: RpcRequest = {
  context: { accountId: 'acc', userId: 'usr', permissions: [], correlationId: 'req-42' },
  body: { id: 'x' },
};

function proxyReplying(reply$: () => Observable<unknown>): RpcClientProxy & { close: jest.Mock } {
  return { send: jest.fn(() => reply$()) as RpcClientProxy['send'], close: jest.fn(async () => undefined) };
}

async function failureOf(promise: Promise<unknown>): Promise<ServiceError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ServiceError) return error;
    throw new Error(`expected a ServiceError, got ${String(error)}`);
  }
  throw new Error('expected the request to fail');
}

describe('classifyRpcFailure', () => {
  it.each<[string, unknown]>([
    ['a ServiceError', ServiceError.notFound('ASSET.NOT_FOUND', 'gone')],
    ['a ServiceError shape from the wire', { status: 409, code: 'ASSET.CONFLICT', message: 'conflict', details: [] }],
  ])('treats %s as a service error', (_, error) => expect(classifyRpcFailure(error)).toBe('service-error'));

  it.each<[string, unknown]>([
    ['NATS no responders (empty reply)', new EmptyResponseException('assets.visitortag.findById')],
    ['no in-process handler', NO_MESSAGE_HANDLER],
    ['ClientNats connection lost', 'Error: Connection lost. Trying to reconnect...'],
    ['NATS refusing the connection', NatsError.errorForCode(NatsErrorCode.ConnectionRefused)],
    ['NATS closed connection', NatsError.errorForCode(NatsErrorCode.ConnectionClosed)],
    ['NATS no responders status', NatsError.errorForCode(NatsErrorCode.NoResponders)],
    ['a refused socket', Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' })],
  ])('treats %s as unavailable', (_, error) => expect(classifyRpcFailure(error)).toBe('unavailable'));

  it.each<[string, unknown]>([
    ['a plain Error', new Error('boom')],
    ["Nest's default rpc error", { status: 'error', message: 'Internal server error' }],
    ['an empty object (an Error serialized to JSON)', {}],
    ['an unknown string', 'oops'],
    ['a NATS permission violation', NatsError.errorForCode(NatsErrorCode.PermissionsViolation)],
  ])('treats %s as unexpected', (_, error) => expect(classifyRpcFailure(error)).toBe('unexpected'));
});

describe('ProxyServiceClient', () => {
  it('sends the subject and payload and resolves with the reply', async () => {
    const proxy = proxyReplying(() => of({ id: 'x', name: 'tag' }));
    const client = new ProxyServiceClient(proxy, { logger: captureLogs().logger });
    await expect(client.request('assets.visitortag.findById', request)).resolves.toEqual({ id: 'x', name: 'tag' });
    expect(proxy.send).toHaveBeenCalledWith('assets.visitortag.findById', request);
  });

  it('resolves with undefined when the handler replies nothing', async () => {
    const client = new ProxyServiceClient(
      proxyReplying(() => of()),
      { logger: captureLogs().logger },
    );
    await expect(client.request('assets.visitortag.archive', request)).resolves.toBeUndefined();
  });

  it('turns a ServiceError shape into a ServiceError with status, code, message, details and retry delay', async () => {
    const shape = {
      status: 429,
      code: 'AUTH.TOO_MANY_ATTEMPTS',
      message: 'wait',
      details: [{ field: 'id', code: 'exists', message: 'x' }],
      retryAfterSeconds: 30,
    };
    const client = new ProxyServiceClient(
      proxyReplying(() => throwError(() => shape)),
      { logger: captureLogs().logger },
    );
    const error = await failureOf(client.request('assets.visitortag.findById', request));
    expect(error.toJSON()).toEqual(shape);
  });

  it("keeps a service's 500 correlation id (the one its log holds)", async () => {
    const shape = { status: 500, code: 'INTERNAL', message: 'internal error', correlationId: 'svc-id' };
    const client = new ProxyServiceClient(
      proxyReplying(() => throwError(() => shape)),
      { logger: captureLogs().logger },
    );
    const error = await failureOf(client.request('assets.visitortag.findById', request));
    expect(error).toMatchObject({ status: 500, correlationId: 'svc-id' });
  });

  it('answers 503 when no reply comes within the timeout', async () => {
    const logs = captureLogs();
    const client = new ProxyServiceClient(
      proxyReplying(() => NEVER),
      { timeoutMs: 50, logger: logs.logger },
    );
    const startedAt = Date.now();
    const error = await failureOf(client.request('assets.visitortag.findById', request));
    expect(error).toMatchObject({ status: 503, code: 'SERVICE.UNAVAILABLE', message: 'assets is unavailable' });
    expect(Date.now() - startedAt).toBeLessThan(1000);
    expect(logs.entries).toContainEqual(expect.objectContaining({ level: 'warn', subject: 'assets.visitortag.findById', requestCorrelationId: 'req-42' }));
  });

  it('answers 503 when NATS has no responders', async () => {
    const proxy = proxyReplying(() => throwError(() => new EmptyResponseException('identity.user.get')));
    const error = await failureOf(new ProxyServiceClient(proxy, { logger: captureLogs().logger }).request('identity.user.get', request));
    expect(error).toMatchObject({ status: 503, code: 'SERVICE.UNAVAILABLE' });
  });

  it('answers 500 with a fresh, logged correlation id for anything else, without internals', async () => {
    const logs = captureLogs();
    const proxy = proxyReplying(() => throwError(() => new Error('socket exploded at line 12')));
    const error = await failureOf(new ProxyServiceClient(proxy, { logger: logs.logger }).request('assets.visitortag.findById', request));
    expect(error.toJSON()).toEqual({ status: 500, code: 'INTERNAL', message: 'internal error', details: [], correlationId: expect.any(String) });
    expect(error.correlationId).toMatch(/^[0-9a-f-]{36}$/);
    const logged = logs.entries.find((entry) => entry['correlationId'] === error.correlationId);
    expect(logged).toMatchObject({ level: 'error', requestCorrelationId: 'req-42', err: { message: 'socket exploded at line 12' } });
  });

  it('gives every unexpected failure its own correlation id', async () => {
    const client = new ProxyServiceClient(
      proxyReplying(() => throwError(() => ({}))),
      { logger: captureLogs().logger },
    );
    const first = await failureOf(client.request('a.b.c', request));
    const second = await failureOf(client.request('a.b.c', request));
    expect(first.correlationId).not.toBe(second.correlationId);
  });

  it('counts requests by subject and outcome when given metrics', async () => {
    const registry = createMetricsRegistry({ defaultMetrics: false });
    const metrics = new RpcMetrics(registry, 'client');
    const replies = [of('ok'), throwError(() => ({ status: 404, code: 'X', message: 'x' })), NEVER];
    const client = new ProxyServiceClient(
      proxyReplying(() => replies.shift() ?? EMPTY),
      { timeoutMs: 20, metrics, logger: captureLogs().logger },
    );
    await client.request('a.b.c', request);
    await client.request('a.b.c', request).catch(() => undefined);
    await client.request('a.b.c', request).catch(() => undefined);
    const text = await registry.metrics();
    expect(text).toContain('rpc_client_requests_total{subject="a.b.c",outcome="ok"} 1');
    expect(text).toContain('rpc_client_requests_total{subject="a.b.c",outcome="client_error"} 1');
    expect(text).toContain('rpc_client_requests_total{subject="a.b.c",outcome="unavailable"} 1');
  });

  it('closes the underlying proxy', async () => {
    const proxy = proxyReplying(() => of(1));
    await new ProxyServiceClient(proxy).close();
    expect(proxy.close).toHaveBeenCalledTimes(1);
  });
});
