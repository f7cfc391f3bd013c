import { ServiceError } from '@funnel/contracts';
import { captureLogs } from '../logging/log-capture';
import type { ArgumentsHost } from '@nestjs/common';
import { NatsContext } from '@nestjs/microservices';
import { lastValueFrom } from 'rxjs';
import { RpcErrorFilter } from './rpc-error.filter';

function rpcHost(data: unknown, subject = 'assets.visitortag.findById'): ArgumentsHost {
  const context = new NatsContext([subject, undefined]);
  return {
    switchToRpc: () => ({ getData: () => data, getContext: () => context }),
    getType: () => 'rpc',
  } as unknown as ArgumentsHost;
}

async function replyErrorOf(filter: RpcErrorFilter, exception: unknown, data: unknown = {}): Promise<unknown> {
  try {
    await lastValueFrom(filter.catch(exception, rpcHost(data)));
  } catch (error) {
    return error;
  }
  throw new Error('expected the filter to answer with an error');
}

describe('RpcErrorFilter', () => {
  it('answers a ServiceError with its plain shape', async () => {
    const logs = captureLogs();
    const error = await replyErrorOf(
      new RpcErrorFilter(logs.logger),
      ServiceError.conflict('ASSET.CONCURRENT_MODIFICATION', 'retry', [{ field: 'id', code: 'revision', message: 'expected 3' }]),
    );
    expect(error).toEqual({
      status: 409,
      code: 'ASSET.CONCURRENT_MODIFICATION',
      message: 'retry',
      details: [{ field: 'id', code: 'revision', message: 'expected 3' }],
    });
    expect(error).not.toBeInstanceOf(Error);
    expect(logs.entries).toEqual([]);
  });

  it('answers anything else with a bare 500 and logs it under the same correlation id', async () => {
    const logs = captureLogs();
    const data = { context: { correlationId: 'gw-7' }, body: {} };
    const error = (await replyErrorOf(new RpcErrorFilter(logs.logger), new RangeError('index 9 out of range'), data)) as Record<string, unknown>;
    expect(error).toEqual({ status: 500, code: 'INTERNAL', message: 'internal error', correlationId: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    expect(logs.entries).toEqual([
      expect.objectContaining({
        level: 'error',
        correlationId: error['correlationId'],
        requestCorrelationId: 'gw-7',
        subject: 'assets.visitortag.findById',
        err: expect.objectContaining({ type: 'RangeError', message: 'index 9 out of range', stack: expect.any(String) }),
      }),
    ]);
  });

  it('copes with payloads without a context and with thrown non-errors', async () => {
    const logs = captureLogs();
    const error = await replyErrorOf(new RpcErrorFilter(logs.logger), 'a string was thrown', 'raw payload');
    expect(error).toMatchObject({ status: 500, code: 'INTERNAL' });
    expect(logs.entries[0]).toMatchObject({ level: 'error', err: 'a string was thrown' });
    expect(logs.entries[0]['requestCorrelationId']).toBeUndefined();
  });
});
