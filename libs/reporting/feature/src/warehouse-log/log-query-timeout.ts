/** The time limit of a log query when the caller gives none. */
export const POSTBACK_LOG_QUERY_TIMEOUT_MS = 10_000;

/** A log query ran past its time limit; the engine stopped it. */
export class PostbackLogQueryTimeout extends Error {
  constructor(readonly timeoutMs: number) {
    super(`the postback log query ran past its time limit (${timeoutMs} ms)`);
    this.name = 'PostbackLogQueryTimeout';
  }
}
