import { RpcRequest, ServiceError } from '@funnel/contracts';
import { type NatsConnection, connect } from 'nats';
import type { Logger } from 'pino';
import { createLogger } from '../logging/logger';
import { type RpcMetrics, rpcOutcomeOf } from '../ops/metrics';
import { DEFAULT_RPC_TIMEOUT_MS, type ServiceClient, toServiceError } from './service-client';
import { natsClientOptions } from './nats-options';

export interface NatsServiceClientOptions {
  timeoutMs?: number;
  logger?: Logger;
  metrics?: RpcMetrics;
}

/** Nest's NATS wire format: a request `{ pattern, data, id }`, a reply `{ err?, response?, isDisposed, id }` (JSON). */
interface ReplyPacket {
  err?: unknown;
  response?: unknown;
  isDisposed?: boolean;
}

const encoder = new TextEncoder();

/**
 * nats.js captures a stack trace for every request (to decorate a later timeout); that capture was
 * the largest single cost of the gateway's request path. Timeouts become 503s here and the trace is
 * never shown, so the capture is skipped: the request object is created synchronously inside.
 */
function requestWithoutStackCapture(nc: NatsConnection, subject: string, data: Uint8Array, timeout: number) {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return nc.request(subject, data, { timeout });
  } finally {
    Error.stackTraceLimit = limit;
  }
}
const decoder = new TextDecoder();

/**
 * The gateway's client for services behind NATS. It speaks the wire format of Nest's NATS
 * transport (services stay plain `@MessagePattern` handlers) but uses the nats client's own
 * request(), which shares one reply subscription across requests; ClientNats subscribes and
 * unsubscribes a fresh inbox per request, which roughly halves throughput on the hot path.
 * Connects lazily and reconnects forever; while NATS is away every request is a 503 within the timeout.
 */
export class NatsServiceClient implements ServiceClient {
  private readonly timeoutMs: number;
  private readonly logger: Logger;
  private readonly metrics?: RpcMetrics;
  private connection?: Promise<NatsConnection>;
  private nextId = 0;
  private closed = false;

  constructor(
    private readonly url: string,
    options: NatsServiceClientOptions = {},
  ) {
    this.timeoutMs = options.timeoutMs ?? DEFAULT_RPC_TIMEOUT_MS;
    this.logger = options.logger ?? createLogger('rpc-client');
    this.metrics = options.metrics;
  }

  /** True while connected to a NATS server (not while reconnecting or closed). */
  get connected(): boolean {
    return this.current !== undefined && !this.current.isClosed() && this.reachable;
  }

  private current?: NatsConnection;
  private reachable = false;

  /** Starts connecting now (otherwise the first request does). */
  warmUp(): void {
    this.connect().catch(() => undefined);
  }

  async request<T>(subject: string, payload: RpcRequest): Promise<T> {
    const startedAt = performance.now();
    try {
      const nc = await this.connectWithin(this.timeoutMs);
      // While reconnecting the client would buffer the request until the timeout; answer at once.
      if (!this.reachable) throw ServiceError.unavailable('NATS connection lost; reconnecting');
      const remaining = Math.max(1, this.timeoutMs - (performance.now() - startedAt));
      const message = await requestWithoutStackCapture(nc, subject, encoder.encode(JSON.stringify({ pattern: subject, data: payload, id: String(++this.nextId) })), remaining);
      const reply = JSON.parse(decoder.decode(message.data)) as ReplyPacket;
      if (reply.err !== undefined && reply.err !== null) throw reply.err;
      this.metrics?.observe(subject, 'ok', (performance.now() - startedAt) / 1000);
      return reply.response as T;
    } catch (error) {
      const serviceError = toServiceError(error, subject, payload, this.logger);
      this.metrics?.observe(subject, rpcOutcomeOf(serviceError), (performance.now() - startedAt) / 1000);
      throw serviceError;
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    const pending = this.connection;
    this.connection = undefined;
    const nc = await pending?.catch(() => undefined);
    await nc?.close();
  }

  private connectWithin(timeoutMs: number): Promise<NatsConnection> {
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(ServiceError.unavailable('NATS is unreachable')), timeoutMs);
    });
    return Promise.race([this.connect(), deadline]).finally(() => clearTimeout(timer));
  }

  private connect(): Promise<NatsConnection> {
    if (this.closed) return Promise.reject(ServiceError.unavailable('client closed'));
    if (!this.connection) {
      const { options } = natsClientOptions(this.url);
      this.connection = connect(options)
        .then((nc) => {
          this.current = nc;
          this.reachable = true;
          void this.watch(nc);
          return nc;
        })
        .catch((error: unknown) => {
          // Not reachable now: forget the attempt so the next request tries again.
          this.connection = undefined;
          throw error;
        });
    }
    return this.connection;
  }

  private async watch(nc: NatsConnection): Promise<void> {
    for await (const status of nc.status()) {
      if (status.type === 'disconnect') this.reachable = false;
      if (status.type === 'reconnect') this.reachable = true;
    }
    this.reachable = false;
    if (!this.closed) this.connection = undefined;
  }
}
