import { JetStreamPipeline } from '@funnel/platform';
import type { NatsConnection } from 'nats';

export interface JetStreamPublisherOptions {
  /** A connection whose user may publish to the subjects and receive on its inboxes; never closed here. */
  connection: NatsConnection;
  /** The stream every message must be stored in (`Nats-Expected-Stream`); absent: no such header (a KV put, whose subject only its bucket's stream holds). */
  stream?: string;
  /** How long a publish waits for the stream's acknowledgement before it (and its pipeline) fails. */
  ackTimeoutMs: number;
  /** Messages published and not yet acknowledged at most (default 4096): a publish beyond waits for room. */
  maxInFlight?: number;
  /** The prefix of the inbox the acknowledgements come to (default the connection's own `inboxPrefix`, which its user may subscribe to). */
  inboxPrefix?: string;
}

/** One message to store; `msgId` (Nats-Msg-Id) makes JetStream drop a copy within its duplicate window. */
export interface JetStreamMessage {
  subject: string;
  data: Uint8Array;
  msgId?: string;
}

/** A group of messages waiting for the acknowledgement of its last one. */
interface Pending {
  last: number;
  resolve: () => void;
  reject: (error: Error) => void;
}

/** One pipeline and the groups waiting on it; replaced by a new one once it failed. */
interface Generation {
  pipeline: JetStreamPipeline<number>;
  published: number;
  pending: Pending[];
}

/** Resolves in the check phase of this turn of the event loop, once for every caller of the turn. */
let turnEnd: Promise<void> | undefined;
function endOfTurn(): Promise<void> {
  turnEnd ??= new Promise<void>((resolve) =>
    setImmediate(() => {
      turnEnd = undefined;
      resolve();
    }),
  );
  return turnEnd;
}

/**
 * Stores messages in a JetStream stream through one JetStreamPipeline: a message costs one publish
 * (its acknowledgement matched by its reply subject, many in flight) rather than a nats.js request
 * (a timer, a promise, a mux entry and an Error built for every call). `publish` sends at the end
 * of the current turn of the event loop (its check phase, no timer), together with what every
 * publisher of the process was given in that turn: nats.js writes what is published before its
 * flush in one socket write, so the session puts and hits of every request read in one turn leave
 * in one write rather than one per request. A group resolves once the
 * stream acknowledged it and everything published before it (acknowledgements are reported in
 * publish order); a refused or unanswered publish fails the pipeline and rejects every group
 * waiting on it (their redirects are not answered as a success), and the next publish opens a new
 * pipeline. The publisher needs no JetStream API rights: it publishes and receives acknowledgements
 * on its inboxes.
 */
export class JetStreamPublisher {
  private generation: Generation | undefined;
  private closed = false;

  constructor(private readonly options: JetStreamPublisherOptions) {}

  /** Resolves once every message is stored (acknowledged by the stream); rejects when one could not be. */
  async publish(messages: readonly JetStreamMessage[]): Promise<void> {
    if (messages.length === 0) return;
    if (this.closed) throw new Error('the JetStream publisher is closed');
    await endOfTurn();
    if (this.closed) throw new Error('the JetStream publisher is closed');
    const generation = this.current();
    for (const message of messages) {
      if (!generation.pipeline.hasRoom) await generation.pipeline.room();
      // A pipeline that failed meanwhile threw away what this group sent: the group fails with it.
      if (generation.pipeline.failed) throw generation.pipeline.failed;
      generation.pipeline.publish(message.subject, message.data, message.msgId, generation.published++);
    }
    const last = generation.published - 1;
    await new Promise<void>((resolve, reject) => generation.pending.push({ last, resolve, reject }));
  }

  /** Stops listening for acknowledgements: groups still waiting are rejected. */
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
      ackTimeoutMs: this.options.ackTimeoutMs,
      expectedStream: this.options.stream,
      onAcked: (acked) => {
        while (generation.pending.length > 0 && generation.pending[0].last <= acked) generation.pending.shift()!.resolve();
      },
      onFailed: (error) => {
        for (const group of generation.pending.splice(0)) group.reject(error);
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
