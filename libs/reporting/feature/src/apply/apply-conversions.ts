import {
  applyConversion,
  buildPostbackUrl,
  decidePostback,
  ORGANIC_TRAFFIC_SOURCE,
  type Hit,
  type PostbackIntent,
  type TrafficSourcePostbackSettings,
} from '@funnel/reporting-domain';
import type { AppliedRow, HitStore } from '../hits/hit-store';
import type { ApplyDeps, ApplyJob, ApplyResult, ConversionsJobPayload } from './apply-types';
import { errorMessage, pendingBatches, recordedRows, summarize } from './job-rows';

const DEFAULT_BATCH_SIZE = 1000;

/**
 * Applies a conversions job: each row adds, replaces or removes the hit's conversions (domain rule
 * `applyConversion`; a row without a time takes the job's `queuedAt`, the moment the update was
 * accepted) and, for a conversion added or replaced, decides the hit's traffic-source postback
 * (`decidePostback`). Rows are applied in batches, each one store transaction that also records the
 * batch's rows, so a redelivered job skips what was applied and reports the same result.
 */
export async function applyConversions(store: HitStore, job: ApplyJob<ConversionsJobPayload>, deps: ApplyDeps): Promise<ApplyResult> {
  const { accountId, jobId, payload } = job;
  const flags = {
    postbackCalls: payload.postbackCalls ?? 'none',
    disablePostbacks: payload.disablePostbacks ?? false,
    forcePostbacks: payload.forcePostbacks ?? false,
  };
  const now = new Date(job.queuedAt);
  const random = deps.random ?? Math.random;
  const sources = trafficSourceCache(deps);
  const recorded = await recordedRows(store, accountId, jobId);

  for (const batch of pendingBatches(payload.hits.length, recorded, deps.batchSize ?? DEFAULT_BATCH_SIZE)) {
    const hits = new Map((await store.getHits(accountId, [...new Set(batch.map((index) => payload.hits[index].hitId))])).map((hit) => [hit.hitId, hit]));
    const changed = new Map<string, Hit>();
    const rows: AppliedRow[] = [];
    for (const rowIndex of batch) {
      const row = payload.hits[rowIndex];
      const hit = hits.get(row.hitId);
      if (!hit) {
        rows.push({ rowIndex, outcome: 'notFound', hits: 0, postbacks: [] });
        continue;
      }
      let result;
      try {
        result = applyConversion(hit, row, { overridePayout: payload.overridePayout ?? null, now });
      } catch (error) {
        rows.push({ rowIndex, outcome: 'failed', error: errorMessage(error), hits: 0, postbacks: [] });
        continue;
      }
      if (result.outcome === 'noop') {
        rows.push({ rowIndex, outcome: 'noop', hits: 0, postbacks: [] });
        continue;
      }
      let next = result.hit;
      const postbacks: PostbackIntent[] = [];
      if (result.kind !== 'removed') {
        const source = await sources(hit.idFunnel, hit.idTrafficSource);
        const decision = decidePostback({ flags, source, alreadyCalled: hit.postbackCalled, payout: result.conversion.payout, draw: random() * 100 });
        if (decision.send && source) {
          postbacks.push({
            deliveryId: `${jobId}:${rowIndex}`,
            hitId: hit.hitId,
            idTrafficSource: hit.idTrafficSource,
            postbackType: decision.postbackType,
            action: decision.action,
            target: buildPostbackUrl(source.postback.postbackCode, {
              payout: decision.payout,
              transactionId: result.conversion.transactionId,
              hitId: hit.hitId,
              trackingFields: hit.trackingFields,
              trackingFieldSlots: source.trackingFieldSlots,
            }),
            payout: decision.payout,
          });
          next = { ...next, postbackCalled: true };
        }
      }
      hits.set(hit.hitId, next);
      changed.set(hit.hitId, next);
      rows.push({ rowIndex, outcome: 'applied', hits: 1, postbacks });
    }
    await store.commitRows(accountId, jobId, [...changed.values()], rows);
    for (const row of rows) recorded.set(row.rowIndex, row);
  }
  return summarize(recorded.values(), (rowIndex) => payload.hits[rowIndex]?.hitId);
}

/**
 * The postback settings of a hit's traffic source, with the funnel's override of the source's
 * postback when it has one. One lookup per source (and per funnel and source) and job; organic
 * traffic has no source.
 */
export function trafficSourceCache(deps: ApplyDeps): (idFunnel: string, idTrafficSource: string) => Promise<TrafficSourcePostbackSettings | undefined> {
  const sources = new Map<string, Promise<TrafficSourcePostbackSettings | undefined>>();
  const settings = new Map<string, Promise<TrafficSourcePostbackSettings | undefined>>();
  const sourceOf = (idTrafficSource: string) => {
    let source = sources.get(idTrafficSource);
    if (!source) {
      source = deps.trafficSource(idTrafficSource);
      sources.set(idTrafficSource, source);
    }
    return source;
  };
  return (idFunnel, idTrafficSource) => {
    if (idTrafficSource === ORGANIC_TRAFFIC_SOURCE || idTrafficSource === '') return Promise.resolve(undefined);
    if (!deps.funnelPostback) return sourceOf(idTrafficSource);
    const key = `${idFunnel}/${idTrafficSource}`;
    let effective = settings.get(key);
    if (!effective) {
      effective = Promise.all([sourceOf(idTrafficSource), deps.funnelPostback(idFunnel, idTrafficSource)]).then(([source, override]) =>
        source && override ? { ...source, postback: override } : source,
      );
      settings.set(key, effective);
    }
    return effective;
  };
}
