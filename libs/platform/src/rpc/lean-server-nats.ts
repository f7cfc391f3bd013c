import { randomUUID } from 'node:crypto';
import { ErrorCodes, type ServiceErrorShape } from '@funnel/contracts';
import { NatsContext, ServerNats } from '@nestjs/microservices';
import { type Msg, type MsgHdrs, type NatsConnection, type NatsError, type Subscription, Empty, headers as natsHeaders, nuid } from 'nats';
import { isObservable, lastValueFrom } from 'rxjs';
import { coalesceWritesPerLoopTurn } from './nats-write-coalescing';
import type { EventPublisher } from './event-publisher';
import {
  ChunkAssembly,
  type ChunkPosition,
  DEFAULT_RPC_MAX_MESSAGE_BYTES,
  MessageTooLargeError,
  UPLOAD_HEADER,
  UPLOAD_TO_HEADER,
  chunkHeaders,
  chunkLimitOf,
  chunkPositionOf,
  splitIntoChunks,
} from './nats-chunking';

type NatsMessage = Parameters<ServerNats['handleMessage']>[1];
type ServerNatsOptions = ConstructorParameters<typeof ServerNats>[0];

export interface LeanServerNatsLimits {
  /** The largest request or reply carried (RPC_MAX_MESSAGE_BYTES); larger ones are refused with 413/507. */
  maxMessageBytes?: number;
  /** How long the chunks of one request may take to arrive, after the first. */
  uploadTimeoutMs?: number;
}

/** Nest's NATS wire format: a request `{ pattern, data, id }`, a reply `{ err?, response?, isDisposed, id }` (JSON). */
interface RequestPacket {
  id?: unknown;
  data?: unknown;
}

interface Upload {
  channel: string;
  subject: string;
  reply: string;
  headers?: MsgHdrs;
  assembly: ChunkAssembly;
  timer: NodeJS.Timeout;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const DEFAULT_UPLOAD_TIMEOUT_MS = 30_000;

/**
 * Nest's NATS server with its reply path made bounded and unbreakable, the wire format unchanged:
 * - handlers are found by a map lookup (the base class first tries JSON.parse on every subject);
 * - a reply is published at once, written once per event-loop turn (see coalesceWritesPerLoopTurn);
 * - requests and replies larger than the server's max payload travel in chunks (see
 *   nats-chunking.ts), up to `maxMessageBytes`; a larger reply is answered with 507
 *   `RPC.REPLY_TOO_LARGE`, a larger request with 413 `RPC.MESSAGE_TOO_LARGE`;
 * - nothing a client sends and nothing a handler returns can end the process: a message that is not
 *   a request is answered with 400, a reply that cannot be serialized or published is logged with the
 *   request's correlation id and answered with a 500.
 *
 * It is also the service's EventPublisher: events go out on the connection that carries its
 * replies, so an event published before a handler returns reaches a subscriber that is also the
 * requester (the gateway) before the reply does: NATS keeps one connection's messages in order.
 */
export class LeanServerNats extends ServerNats implements EventPublisher {
  private connection?: NatsConnection;
  private readonly maxMessageBytes: number;
  private readonly uploadTimeoutMs: number;
  /** Chunked requests being received, by upload id. */
  private readonly uploads = new Map<string, Upload>();
  /** This instance's upload subject per service prefix (`assets._upload.<nuid>`), subscribed on first use. */
  private readonly uploadSubjects = new Map<string, string>();
  private readonly uploadSubscriptions: Subscription[] = [];

  constructor(options: ServerNatsOptions, limits: LeanServerNatsLimits = {}) {
    super(options);
    this.maxMessageBytes = limits.maxMessageBytes ?? DEFAULT_RPC_MAX_MESSAGE_BYTES;
    this.uploadTimeoutMs = limits.uploadTimeoutMs ?? DEFAULT_UPLOAD_TIMEOUT_MS;
  }

  override async createNatsClient() {
    const client = await super.createNatsClient();
    coalesceWritesPerLoopTurn(client as unknown as NatsConnection);
    this.connection = client as unknown as NatsConnection;
    return client;
  }

  override async close(): Promise<void> {
    for (const subscription of this.uploadSubscriptions.splice(0)) subscription.unsubscribe();
    for (const upload of this.uploads.values()) clearTimeout(upload.timer);
    this.uploads.clear();
    this.uploadSubjects.clear();
    await super.close();
  }

  /** Nest's event wire format (`{ pattern, data }`, JSON); dropped when not connected (at most once). */
  publish(subject: string, data: unknown): void {
    const nc = this.connection;
    if (!nc || nc.isClosed()) return;
    try {
      nc.publish(subject, encoder.encode(JSON.stringify({ pattern: subject, data })));
    } catch (error) {
      this.logger.warn(`event on ${subject} not published: ${(error as Error).message}`);
    }
  }

  override getHandlerByPattern(pattern: string) {
    return this.messageHandlers.get(pattern) ?? super.getHandlerByPattern(pattern);
  }

  override async handleMessage(channel: string, natsMsg: NatsMessage): Promise<void> {
    try {
      const handler = natsMsg.reply ? this.messageHandlers.get(channel) : undefined;
      if (!handler || handler.isEventHandler) return await super.handleMessage(channel, natsMsg);
      const position = chunkPositionOf(natsMsg.headers);
      if (position) return this.beginUpload(channel, natsMsg as Msg, position);
      await this.dispatch(channel, natsMsg.subject, natsMsg.reply, natsMsg.headers, natsMsg.data);
    } catch (error) {
      // Nest calls this from an async subscription callback: a throw here would be an unhandled rejection.
      this.logger.error(`message on ${channel} failed: ${(error as Error)?.message ?? String(error)}`);
    }
  }

  /** Runs the handler of a whole request and replies; never throws. */
  private async dispatch(channel: string, subject: string, reply: string, headers: MsgHdrs | undefined, data: Uint8Array): Promise<void> {
    let packet: RequestPacket;
    try {
      packet = JSON.parse(decoder.decode(data)) as RequestPacket;
      if (packet === null || typeof packet !== 'object') throw new Error('not an object');
    } catch {
      this.reply(reply, undefined, { err: malformed('a request must be a JSON object { pattern, data, id }'), isDisposed: true });
      return;
    }
    const id = packet.id;
    const correlationId = correlationIdOf(packet.data);
    const handler = this.messageHandlers.get(channel);
    if (!handler) return;
    const natsCtx = new NatsContext([subject, headers]);
    await this.onProcessingStartHook(this.transportId, natsCtx, async () => {
      let answer: { response?: unknown; err?: unknown };
      try {
        const result: unknown = await handler(packet.data, natsCtx);
        answer = { response: isObservable(result) ? await lastValueFrom(result, { defaultValue: undefined }) : result };
      } catch (error) {
        // The exception filter has turned handler errors into their wire shape already; this is anything else.
        answer = { err: isErrorShape(error) ? error : this.internal(error, 'message handler failed unexpectedly', channel, correlationId) };
      }
      this.reply(reply, id, { ...answer, isDisposed: true }, channel, correlationId);
      this.onProcessingEndHook?.(this.transportId, natsCtx);
    });
  }

  /**
   * Serializes and publishes one reply, in chunks when it is larger than a NATS message may be.
   * A reply that cannot be serialized, or is over the bound, is replaced by its error; a failure to
   * publish is logged. Never throws.
   */
  private reply(replyTo: string, id: unknown, packet: Record<string, unknown>, channel = '', correlationId?: string): void {
    const nc = this.connection;
    if (!nc || nc.isClosed()) return;
    let data: Uint8Array;
    try {
      data = encoder.encode(JSON.stringify({ ...packet, id }));
    } catch (error) {
      const err = this.internal(error, 'reply could not be serialized', channel, correlationId);
      data = encoder.encode(JSON.stringify({ err, isDisposed: true, id }));
    }
    if (data.length > this.maxMessageBytes) {
      this.logger.warn(`reply on ${channel} of ${data.length} bytes exceeds RPC_MAX_MESSAGE_BYTES (${this.maxMessageBytes}); correlationId=${correlationId}`);
      const err: ServiceErrorShape = {
        status: 507,
        code: ErrorCodes.REPLY_TOO_LARGE,
        message: `the answer is larger than ${this.maxMessageBytes} bytes; ask for fewer items`,
      };
      data = encoder.encode(JSON.stringify({ err, isDisposed: true, id }));
    }
    try {
      const limit = chunkLimitOf(nc);
      if (data.length <= limit) {
        nc.publish(replyTo, data);
        return;
      }
      const chunks = splitIntoChunks(data, limit);
      chunks.forEach((chunk, i) => nc.publish(replyTo, chunk, { headers: chunkHeaders(i + 1, chunks.length) }));
    } catch (error) {
      const err = this.internal(error, 'reply could not be published', channel, correlationId);
      try {
        nc.publish(replyTo, encoder.encode(JSON.stringify({ err, isDisposed: true, id })));
      } catch {
        // The connection is gone: the caller times out with a 503.
      }
    }
  }

  /** Logs an unexpected failure under a fresh correlation id and returns the bare 500 that names it. */
  private internal(error: unknown, what: string, channel: string, requestCorrelationId?: string): ServiceErrorShape {
    const correlationId = randomUUID();
    const reason = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    this.logger.error(`${what} on ${channel}: ${reason}; correlationId=${correlationId} requestCorrelationId=${requestCorrelationId}`);
    return { status: 500, code: 'INTERNAL', message: 'internal error', correlationId };
  }

  /** The first chunk of a request: remember it and tell the caller where to send the rest. */
  private beginUpload(channel: string, message: Msg, position: ChunkPosition): void {
    const uploadId = message.headers?.get(UPLOAD_HEADER);
    if (!uploadId || position.index !== 1 || this.uploads.has(uploadId)) {
      this.reply(message.reply as string, undefined, { err: malformed('a chunked request starts with chunk 1 of a new upload id'), isDisposed: true });
      return;
    }
    const assembly = new ChunkAssembly(position.count, this.maxMessageBytes);
    try {
      assembly.add(1, message.data);
    } catch {
      this.reply(message.reply as string, undefined, { err: tooLarge(this.maxMessageBytes), isDisposed: true });
      return;
    }
    const timer = setTimeout(() => this.uploads.delete(uploadId), this.uploadTimeoutMs);
    timer.unref();
    this.uploads.set(uploadId, { channel, subject: message.subject, reply: message.reply as string, headers: message.headers, assembly, timer });
    const headers = natsHeaders();
    headers.set(UPLOAD_TO_HEADER, this.uploadSubjectFor(channel));
    message.respond(Empty, { headers });
  }

  private onUploadChunk(error: NatsError | null, message: Msg): void {
    if (error) return;
    const uploadId = message.headers?.get(UPLOAD_HEADER) ?? '';
    const upload = this.uploads.get(uploadId);
    const position = chunkPositionOf(message.headers);
    if (!upload || !position) return; // expired or unknown: the caller times out
    let whole: Uint8Array | undefined;
    try {
      whole = upload.assembly.add(position.index, message.data);
    } catch (failure) {
      this.endUpload(uploadId, upload);
      const err = failure instanceof MessageTooLargeError ? tooLarge(this.maxMessageBytes) : malformed('chunks do not add up');
      this.reply(upload.reply, undefined, { err, isDisposed: true }, upload.channel);
      return;
    }
    if (!whole) return;
    this.endUpload(uploadId, upload);
    void this.dispatch(upload.channel, upload.subject, upload.reply, upload.headers, whole).catch((failure: unknown) => {
      this.logger.error(`chunked request on ${upload.channel} failed: ${(failure as Error)?.message ?? String(failure)}`);
    });
  }

  private endUpload(uploadId: string, upload: Upload): void {
    clearTimeout(upload.timer);
    this.uploads.delete(uploadId);
  }

  /** `<service>._upload.<instance>`: inside the service's own subjects, and reached by this instance alone. */
  private uploadSubjectFor(channel: string): string {
    const prefix = channel.split('.', 1)[0];
    let subject = this.uploadSubjects.get(prefix);
    if (!subject) {
      subject = `${prefix}._upload.${nuid.next()}`;
      const subscription = (this.connection as NatsConnection).subscribe(subject, { callback: (error, message) => this.onUploadChunk(error, message) });
      this.uploadSubscriptions.push(subscription);
      this.uploadSubjects.set(prefix, subject);
    }
    return subject;
  }
}

function correlationIdOf(data: unknown): string | undefined {
  const id = (data as { context?: { correlationId?: unknown } } | null)?.context?.correlationId;
  return typeof id === 'string' ? id : undefined;
}

function isErrorShape(value: unknown): value is ServiceErrorShape {
  const shape = value as Partial<ServiceErrorShape> | null;
  return !!shape && typeof shape === 'object' && typeof shape.status === 'number' && typeof shape.code === 'string';
}

function malformed(message: string): ServiceErrorShape {
  return { status: 400, code: ErrorCodes.MALFORMED_MESSAGE, message };
}

function tooLarge(maxBytes: number): ServiceErrorShape {
  return { status: 413, code: ErrorCodes.MESSAGE_TOO_LARGE, message: `the request is larger than ${maxBytes} bytes` };
}
