import type { Hit } from '@funnel/reporting-domain';

/**
 * Where the edge hands its hits to reporting. `record` resolves once the hits are durable (a crash
 * of the edge after it loses none of them), so the edge answers a redirect only after its hits
 * were recorded; it rejects when they could not be made durable (the redirect is then not answered
 * as a success). Reporting stores them later, without the edge waiting for it; a hit recorded
 * twice (a retry) is stored once (its hitId).
 */
export interface HitSink {
  record(hits: readonly Hit[]): Promise<void>;
  /** Writes what is waiting, then refuses new hits. */
  close(): Promise<void>;
}

/** The Nest token of the edge's HitSink. */
export const HIT_SINK = Symbol('HitSink');

/** A HitSink that writes batches: what group commit drives (one write for many requests' hits). */
export interface HitBatchWriter {
  /** Resolves once every hit of the batch is durable. */
  write(hits: Hit[]): Promise<void> | void;
  close?(): Promise<void> | void;
}
