import { HitsStream } from '@funnel/contracts';
import type { Hit } from '@funnel/reporting-domain';
import type { JetStreamClient, NatsConnection } from 'nats';
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
}

const ACCOUNT_TOKEN = /^[A-Za-z0-9_-]+$/;

/**
 * Distributed: each hit is one message of the stream HITS (which reporting-service creates and
 * consumes), on `hits.<accountId>` with `Nats-Msg-Id` = hitId so that a hit published again within
 * the stream's duplicate window is stored once. A batch is durable when the stream acknowledged
 * every message of it (all published at once, acknowledged concurrently). The edge needs no
 * JetStream API rights: it only publishes and receives the acknowledgements on its inboxes.
 */
export class JetStreamHitWriter implements HitBatchWriter {
  private readonly js: JetStreamClient;
  private readonly stream: string;
  private readonly subjectPrefix: string;
  private readonly publishTimeoutMs: number;
  private readonly encoder = new TextEncoder();

  constructor(options: JetStreamHitWriterOptions) {
    this.js = options.connection.jetstream();
    this.stream = options.stream ?? HitsStream.name;
    this.subjectPrefix = options.subjectPrefix ?? HitsStream.subjectPrefix;
    this.publishTimeoutMs = options.publishTimeoutMs ?? 5000;
  }

  async write(hits: Hit[]): Promise<void> {
    for (const hit of hits) {
      if (!ACCOUNT_TOKEN.test(hit.accountId)) throw new Error(`hit ${hit.hitId}: account ${JSON.stringify(hit.accountId)} is not a subject token`);
    }
    await Promise.all(
      hits.map((hit) =>
        this.js.publish(`${this.subjectPrefix}.${hit.accountId}`, this.encoder.encode(JSON.stringify(hit)), {
          msgID: hit.hitId,
          expect: { streamName: this.stream },
          timeout: this.publishTimeoutMs,
        }),
      ),
    );
  }
}
