import { ErrorCodes, RpcRequest, ServiceError } from '@funnel/contracts';
import { ErrorCode as NatsErrorCode, type Msg, type NatsConnection, type NatsError, type Subscription, connect, createInbox, nuid } from 'nats';
import type { Logger } from 'pino';
import { createLogger } from '../logging/logger';
import { type RpcMetrics, rpcOutcomeOf } from '../ops/metrics';
import { DEFAULT_RPC_TIMEOUT_MS, type RequestOptions, type ServiceClient, toServiceError } from './service-client';
import { type NatsAccess, natsAccessOptions, natsClientOptions } from './nats-options';
import type { EventHandler } from './event-publisher';
import { coalesceWritesPerLoopTurn } from './nats-write-coalescing';
import { ChunkAssembly, DEFAULT_RPC_MAX_MESSAGE_BYTES, UPLOAD_TO_HEADER, chunkHeaders, chunkLimitOf, chunkPositionOf, splitIntoChunks } from './nats-chunking';

export interface NatsServiceClientOptions {
  timeoutMs?: number;
  logger?: Logger;
  metrics?: RpcMetrics;
  /** The largest request sent or reply accepted (RPC_MAX_MESSAGE_BYTES); larger ones are a 413/507. */
  maxMessageBytes?: number;
  /** Credentials, TLS, and the prefix of the reply inbox (`_INBOX` by default). */
  access?: NatsAccess;
}

/** Nest's NATS wire format: a request `{ pattern, data, id }`, a reply `{ err?, response?, isDisposed, id }` (JSON). */
interface ReplyPacket {
  err?: unknown;
  response?: unknown;
  isDisposed?: boolean;
}

interface PendingRequest {
  resolve(data: Uint8Array): void;
  reject(error: unknown): void;
  timer: NodeJS.Timeout;
  /** Chunks 2..n of a chunked request, sent once the receiving instance names its upload subject. */
  upload?: { chunks: Uint8Array[]; uploadId: string; subject: string };
  /** A chunked reply being received. */
  assembly?: ChunkAssembly;
}

/** A request that got no answer from NATS; its code classifies it as "unavailable" (503). */
class NatsRequestFailure extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * The gateway's client for services behind NATS. It speaks the wire format of Nest's NATS
 * transport (services stay plain `@MessagePattern` handlers) over one reply subscription of its
 * own: every request publishes with the reply subject `<inbox>.<id>` and waits in a map.
 * Nest's ClientNats subscribes to a fresh inbox per request, and nats.js's request() builds two
 * error objects per call (a trace it never shows, and a "cancelled" rejection after every
 * success); either roughly halves throughput on the gateway's hot path.
 * Connects lazily and reconnects forever; a lost connection fails the waiting requests at once,
 * and while NATS is away every request is a 503.
 */
export class NatsServiceClient implements ServiceClient {
  private readonly timeoutMs: number;
  private readonly logger: Logger;
  private readonly metrics?: RpcMetrics;
  private readonly maxMessageBytes: number;
  private readonly access: NatsAccess;
  private readonly pending = new Map<string, PendingRequest>();
  private connection?: Promise<NatsConnection>;
  private current?: NatsConnection;
  /** `<inbox>.` of the current connection's reply subscription. */
  private replyPrefix = '';
  private reachable = false;
  private nextId = 0;
  private closed = false;
  /** Event subscribers by subject; each subject has one NATS subscription on the current connection. */
  private readonly listeners = new Map<string, Set<{ handler: EventHandler }>>();
  private readonly eventSubscriptions = new Map<string, Subscription>();

  constructor(
    private readonly url: string,
    options: NatsServiceClientOptions = {},
  ) {
    this.timeoutMs = options.timeoutMs ?? DEFAULT_RPC_TIMEOUT_MS;
    this.logger = options.logger ?? createLogger('rpc-client');
    this.metrics = options.metrics;
    this.maxMessageBytes = options.maxMessageBytes ?? DEFAULT_RPC_MAX_MESSAGE_BYTES;
    this.access = options.access ?? {};
  }

  /** True while connected to a NATS server (not while reconnecting or closed). */
  get connected(): boolean {
    return this.current !== undefined && !this.current.isClosed() && this.reachable;
  }

  /** Starts connecting now (otherwise the first request does). */
  warmUp(): void {
    this.connect().catch(() => undefined);
  }

  async request<T>(subject: string, payload: RpcRequest, options: RequestOptions = {}): Promise<T> {
    const startedAt = performance.now();
    const timeoutMs = options.timeoutMs ?? this.timeoutMs;
    try {
      const nc = await this.connectWithin(timeoutMs);
      // While reconnecting the client would buffer the request until the timeout; answer at once.
      if (!this.reachable) throw ServiceError.unavailable('NATS connection lost; reconnecting');
      const remaining = Math.max(1, timeoutMs - (performance.now() - startedAt));
      const id = String(++this.nextId);
      const message = encoder.encode(JSON.stringify({ pattern: subject, data: payload, id }));
      if (message.length > this.maxMessageBytes) {
        throw new ServiceError(413, ErrorCodes.MESSAGE_TOO_LARGE, `the request is larger than ${this.maxMessageBytes} bytes`);
      }
      const data = await new Promise<Uint8Array>((resolve, reject) => {
        const timer = setTimeout(() => {
          this.pending.delete(id);
          reject(new NatsRequestFailure(NatsErrorCode.Timeout, `no reply on ${subject} within ${Math.round(remaining)} ms`));
        }, remaining);
        const request: PendingRequest = { resolve, reject, timer };
        this.pending.set(id, request);
        const reply = this.replyPrefix + id;
        const limit = chunkLimitOf(nc);
        if (message.length <= limit) {
          nc.publish(subject, message, { reply });
          return;
        }
        // Chunk 1 goes to the queue group; the instance that takes it names where chunks 2..n go (see onReply).
        const chunks = splitIntoChunks(message, limit);
        request.upload = { chunks, uploadId: nuid.next(), subject };
        nc.publish(subject, chunks[0], { reply, headers: chunkHeaders(1, chunks.length, request.upload.uploadId) });
      });
      const reply = JSON.parse(decoder.decode(data)) as ReplyPacket;
      if (reply.err !== undefined && reply.err !== null) throw reply.err;
      this.metrics?.observe(subject, 'ok', (performance.now() - startedAt) / 1000);
      return reply.response as T;
    } catch (error) {
      const serviceError = toServiceError(error, subject, payload, this.logger);
      this.metrics?.observe(subject, rpcOutcomeOf(serviceError), (performance.now() - startedAt) / 1000);
      throw serviceError;
    }
  }

  /**
   * Events in Nest's wire format (`{ pattern, data }`, JSON) published on `subject`. The NATS
   * subscription is made on the current connection, and again on every new one; nats.js renews it
   * itself across reconnects of one connection. Subscribing starts connecting, so events arrive
   * before the first request.
   */
  subscribe(subject: string, handler: EventHandler): () => void {
    const listener = { handler };
    let listeners = this.listeners.get(subject);
    if (!listeners) {
      listeners = new Set();
      this.listeners.set(subject, listeners);
      if (this.current && !this.current.isClosed()) this.subscribeEvents(this.current, subject);
    }
    listeners.add(listener);
    if (!this.closed) this.warmUp();
    const set = listeners;
    return () => {
      set.delete(listener);
      if (set.size > 0 || this.listeners.get(subject) !== set) return;
      this.listeners.delete(subject);
      this.eventSubscriptions.get(subject)?.unsubscribe();
      this.eventSubscriptions.delete(subject);
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    const pending = this.connection;
    this.connection = undefined;
    const nc = await pending?.catch(() => undefined);
    await nc?.close();
    this.failPending('client closed');
  }

  private onReply(error: NatsError | null, message: Msg): void {
    if (error) return; // the subscription itself failed (permissions): the waiting requests time out
    const id = message.subject.slice(this.replyPrefix.length);
    const request = this.pending.get(id);
    if (!request) return; // answered after its timeout
    const headers = message.headers;
    if (headers) {
      const uploadTo = headers.get(UPLOAD_TO_HEADER);
      if (uploadTo) return this.sendRemainingChunks(request, uploadTo, message.subject);
      const position = chunkPositionOf(headers);
      if (position) {
        request.assembly ??= new ChunkAssembly(position.count, this.maxMessageBytes);
        let whole: Uint8Array | undefined;
        try {
          whole = request.assembly.add(position.index, message.data);
        } catch {
          this.settle(id, request);
          request.reject(new ServiceError(507, ErrorCodes.REPLY_TOO_LARGE, `the answer is larger than ${this.maxMessageBytes} bytes`));
          return;
        }
        if (whole) {
          this.settle(id, request);
          request.resolve(whole);
        }
        return;
      }
    }
    this.settle(id, request);
    // An empty message with status 503 is the server saying no service subscribes to the subject.
    if (message.data.length === 0 && headers?.code === 503) {
      request.reject(new NatsRequestFailure(NatsErrorCode.NoResponders, 'no service answers this subject'));
    } else {
      request.resolve(message.data);
    }
  }

  private settle(id: string, request: PendingRequest): void {
    this.pending.delete(id);
    clearTimeout(request.timer);
  }

  /** The instance that took chunk 1 named its upload subject: send it chunks 2..n, replies still to `reply`. */
  private sendRemainingChunks(request: PendingRequest, uploadTo: string, reply: string): void {
    const upload = request.upload;
    const nc = this.current;
    if (!upload || !nc) return;
    request.upload = undefined;
    // Only an instance of the service the request went to may receive its chunks.
    if (!uploadTo.startsWith(`${upload.subject.split('.', 1)[0]}.`)) return;
    const { chunks, uploadId } = upload;
    for (let i = 1; i < chunks.length; i++) nc.publish(uploadTo, chunks[i], { reply, headers: chunkHeaders(i + 1, chunks.length, uploadId) });
  }

  private subscribeEvents(nc: NatsConnection, subject: string): void {
    const previous = this.eventSubscriptions.get(subject);
    // One of a closed connection: nothing left to undo.
    if (previous && !previous.isClosed()) previous.unsubscribe();
    const subscription = nc.subscribe(subject, { callback: (error, message) => this.onEvent(subject, error, message) });
    this.eventSubscriptions.set(subject, subscription);
  }

  private onEvent(subject: string, error: NatsError | null, message: Msg): void {
    if (error) return;
    let data: unknown;
    try {
      data = (JSON.parse(decoder.decode(message.data)) as { data?: unknown }).data;
    } catch {
      this.logger.warn({ subject }, 'event is not JSON; ignored');
      return;
    }
    for (const listener of [...(this.listeners.get(subject) ?? [])]) {
      try {
        listener.handler(data);
      } catch (failure) {
        this.logger.error({ err: failure, subject }, 'event handler failed');
      }
    }
  }

  private failPending(reason: string): void {
    for (const request of this.pending.values()) {
      clearTimeout(request.timer);
      request.reject(new NatsRequestFailure(NatsErrorCode.Disconnect, reason));
    }
    this.pending.clear();
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
      const { options } = natsClientOptions(this.url, natsAccessOptions(this.access));
      this.connection = connect(options)
        .then((nc) => {
          coalesceWritesPerLoopTurn(nc);
          this.replyPrefix = `${createInbox(this.access.inboxPrefix)}.`;
          nc.subscribe(`${this.replyPrefix}*`, { callback: (error, message) => this.onReply(error, message) });
          for (const subject of this.listeners.keys()) this.subscribeEvents(nc, subject);
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
      if (status.type === 'disconnect') {
        this.reachable = false;
        // Their requests or replies may be lost with the connection: answer them now, not at the timeout.
        this.failPending('NATS connection lost');
      }
      if (status.type === 'reconnect') this.reachable = true;
    }
    this.reachable = false;
    this.failPending('NATS connection closed');
    if (!this.closed) this.connection = undefined;
  }
}
