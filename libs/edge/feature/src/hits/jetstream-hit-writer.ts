import { hash } from 'node:crypto';
import { HitsStream, hitBatchesStreamOf } from '@funnel/contracts';
import type { Hit } from '@funnel/reporting-domain';
import type { NatsConnection } from 'nats';
import { type JetStreamMessage, JetStreamPublisher } from '../jetstream/jetstream-publisher';
import type { HitBatchWriter } from './hit-sink';

export interface JetStreamHitWriterOptions {
  /** A connection of the edge's NATS user (publish to `hits.batch.*`, acknowledgements on its inboxes); never closed here. */
  connection: NatsConnection;
  /** The stream of hits beside which the batches' stream is (default HitsStream.name, `HITS`: batches to `HITS_BATCHES`). */
  stream?: string;
  /** Default HitsStream.subjectPrefix (`hits`): a batch goes to `<prefix>.batch.<accountId>`. */
  subjectPrefix?: string;
  /** How long a publish waits for the stream's acknowledgement (default 5000). */
  publishTimeoutMs?: number;
  /** Messages published and not yet acknowledged at most (default 4096): a write beyond waits for room. */
  maxInFlight?: number;
  /** The prefix of the inbox the acknowledgements come to (default the connection's own `inboxPrefix`, which its user may subscribe to). */
  inboxPrefix?: string;
  /** Hits per message at most (default 256)... */
  maxBatchHits?: number;
  /** ...and JSON characters per message at most, unless one hit alone is longer (default 262,144: under the server's 1 MiB max_payload even at 3 UTF-8 bytes a character). */
  maxBatchChars?: number;
}

const ACCOUNT_TOKEN = /^[A-Za-z0-9_-]+$/;

/**
 * Distributed: the hits of a write (one request's) are one message of the stream HITS_BATCHES
 * (which reporting-service creates and consumes) per account, on `hits.batch.<accountId>`: a JSON
 * array of the hits, split beyond maxBatchHits hits or maxBatchChars characters. Its `Nats-Msg-Id` is a
 * hash of its hits' ids, so that a batch published again within the stream's duplicate window is
 * stored once (the warehouse stores a hit id once beyond that, whatever batch it came in). The
 * messages go out through a JetStreamPublisher (one inbox subscription, every publish's
 * acknowledgement matched by its reply subject, many in flight at once), so a batch costs one
 * publish rather than one request, sent in the turn of the event loop that wrote it. A write is
 * durable when the stream acknowledged every message of it and of the writes before it. A refused
 * or unanswered publish rejects every write waiting (its redirect is not answered as a success; the
 * edge may record it again, stored once), and the next write opens a new pipeline. The edge needs
 * no JetStream API rights: it only publishes and receives the acknowledgements on its inboxes.
 */
export class JetStreamHitWriter implements HitBatchWriter {
  private readonly subjectPrefix: string;
  private readonly maxBatchHits: number;
  private readonly maxBatchChars: number;
  private readonly publisher: JetStreamPublisher;

  constructor(options: JetStreamHitWriterOptions) {
    const batches = hitBatchesStreamOf(options.stream ?? HitsStream.name, options.subjectPrefix ?? HitsStream.subjectPrefix);
    this.subjectPrefix = batches.subjectPrefix;
    this.maxBatchHits = options.maxBatchHits ?? 256;
    this.maxBatchChars = options.maxBatchChars ?? 256 * 1024;
    this.publisher = new JetStreamPublisher({
      connection: options.connection,
      stream: batches.name,
      ackTimeoutMs: options.publishTimeoutMs ?? 5000,
      maxInFlight: options.maxInFlight ?? 4096,
      inboxPrefix: options.inboxPrefix,
    });
  }

  write(hits: readonly Hit[]): Promise<void> {
    let messages: JetStreamMessage[];
    try {
      messages = this.messagesOf(hits);
    } catch (error) {
      return Promise.reject(error);
    }
    return this.publisher.publish(messages);
  }

  /** Stops listening for acknowledgements: writes still waiting are rejected. */
  close(): void {
    this.publisher.close();
  }

  /** The batches of the hits: per account in the order of its first hit, each within maxBatchHits and maxBatchChars. */
  private messagesOf(hits: readonly Hit[]): JetStreamMessage[] {
    const visitors = new VisitorTexts();
    const batches: OpenBatch[] = [];
    const open = new Map<string, OpenBatch>();
    for (const hit of hits) {
      if (!ACCOUNT_TOKEN.test(hit.accountId)) throw new Error(`hit ${hit.hitId}: account ${JSON.stringify(hit.accountId)} is not a subject token`);
      const text = hitText(hit, visitors);
      let batch = open.get(hit.accountId);
      if (!batch || batch.texts.length >= this.maxBatchHits || batch.chars + text.length > this.maxBatchChars) {
        batch = { accountId: hit.accountId, texts: [], ids: [], chars: 2 };
        batches.push(batch);
        open.set(hit.accountId, batch);
      }
      batch.texts.push(text);
      batch.ids.push(hit.hitId);
      batch.chars += text.length + 1;
    }
    return batches.map((batch) => ({
      subject: `${this.subjectPrefix}.${batch.accountId}`,
      data: Buffer.from(`[${batch.texts.join(',')}]`),
      msgId: hash('sha256', batch.ids.join(' '), 'base64url'),
    }));
  }
}

/** The hits of one account gathered for one message. */
interface OpenBatch {
  accountId: string;
  texts: string[];
  ids: string[];
  chars: number;
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
