import { type RpcRequest, ServiceError } from '@funnel/contracts';
import { type RunningNatsServer, startNatsServer } from '@funnel/testing';
import { Controller, Inject, type INestMicroservice } from '@nestjs/common';
import { MessagePattern, type MicroserviceOptions, Payload } from '@nestjs/microservices';
import { Test } from '@nestjs/testing';
import { type NatsConnection, connect, headers as natsHeaders } from 'nats';
import { type CapturedLogs, captureLogs } from '../logging/log-capture';
import { PinoNestLogger } from '../logging/nest-logger';
import { LeanServerNats } from './lean-server-nats';
import { natsServerOptions } from './nats-options';
import { NatsServiceClient } from './nats-service-client';
import { RpcErrorFilter } from './rpc-error.filter';

/**
 * Requests and replies larger than NATS's max payload (1 MB by default) cross in chunks, up to
 * the configured bound; above it the caller gets 413/507; and nothing a handler returns or a
 * client sends ends the service.
 */
const SUBJECT = 'big.items.run';
const MB = 1024 * 1024;

interface BigBody {
  /** Answer a text of this many characters. */
  replyChars?: number;
  /** Sent along: its length and a checksum are answered. */
  text?: string;
  /** Answer something JSON cannot carry. */
  unserializable?: boolean;
}

class Instance {
  handled = 0;
  constructor(readonly name: string) {}
}

@Controller()
class BigController {
  constructor(@Inject(Instance) private readonly instance: Instance) {}

  @MessagePattern(SUBJECT)
  run(@Payload() request: RpcRequest<BigBody>) {
    this.instance.handled++;
    const { body } = request;
    if (body.unserializable) return { count: BigInt(1) };
    return {
      instance: this.instance.name,
      received: body.text?.length ?? 0,
      checksum: checksum(body.text ?? ''),
      text: body.replyChars ? patterned(body.replyChars) : undefined,
    };
  }
}

/** A text whose every chunk differs, so a chunk out of place shows. */
function patterned(length: number): string {
  let text = '';
  for (let i = 0; text.length < length; i++) text += `${i},`;
  return text.slice(0, length);
}

function checksum(text: string): number {
  let sum = 0;
  for (let i = 0; i < text.length; i++) sum = (sum * 31 + text.charCodeAt(i)) >>> 0;
  return sum;
}

interface RunningService {
  app: INestMicroservice;
  instance: Instance;
  logs: CapturedLogs;
}

async function startService(url: string, name: string, maxMessageBytes: number): Promise<RunningService> {
  const instance = new Instance(name);
  const logs = captureLogs(name);
  const moduleRef = await Test.createTestingModule({ controllers: [BigController], providers: [{ provide: Instance, useValue: instance }] }).compile();
  const strategy = new LeanServerNats(natsServerOptions(url, 'big', { gracePeriod: 50 }).options, { maxMessageBytes });
  const app = moduleRef.createNestMicroservice<MicroserviceOptions>({ strategy, logger: new PinoNestLogger(logs.logger) });
  app.useGlobalFilters(new RpcErrorFilter(logs.logger));
  await app.listen();
  await app.unwrap<NatsConnection>().flush();
  return { app, instance, logs };
}

const request = (body: BigBody): RpcRequest<BigBody> => ({
  context: { accountId: 'acc-1', userId: 'usr-1', permissions: [], correlationId: 'gw-corr-big' },
  body,
});

async function failureOf(promise: Promise<unknown>): Promise<ServiceError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ServiceError) return error;
    throw new Error(`expected a ServiceError, got ${String(error)}`);
  }
  throw new Error('expected the request to fail');
}

describe('NATS messages larger than the max payload', () => {
  let nats: RunningNatsServer;
  let services: RunningService[];
  let client: NatsServiceClient;

  beforeAll(async () => {
    nats = await startNatsServer({ jetstream: false });
    // Two instances in one queue group: the chunks of a request must all reach the one that took the first.
    services = [await startService(nats.url, 'one', 8 * MB), await startService(nats.url, 'two', 8 * MB)];
    // The tests are about what arrives, not how fast: six 3 MB requests at once took over 5 s on a loaded 2-core machine.
    client = new NatsServiceClient(nats.url, { timeoutMs: 30_000, logger: captureLogs().logger, maxMessageBytes: 16 * MB });
  });

  afterAll(async () => {
    await client?.close();
    for (const service of services ?? []) await service.app.close();
    await nats?.stop();
  });

  it('carries a reply of 3 MB intact and the service keeps answering', async () => {
    const answer = await client.request<{ text: string }>(SUBJECT, request({ replyChars: 3 * MB }));
    expect(answer.text).toBe(patterned(3 * MB));
    await expect(client.request(SUBJECT, request({ text: 'small' }))).resolves.toMatchObject({ received: 5 });
  });

  it('carries requests of 3 MB intact to one instance, whichever takes them', async () => {
    const text = patterned(3 * MB);
    const answers = await Promise.all(
      Array.from({ length: 6 }, () => client.request<{ received: number; checksum: number; instance: string }>(SUBJECT, request({ text }))),
    );
    for (const answer of answers) expect(answer).toMatchObject({ received: text.length, checksum: checksum(text) });
  });

  it('carries a large request and a large reply in one call', async () => {
    const text = patterned(2 * MB);
    const answer = await client.request<{ received: number; text: string }>(SUBJECT, request({ text, replyChars: 2 * MB + 7 }));
    expect(answer.received).toBe(text.length);
    expect(answer.text).toBe(patterned(2 * MB + 7));
  });

  it('answers 507 RPC.REPLY_TOO_LARGE for a reply over the service bound, and stays up', async () => {
    const error = await failureOf(client.request(SUBJECT, request({ replyChars: 9 * MB })));
    expect(error).toMatchObject({ status: 507, code: 'RPC.REPLY_TOO_LARGE' });
    await expect(client.request(SUBJECT, request({ text: 'after' }))).resolves.toMatchObject({ received: 5 });
  });

  it('answers 413 RPC.MESSAGE_TOO_LARGE for a request over the service bound', async () => {
    const error = await failureOf(client.request(SUBJECT, request({ text: patterned(9 * MB) })));
    expect(error).toMatchObject({ status: 413, code: 'RPC.MESSAGE_TOO_LARGE' });
  });

  it('refuses a request over the caller bound without sending it', async () => {
    const handledBefore = services.reduce((sum, service) => sum + service.instance.handled, 0);
    const error = await failureOf(client.request(SUBJECT, request({ text: patterned(17 * MB) })));
    expect(error).toMatchObject({ status: 413, code: 'RPC.MESSAGE_TOO_LARGE' });
    expect(services.reduce((sum, service) => sum + service.instance.handled, 0)).toBe(handledBefore);
  });

  it('answers a reply that cannot be serialized with a 500 logged under the request correlation id', async () => {
    const error = await failureOf(client.request(SUBJECT, request({ unserializable: true })));
    expect(error).toMatchObject({ status: 500, code: 'INTERNAL' });
    expect(error.correlationId).toEqual(expect.any(String));
    const logged = services.flatMap((service) => service.logs.entries).find((entry) => String(entry.msg).includes(error.correlationId as string));
    expect(String(logged?.msg)).toContain('gw-corr-big');
    await expect(client.request(SUBJECT, request({ text: 'still up' }))).resolves.toMatchObject({ received: 8 });
  });

  it('answers malformed messages from any NATS client with 400, and stays up', async () => {
    const raw = await connect({ servers: nats.url });
    try {
      const notJson = await raw.request(SUBJECT, new TextEncoder().encode('{not json'), { timeout: 2000 });
      expect(JSON.parse(new TextDecoder().decode(notJson.data))).toMatchObject({ err: { status: 400, code: 'RPC.MALFORMED_MESSAGE' } });
      const strayChunk = natsHeaders();
      strayChunk.set('Funnel-Chunk', '2/3');
      strayChunk.set('Funnel-Upload', 'nobody');
      // Not chunk 1 of an upload: refused, not kept.
      const stray = await raw.request(SUBJECT, new TextEncoder().encode('x'), { timeout: 2000, headers: strayChunk });
      expect(JSON.parse(new TextDecoder().decode(stray.data))).toMatchObject({ err: { status: 400, code: 'RPC.MALFORMED_MESSAGE' } });
    } finally {
      await raw.close();
    }
    await expect(client.request(SUBJECT, request({ text: 'alive' }))).resolves.toMatchObject({ received: 5 });
  });
});
