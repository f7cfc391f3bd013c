import { maskPostbackUrl, type PostbackIntent } from '@funnel/reporting-domain';
import type { DecidedPostback } from './postback-log-store';

/** The row of a delivery id (`<jobId>:<rowIndex>`, see PostbackIntent). */
export function rowIndexOf(deliveryId: string): number {
  const match = /:(\d{1,9})$/.exec(deliveryId);
  if (!match) throw new Error(`not a delivery id (<jobId>:<rowIndex>): ${deliveryId}`);
  return Number(match[1]);
}

/** A job's decided postbacks as log rows: URLs masked as the per-job listing shows them, `call`s pending, the others recorded. */
export function decidedPostbacks(accountId: string, jobId: string, postbacks: readonly PostbackIntent[], timeMs: number): DecidedPostback[] {
  return postbacks.map((p) => ({
    accountId,
    jobId,
    rowIndex: rowIndexOf(p.deliveryId),
    hitId: p.hitId,
    idTrafficSource: p.idTrafficSource,
    idFunnel: p.idFunnel ?? '',
    url: maskPostbackUrl(p.target),
    kind: p.postbackType,
    status: p.action === 'call' ? 'pending' : 'recorded',
    timeMs,
  }));
}
