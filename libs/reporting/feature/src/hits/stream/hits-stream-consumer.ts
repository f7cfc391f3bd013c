import type { ConsumerMessages, JsMsg, NatsConnection } from 'nats';
import type { IngestHitsResult } from '../ingest-hits';
import { ensureHitsStream, hitsStreamsOf, type HitsStreamSettings } from './hits-stream';

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
    super(`the warehouse refused ${count} hit(s) of the hits streams (HITS_BATCHES, HITS), dropped; e.g. ${JSON.stringify(example)}`);
  }
}

const RESUME_AFTER_MS = 1000;

/** A delivered message and its hits (one, or a batch's). */
interface Delivered {
  message: JsMsg;
  hits: unknown[];
}

/**
 * reporting-service's side of the edge's hits (distributed): pulls them with its durable consumers
 * (shared by the replicas) of the streams HITS (one hit a message: edges before hit batches) and
 * HITS_BATCHES (a JSON array of one request's hits a message), ingests them in batches (batchMax
 * hits at most, a message's hits never split, or batchWaitMs after the first), and acknowledges each
 * message only after the warehouse stored its batch. A crash before that delivers them again; the
 * warehouse stores a hit id once per account, so nothing is counted twice. A batch the warehouse
 * could not store is delivered again after retryDelayMs, without limit. A message that is not JSON
 * is dropped (reported), and hits the warehouse refuses are dropped (reported) without the others
 * of their message.
 */
export class HitsStreamConsumer {
  private readonly batchMax: number;
  private readonly batchWaitMs: number;
  private readonly retryDelayMs: number;
  private readonly onError: (error: unknown) => void;
  private readonly decoder = new TextDecoder();
  private readonly messages = new Set<ConsumerMessages>();
  private loops: Promise<void>[] | undefined;
  private batch: Delivered[] = [];
  private batchHits = 0;
  private timer: NodeJS.Timeout | undefined;
  private storing: Promise<void> = Promise.resolve();
  private closing = false;
  private readonly wakes = new Set<() => void>();
  /** Hits acknowledged after they were stored (or refused), for tests and metrics. */
  acknowledged = 0;

  constructor(private readonly options: HitsStreamConsumerOptions) {
    this.batchMax = options.batchMax ?? 5000;
    this.batchWaitMs = options.batchWaitMs ?? 100;
    this.retryDelayMs = options.retryDelayMs ?? 1000;
    this.onError = options.onError ?? (() => undefined);
  }

  /** Creates (or updates) the streams and their consumers, then consumes until close(). */
  async start(): Promise<void> {
    if (this.loops) return;
    const jsm = await this.options.connection.jetstreamManager();
    await ensureHitsStream(jsm, { maxAckPending: Math.max(20_000, this.batchMax * 4), ...this.options });
    this.loops = hitsStreamsOf(this.options).map(({ stream, durableName }) => this.run(stream, durableName));
  }

  /** Stops pulling, stores the batch in hand and waits for it. */
  async close(): Promise<void> {
    this.closing = true;
    for (const messages of this.messages) messages.stop();
    for (const wake of this.wakes) wake();
    await Promise.all(this.loops ?? []);
    await this.flush();
  }

  private async run(stream: string, durableName: string): Promise<void> {
    const js = this.options.connection.jetstream();
    while (!this.closing) {
      let messages: ConsumerMessages | undefined;
      try {
        const consumer = await js.consumers.get(stream, durableName);
        messages = await consumer.consume({ max_messages: this.batchMax, expires: 30_000 });
        this.messages.add(messages);
        if (this.closing) messages.stop();
        for await (const message of messages) {
          const hits = this.hitsOf(message);
          if (!hits) continue;
          // Taken and pushed in one turn (the other stream's loop pushes too), then waited for.
          let stored: Promise<void> | undefined;
          if (this.batch.length > 0 && this.batchHits + hits.length > this.batchMax) stored = this.flush();
          this.batch.push({ message, hits });
          this.batchHits += hits.length;
          if (this.batchHits >= this.batchMax) stored = this.flush();
          else this.timer ??= setTimeout(() => void this.flush(), this.batchWaitMs);
          if (stored) await stored;
        }
      } catch (error) {
        if (this.closing) break;
        this.onError(error);
      } finally {
        if (messages) this.messages.delete(messages);
      }
      if (!this.closing) await this.pause(RESUME_AFTER_MS);
    }
  }

  /** A message's hits: a batch's elements, or the one hit; undefined (the message dropped) when it is not JSON. */
  private hitsOf(message: JsMsg): unknown[] | undefined {
    let value: unknown;
    try {
      value = JSON.parse(this.decoder.decode(message.data));
    } catch (error) {
      // Not what the edge writes: it can never be stored.
      this.onError(new StreamHitsRefusedError(1, String(error)));
      message.term();
      return undefined;
    }
    return Array.isArray(value) ? value : [value];
  }

  /** Sleeps, cut short by close(). */
  private pause(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        this.wakes.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      this.wakes.add(wake);
    });
  }

  /** Stores the batch in hand after the batches before it; resolves once it is stored and acknowledged. */
  private flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    const taken = this.batch;
    this.batch = [];
    this.batchHits = 0;
    if (taken.length > 0) this.storing = this.storing.then(() => this.store(taken));
    return this.storing;
  }

  private async store(delivered: Delivered[]): Promise<void> {
    const inputs = delivered.flatMap(({ hits }) => hits);
    if (inputs.length > 0) {
      let result: IngestHitsResult;
      try {
        result = await this.options.ingest(inputs);
      } catch (error) {
        this.onError(error);
        for (const { message } of delivered) message.nak(this.retryDelayMs);
        return;
      }
      if (result.invalidCount > 0) this.onError(new StreamHitsRefusedError(result.invalidCount, result.invalid[0]));
    }
    for (const { message } of delivered) message.ack();
    this.acknowledged += inputs.length;
  }
}
