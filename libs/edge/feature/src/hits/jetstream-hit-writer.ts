import { HitsStream } from '@funnel/contracts';
import { JetStreamPipeline } from '@funnel/platform';
import type { Hit } from '@funnel/reporting-domain';
import type { NatsConnection } from 'nats';
import type { HitBatchWriter } from './hit-sink';

export interface JetStreamHitWriterOptions {
  /** A connection of the edge's NATS user (publish to `hits.>`, acknowledgements on its inboxes); never closed here. */
  connection: NatsConnection;
  /** Default HitsStream.name (`HITS`). */
  stream?: string;
  /** Default HitsStream.subjectPrefix (`hits`): a hit goes to `<prefix>.<accountId>`. */
  subjectPrefix?: string;
  /** How long a publish waits for the stream's acknowledgement (default 5000). */
  publishTimeoutMs?: number;
  /** Hits published and not yet acknowledged at most (default 4096): a batch beyond waits for room. */
  maxInFlight?: number;
  /** The prefix of the inbox the acknowledgements come to (default the connection's own `inboxPrefix`, which its user may subscribe to). */
  inboxPrefix?: string;
}

const ACCOUNT_TOKEN = /^[A-Za-z0-9_-]+$/;

/** A batch published and waiting for the acknowledgement of its last message. */
interface PendingBatch {
  last: number;
  resolve: () => void;
  reject: (error: Error) => void;
}

/** One publish pipeline and the batches waiting on it; replaced by a new one once it failed. */
interface Generation {
  pipeline: JetStreamPipeline<number>;
  published: number;
  pending: PendingBatch[];
}

/**
 * Distributed: each hit is one message of the stream HITS (which reporting-service creates and
 * consumes), on `hits.<accountId>` with `Nats-Msg-Id` = hitId so that a hit published again within
 * the stream's duplicate window is stored once. The messages go out through one JetStreamPipeline
 * (one inbox subscription, every publish's acknowledgement matched by its reply subject, many in
 * flight at once), so a hit costs one publish rather than one request. A batch is durable when the
 * stream acknowledged every message of it and of the batches before it (acknowledgements are
 * reported in publish order). A refused or unanswered publish fails the pipeline: every batch
 * waiting on it is rejected (its redirect is not answered as a success; the edge may record it
 * again, stored once), and the next batch opens a new pipeline. The edge needs no JetStream API
 * rights: it only publishes and receives the acknowledgements on its inboxes.
 */
export class JetStreamHitWriter implements HitBatchWriter {
  private readonly stream: string;
  private readonly subjectPrefix: string;
  private readonly publishTimeoutMs: number;
  private readonly encoder = new TextEncoder();
  private generation: Generation | undefined;
  private closed = false;

  constructor(private readonly options: JetStreamHitWriterOptions) {
    this.stream = options.stream ?? HitsStream.name;
    this.subjectPrefix = options.subjectPrefix ?? HitsStream.subjectPrefix;
    this.publishTimeoutMs = options.publishTimeoutMs ?? 5000;
  }

  async write(hits: Hit[]): Promise<void> {
    if (hits.length === 0) return;
    if (this.closed) throw new Error('the hit writer is closed');
    const messages = hits.map((hit) => {
      if (!ACCOUNT_TOKEN.test(hit.accountId)) throw new Error(`hit ${hit.hitId}: account ${JSON.stringify(hit.accountId)} is not a subject token`);
      return { subject: `${this.subjectPrefix}.${hit.accountId}`, data: this.encoder.encode(JSON.stringify(hit)), msgId: hit.hitId };
    });
    const generation = this.current();
    for (const message of messages) {
      if (!generation.pipeline.hasRoom) await generation.pipeline.room();
      // A pipeline that failed meanwhile threw away what this batch sent: the batch fails with it.
      if (generation.pipeline.failed) throw generation.pipeline.failed;
      generation.pipeline.publish(message.subject, message.data, message.msgId, generation.published++);
    }
    const last = generation.published - 1;
    await new Promise<void>((resolve, reject) => generation.pending.push({ last, resolve, reject }));
  }

  /** Stops listening for acknowledgements: batches still waiting are rejected. */
  close(): void {
    this.closed = true;
    this.generation?.pipeline.close();
    this.generation = undefined;
  }

  /** The open pipeline, or a new one when there is none or it failed. */
  private current(): Generation {
    if (this.generation && !this.generation.pipeline.failed) return this.generation;
    this.generation?.pipeline.close();
    const generation: Generation = { pipeline: undefined as unknown as JetStreamPipeline<number>, published: 0, pending: [] };
    generation.pipeline = new JetStreamPipeline<number>(this.options.connection, {
      inboxPrefix: this.options.inboxPrefix ?? connectionInboxPrefix(this.options.connection),
      maxInFlight: this.options.maxInFlight ?? 4096,
      ackTimeoutMs: this.publishTimeoutMs,
      expectedStream: this.stream,
      onAcked: (acked) => {
        while (generation.pending.length > 0 && generation.pending[0].last <= acked) generation.pending.shift()!.resolve();
      },
      onFailed: (error) => {
        for (const batch of generation.pending.splice(0)) batch.reject(error);
      },
    });
    this.generation = generation;
    return generation;
  }
}

/** The inbox prefix the connection was opened with (nats.js keeps its options on the connection), if any. */
function connectionInboxPrefix(connection: NatsConnection): string | undefined {
  const prefix = (connection as unknown as { options?: { inboxPrefix?: unknown } }).options?.inboxPrefix;
  return typeof prefix === 'string' && prefix !== '' ? prefix : undefined;
}
