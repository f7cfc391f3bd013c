/** The traffic-source postback types that produce something (`none` produces nothing). */
export type ActivePostbackType = 'postbackUrl' | 'pixelUrl' | 'javascript';

/**
 * A traffic-source postback that applying a row decided on. The service queues it: `call` intents
 * (`postbackUrl`) are fetched with GET through the SSRF guard, `record` intents (`pixelUrl`,
 * `javascript`) are listed as recorded and never called.
 */
export interface PostbackIntent {
  /** `<jobId>:<rowIndex>`: the same on a redelivery of the job, so a queue that de-duplicates ids sends it once. */
  deliveryId: string;
  hitId: string;
  idTrafficSource: string;
  /** The hit's funnel (for the postback log); absent on postbacks a job recorded before the log kept it. */
  idFunnel?: string;
  postbackType: ActivePostbackType;
  action: 'call' | 'record';
  /** `postbackUrl` and `pixelUrl`: the URL with its tokens replaced (values URL-encoded); `javascript`: the code with its tokens replaced. */
  target: string;
  /** The payout sent (the conversion's payout times the source's `outgoingRevenueModifier`), decimal text. */
  payout: string;
}
