import { type MsgHdrs, type NatsConnection, type Subscription, createInbox } from 'nats';

export interface JetStreamPipelineOptions<T> {
  /** Prefix of the reply inbox the acknowledgements come to (the connection's permissions allow `<prefix>.>`). */
  inboxPrefix?: string;
  /** Publishes awaiting their acknowledgement at most (default 4096); callers wait for `room()` while that many are. */
  maxInFlight?: number;
  /** A publish not acknowledged within this fails the pipeline (default 10 s). */
  ackTimeoutMs?: number;
  /** Called in publish order with each message's tag once it and every earlier one are acknowledged. */
  onAcked: (tag: T) => void;
  /** Called once when the pipeline fails (a refused or unanswered publish, or close()): nothing in flight will be reported acknowledged. */
  onFailed?: (error: Error) => void;
  /** The stream every message must be stored in (`Nats-Expected-Stream`): JetStream refuses a message whose subject another stream holds. */
  expectedStream?: string;
}

const DECODER = new TextDecoder();
/** What nats.js refuses in a header value (MsgHdrsImpl.validHeaderValue). */
const INVALID_HEADER_VALUE = /[\r\n]/;

/** A header value as nats.js takes it: trimmed, without CR or LF. */
function headerValue(value: string): string {
  if (INVALID_HEADER_VALUE.test(value)) throw new JetStreamPublishError('invalid header value - \\r and \\n are not allowed.');
  return value.trim();
}

/**
 * The headers of a JetStream publish (`Nats-Msg-Id` and `Nats-Expected-Stream`, each when given), as
 * nats.js's `headers()` with these set encodes them, byte for byte; undefined without either. Its
 * publish reads only `encode()` of the headers: one string into Node's buffer pool rather than
 * MsgHdrs's Map, canonical names, key searches and a TextEncoder array per message (about 2 µs).
 */
export function publishHeaders(msgId: string | undefined, expectedStream: string | undefined): MsgHdrs | undefined {
  if (msgId === undefined && !expectedStream) return undefined;
  const text = `NATS/1.0${msgId !== undefined ? `\r\nNats-Msg-Id: ${headerValue(msgId)}` : ''}${expectedStream ? `\r\nNats-Expected-Stream: ${headerValue(expectedStream)}` : ''}\r\n\r\n`;
  const bytes = Buffer.from(text);
  return { encode: () => bytes } as unknown as MsgHdrs;
}

interface InFlight<T> {
  tag: T;
  sentAt: number;
  acked: boolean;
}

/** Why the pipeline stopped accepting publishes: a refused or unanswered publish, or close(). */
export class JetStreamPublishError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'JetStreamPublishError';
  }
}

/**
 * Publishes to JetStream with many messages in flight: each goes out with a reply subject of its
 * own on one inbox subscription, the acknowledgements (PubAck) are matched to it, and `onAcked`
 * reports the highest contiguous acknowledged message, in publish order. nats.js's
 * `jetstream().publish()` makes a request (a timer and error objects) per message, which caps a
 * pipeline at a fraction of this. The first refusal or missing acknowledgement fails the pipeline:
 * nothing after it counts as acknowledged, and every later publish throws.
 */
export class JetStreamPipeline<T> {
  private readonly inbox: string;
  private readonly subscription: Subscription;
  private readonly queue: (InFlight<T> | undefined)[] = [];
  /** Number of the first entry of `queue` (reply tokens count from 0). */
  private firstNumber = 0;
  private head = 0;
  private failure: Error | undefined;
  private readonly maxInFlight: number;
  private readonly ackTimeoutMs: number;
  private readonly watchdog: NodeJS.Timeout;
  private spaceWaiters: (() => void)[] = [];
  private settledWaiters: (() => void)[] = [];
  /** Messages acknowledged as new, and as duplicates JetStream dropped (already in its window). */
  readonly stats = { stored: 0, duplicates: 0 };

  constructor(
    private readonly nc: NatsConnection,
    private readonly options: JetStreamPipelineOptions<T>,
  ) {
    this.inbox = createInbox(options.inboxPrefix);
    this.maxInFlight = Math.max(1, options.maxInFlight ?? 4096);
    this.ackTimeoutMs = options.ackTimeoutMs ?? 10_000;
    this.subscription = nc.subscribe(`${this.inbox}.*`, {
      callback: (error, message) => {
        if (error) return this.fail(new JetStreamPublishError(`acknowledgements stopped: ${error.message}`));
        const number = Number(message.subject.slice(this.inbox.length + 1));
        this.acknowledge(number, message.data, message.headers);
      },
    });
    this.watchdog = setInterval(() => this.checkTimeouts(), Math.min(1000, Math.max(50, this.ackTimeoutMs / 4)));
    this.watchdog.unref();
  }

  get inFlight(): number {
    return this.queue.length - this.head;
  }

  get failed(): Error | undefined {
    return this.failure;
  }

  /** Whether another message may go out now (fewer than `maxInFlight` await acknowledgement), or the pipeline failed. */
  get hasRoom(): boolean {
    return this.inFlight < this.maxInFlight || this.failure !== undefined;
  }

  /** Resolves once `hasRoom`. */
  async room(): Promise<void> {
    while (!this.hasRoom) await new Promise<void>((resolve) => this.spaceWaiters.push(resolve));
  }

  /**
   * Sends one message (Nats-Msg-Id = `msgId` when given, so JetStream drops a copy within its
   * duplicate window; a KV put gives none); throws once the pipeline has failed. Synchronous, so a
   * caller sending a batch in one go has nats.js write it in one go (it flushes after each
   * microtask checkpoint): wait for `room()` only when `hasRoom` is false.
   */
  publish(subject: string, data: Uint8Array, msgId: string | undefined, tag: T): void {
    if (this.failure) throw this.failure;
    const h = publishHeaders(msgId, this.options.expectedStream);
    const number = this.firstNumber + this.queue.length;
    this.queue.push({ tag, sentAt: Date.now(), acked: false });
    try {
      this.nc.publish(subject, data, { reply: `${this.inbox}.${number}`, headers: h });
    } catch (error) {
      this.fail(new JetStreamPublishError(`publish to ${subject} failed: ${(error as Error).message}`));
      throw this.failure;
    }
  }

  /** Resolves when nothing is in flight any more (every publish acknowledged, or the pipeline failed), or after `timeoutMs`. */
  async settle(timeoutMs: number): Promise<void> {
    if (this.inFlight === 0 || this.failure) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, timeoutMs);
      this.settledWaiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  /** Stops listening for acknowledgements; what is still in flight stays unacknowledged. */
  close(): void {
    clearInterval(this.watchdog);
    if (!this.failure) this.fail(new JetStreamPublishError('the pipeline is closed'));
    if (!this.nc.isClosed()) this.subscription.unsubscribe();
  }

  private acknowledge(number: number, data: Uint8Array, hdrs: MsgHdrs | undefined): void {
    if (this.failure) return;
    const entry = this.queue[number - this.firstNumber];
    if (!entry || entry.acked) return;
    if (hdrs?.code && hdrs.code >= 300) {
      // 503: no stream listens on the subject (it was deleted, or JetStream is off).
      return this.fail(new JetStreamPublishError(`JetStream did not store message ${number}: ${hdrs.code} ${hdrs.description || 'no responders'}`));
    }
    let ack: { error?: { code?: number; description?: string }; duplicate?: boolean };
    try {
      ack = JSON.parse(DECODER.decode(data));
    } catch {
      return this.fail(new JetStreamPublishError(`unreadable acknowledgement of message ${number}`));
    }
    if (ack.error) return this.fail(new JetStreamPublishError(`JetStream refused message ${number}: ${ack.error.description ?? ack.error.code}`));
    entry.acked = true;
    if (ack.duplicate) this.stats.duplicates++;
    else this.stats.stored++;
    this.advance();
  }

  /** Reports the contiguous acknowledged prefix and frees its room. */
  private advance(): void {
    let last: InFlight<T> | undefined;
    while (this.head < this.queue.length && this.queue[this.head]!.acked) {
      last = this.queue[this.head];
      this.queue[this.head++] = undefined;
    }
    if (!last) return;
    // Compact now and then rather than shifting on every acknowledgement.
    if (this.head > 1024 && this.head * 2 > this.queue.length) {
      this.queue.splice(0, this.head);
      this.firstNumber += this.head;
      this.head = 0;
    }
    this.options.onAcked(last.tag);
    this.wakeWaiters();
  }

  private checkTimeouts(): void {
    const oldest = this.queue[this.head];
    if (!this.failure && oldest && Date.now() - oldest.sentAt > this.ackTimeoutMs) {
      this.fail(new JetStreamPublishError(`no acknowledgement from JetStream within ${this.ackTimeoutMs} ms`));
    }
  }

  private fail(error: Error): void {
    if (this.failure) return;
    this.failure = error;
    this.options.onFailed?.(error);
    this.wakeWaiters();
  }

  private wakeWaiters(): void {
    if (this.inFlight < this.maxInFlight || this.failure) {
      const waiters = this.spaceWaiters;
      this.spaceWaiters = [];
      for (const wake of waiters) wake();
    }
    if (this.inFlight === 0 || this.failure) {
      const waiters = this.settledWaiters;
      this.settledWaiters = [];
      for (const wake of waiters) wake();
    }
  }
}
