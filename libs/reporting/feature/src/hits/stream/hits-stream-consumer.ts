import { HitsStream } from '@funnel/contracts';
import type { ConsumerMessages, JsMsg, NatsConnection } from 'nats';
import type { IngestHitsResult } from '../ingest-hits';
import { ensureHitsStream, type HitsStreamSettings } from './hits-stream';

export interface HitsStreamConsumerOptions extends HitsStreamSettings {
  /** A connection of reporting-service's NATS user; never closed here. */
  connection: NatsConnection;
  /** The warehouse's ingest (`(inputs) => ingestHits(hitStore, inputs)`): resolves once the hits are stored. */
  ingest: (inputs: unknown[]) => Promise<IngestHitsResult>;
  /** Hits per ingest at most (default 5000)... */
  batchMax?: number;
  /** ...or those received within this many ms of the batch's first (default 100). */
  batchWaitMs?: number;
  /** A batch the warehouse failed to store is delivered again after this many ms (default 1000). */
  retryDelayMs?: number;
  /** Failures: a batch not stored (retried), hits the warehouse refuses (dropped), a lost pull (resumed). */
  onError?: (error: unknown) => void;
}

/** Hits of the stream the warehouse refuses (never storable): reported, acknowledged, dropped. */
export class StreamHitsRefusedError extends Error {
  constructor(count: number, example: unknown) {
    super(`the warehouse refused ${count} hit(s) of the stream HITS, dropped; e.g. ${JSON.stringify(example)}`);
  }
}

const RESUME_AFTER_MS = 1000;

/**
 * reporting-service's side of the stream HITS (distributed): pulls the edge's hits with its durable
 * consumer (shared by the replicas), ingests them in batches (batchMax hits or batchWaitMs after the
 * first), and acknowledges each hit only after the warehouse stored its batch. A crash before that
 * delivers them again; the warehouse stores a hit id once per account, so nothing is counted twice.
 * A batch the warehouse could not store is delivered again after retryDelayMs, without limit.
 */
export class HitsStreamConsumer {
  private readonly batchMax: number;
  private readonly batchWaitMs: number;
  private readonly retryDelayMs: number;
  private readonly onError: (error: unknown) => void;
  private readonly decoder = new TextDecoder();
  private messages: ConsumerMessages | undefined;
  private loop: Promise<void> | undefined;
  private batch: JsMsg[] = [];
  private timer: NodeJS.Timeout | undefined;
  private storing: Promise<void> = Promise.resolve();
  private closing = false;
  private wake: (() => void) | undefined;
  /** Hits acknowledged after they were stored (or refused), for tests and metrics. */
  acknowledged = 0;

  constructor(private readonly options: HitsStreamConsumerOptions) {
    this.batchMax = options.batchMax ?? 5000;
    this.batchWaitMs = options.batchWaitMs ?? 100;
    this.retryDelayMs = options.retryDelayMs ?? 1000;
    this.onError = options.onError ?? (() => undefined);
  }

  /** Creates (or updates) the stream and the consumer, then consumes until close(). */
  async start(): Promise<void> {
    if (this.loop) return;
    const jsm = await this.options.connection.jetstreamManager();
    await ensureHitsStream(jsm, { maxAckPending: Math.max(20_000, this.batchMax * 4), ...this.options });
    this.loop = this.run();
  }

  /** Stops pulling, stores the batch in hand and waits for it. */
  async close(): Promise<void> {
    this.closing = true;
    this.messages?.stop();
    this.wake?.();
    await this.loop;
    await this.flush();
  }

  private async run(): Promise<void> {
    const js = this.options.connection.jetstream();
    const stream = this.options.stream ?? HitsStream.name;
    const durableName = this.options.durableName ?? HitsStream.durableName;
    while (!this.closing) {
      try {
        const consumer = await js.consumers.get(stream, durableName);
        this.messages = await consumer.consume({ max_messages: this.batchMax, expires: 30_000 });
        if (this.closing) this.messages.stop();
        for await (const message of this.messages) {
          this.batch.push(message);
          if (this.batch.length >= this.batchMax) await this.flush();
          else this.timer ??= setTimeout(() => void this.flush(), this.batchWaitMs);
        }
      } catch (error) {
        if (this.closing) break;
        this.onError(error);
      }
      if (!this.closing) await this.pause(RESUME_AFTER_MS);
    }
  }

  /** Sleeps, cut short by close(). */
  private pause(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }

  /** Stores the batch in hand after the batches before it; resolves once it is stored and acknowledged. */
  private flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    const taken = this.batch;
    this.batch = [];
    if (taken.length > 0) this.storing = this.storing.then(() => this.store(taken));
    return this.storing;
  }

  private async store(messages: JsMsg[]): Promise<void> {
    const inputs: unknown[] = [];
    const decoded: JsMsg[] = [];
    for (const message of messages) {
      try {
        inputs.push(JSON.parse(this.decoder.decode(message.data)));
        decoded.push(message);
      } catch (error) {
        // Not a hit the edge wrote: it can never be stored.
        this.onError(new StreamHitsRefusedError(1, String(error)));
        message.term('not JSON');
      }
    }
    if (decoded.length === 0) return;
    let result: IngestHitsResult;
    try {
      result = await this.options.ingest(inputs);
    } catch (error) {
      this.onError(error);
      for (const message of decoded) message.nak(this.retryDelayMs);
      return;
    }
    if (result.invalidCount > 0) this.onError(new StreamHitsRefusedError(result.invalidCount, result.invalid[0]));
    for (const message of decoded) message.ack();
    this.acknowledged += decoded.length;
  }
}
