import type { IngestHitsResult } from '../ingest-hits';
import { PostedHitsRefusedError } from './hit-inbox';

/** How long a batch waits for the warehouse before it is posted to the inbox too (see InProcessHitPoster). */
export const IN_PROCESS_INGEST_WAIT_MS = 200;

/** Where InProcessHitPoster sends the batches the warehouse does not take in time: the hits inbox (HitInbox, ThreadedInboxPoster). */
export interface PostedHitsFallback {
  post(inputs: readonly unknown[]): void | Promise<void>;
}

export interface InProcessHitPosterOptions {
  /** The inbox, for the batches the warehouse does not store within `waitMs` or fails to store. Absent: `post` waits for the warehouse and fails with it. */
  fallback?: PostedHitsFallback;
  /** Default IN_PROCESS_INGEST_WAIT_MS. */
  waitMs?: number;
  /** Hits the warehouse refused as invalid (PostedHitsRefusedError), and failed ingests a fallback took over. */
  onError?: (error: unknown) => void;
  /**
   * Batches that go to the fallback only (with a fallback): those whose `ingest` does more than store
   * their hits (webhook events queued after the hits are stored), which the inbox's drain does again
   * after a crash in between, so that no stored hit misses them.
   */
  fallbackOnly?: (inputs: readonly unknown[]) => boolean;
  /**
   * Whether batches posted to the fallback wait to be ingested (the inbox's posted batches not drained
   * yet). After the fallback took a batch, the next ones go to it too until it is drained, so that the
   * warehouse gets an account's hits in the order they were posted (an action hit after the hit it
   * counts a click on). Absent: the fallback is taken to keep nothing waiting.
   */
  fallbackWaiting?: () => boolean;
}

/**
 * Posts batches straight to the ingest of the warehouse this process holds, with what the inbox's
 * drain would do to them (`ingest`: `ingestHits` and the hits' webhook events), without the inbox: no
 * batch text, no SQLite row, no writer thread, no read back. For the standalone edge, which lives in
 * the process holding the embedded warehouse: `post` resolves once `ingest` did, and the embedded
 * store's ingest answers once its hits are in its ingest log (the same class of durability as the
 * inbox's commit: kept through a crash of the process, replayed at the next open). Hits the
 * warehouse refuses as invalid are reported to `onError` and dropped, as the inbox's drain does.
 * Batches `fallbackOnly` names go to the inbox, as before.
 *
 * The warehouse has one writer, which a reporting update, a commit or a failing disk may hold: a
 * batch it has not stored within `waitMs`, or failed to store, is posted to the `fallback` (the
 * inbox) and `post` resolves once that is durable; until the late ingest is over, the next batches
 * go to the inbox at once, and after it, until the inbox is drained (`fallbackWaiting`), so that the
 * warehouse still gets an account's hits in the order they were posted. So the edge waits for the
 * warehouse no longer than before this poster. Batches are posted one at a time (the edge's group
 * commit writes one at a time).
 * A batch then reaches the warehouse twice (the late ingest, the inbox's drain): stored once (its
 * hitIds; an action hit already stored counts no click again), as a retry is.
 *
 * The inbox stays for batches from other processes (`hits:import`) and for a warehouse not in the
 * process (ClickHouse).
 */
export class InProcessHitPoster {
  /** Ingests past `waitMs` not over yet: the warehouse is busy, batches go to the fallback. */
  private late = 0;
  /** The fallback took batches that may not be ingested yet: the next ones follow them. */
  private fellBack = false;
  private readonly waitMs: number;
  private readonly onError: (error: unknown) => void;

  constructor(
    private readonly ingest: (inputs: unknown[]) => Promise<IngestHitsResult>,
    private readonly options: InProcessHitPosterOptions = {},
  ) {
    this.waitMs = options.waitMs ?? IN_PROCESS_INGEST_WAIT_MS;
    this.onError = options.onError ?? (() => undefined);
  }

  post(inputs: readonly unknown[]): Promise<void> {
    if (inputs.length === 0) return Promise.resolve();
    const fallback = this.options.fallback;
    if (fallback && (this.late > 0 || this.behindFallback() || this.options.fallbackOnly?.(inputs))) return this.toFallback(fallback, inputs);
    const stored = this.ingest(inputs as unknown[]).then((result) => {
      if (result.invalidCount > 0) this.onError(new PostedHitsRefusedError(result));
    });
    if (!fallback) return stored;
    return new Promise<void>((resolve, reject) => {
      let handedOver = false;
      const handOver = () => {
        handedOver = true;
        this.toFallback(fallback, inputs).then(resolve, reject);
      };
      const timer = setTimeout(() => {
        this.late++;
        handOver();
      }, this.waitMs);
      stored.then(
        () => {
          clearTimeout(timer);
          if (handedOver) this.late--;
          else resolve();
        },
        (error: unknown) => {
          clearTimeout(timer);
          this.onError(error);
          if (handedOver) this.late--;
          else handOver();
        },
      );
    });
  }

  private toFallback(fallback: PostedHitsFallback, inputs: readonly unknown[]): Promise<void> {
    this.fellBack = true;
    return Promise.resolve().then(() => fallback.post(inputs));
  }

  /** Whether batches the fallback took may wait there still. */
  private behindFallback(): boolean {
    if (this.fellBack) this.fellBack = this.options.fallbackWaiting?.() ?? false;
    return this.fellBack;
  }
}
