import { HitsStream } from '@funnel/contracts';
import type { Hit } from '@funnel/reporting-domain';
import type { NatsConnection } from 'nats';
import { type JetStreamMessage, JetStreamPublisher } from '../jetstream/jetstream-publisher';
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

/**
 * Distributed: each hit is one message of the stream HITS (which reporting-service creates and
 * consumes), on `hits.<accountId>` with `Nats-Msg-Id` = hitId so that a hit published again within
 * the stream's duplicate window is stored once. The messages go out through a JetStreamPublisher
 * (one inbox subscription, every publish's acknowledgement matched by its reply subject, many in
 * flight at once), so a hit costs one publish rather than one request, and a batch is sent at
 * once, in the turn of the event loop that wrote it. A batch is durable when the stream
 * acknowledged every message of it and of the batches before it. A refused or unanswered publish
 * rejects every batch waiting (its redirect is not answered as a success; the edge may record it
 * again, stored once), and the next batch opens a new pipeline. The edge needs no JetStream API
 * rights: it only publishes and receives the acknowledgements on its inboxes.
 */
export class JetStreamHitWriter implements HitBatchWriter {
  private readonly subjectPrefix: string;
  private readonly publisher: JetStreamPublisher;

  constructor(options: JetStreamHitWriterOptions) {
    this.subjectPrefix = options.subjectPrefix ?? HitsStream.subjectPrefix;
    this.publisher = new JetStreamPublisher({
      connection: options.connection,
      stream: options.stream ?? HitsStream.name,
      ackTimeoutMs: options.publishTimeoutMs ?? 5000,
      maxInFlight: options.maxInFlight ?? 4096,
      inboxPrefix: options.inboxPrefix,
    });
  }

  write(hits: readonly Hit[]): Promise<void> {
    let messages: JetStreamMessage[];
    try {
      const visitors = new VisitorTexts();
      messages = hits.map((hit) => {
        if (!ACCOUNT_TOKEN.test(hit.accountId)) throw new Error(`hit ${hit.hitId}: account ${JSON.stringify(hit.accountId)} is not a subject token`);
        return { subject: `${this.subjectPrefix}.${hit.accountId}`, data: Buffer.from(hitText(hit, visitors)), msgId: hit.hitId };
      });
    } catch (error) {
      return Promise.reject(error);
    }
    return this.publisher.publish(messages);
  }

  /** Stops listening for acknowledgements: batches still waiting are rejected. */
  close(): void {
    this.publisher.close();
  }
}

/** The JSON of each distinct visitor object of a batch, written once (a request's hits share one). */
class VisitorTexts {
  private last: object | undefined;
  private lastText = '';

  textOf(visitor: object): string {
    if (visitor !== this.last) {
      this.last = visitor;
      this.lastText = JSON.stringify(visitor);
    }
    return this.lastText;
  }
}

/**
 * A hit's message: its JSON, as JSON.stringify writes it, but with the visitor's JSON written once
 * for the hits that share it (a request's hits share their visitor, about half of each message's
 * bytes); `visitor` comes last.
 */
function hitText(hit: Hit, visitors: VisitorTexts): string {
  const { visitor, ...rest } = hit;
  if (typeof visitor !== 'object' || visitor === null) return JSON.stringify(hit);
  const text = JSON.stringify(rest);
  return `${text.length > 2 ? `${text.slice(0, -1)},` : '{'}"visitor":${visitors.textOf(visitor)}}`;
}
