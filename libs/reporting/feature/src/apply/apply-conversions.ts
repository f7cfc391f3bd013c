import {
  applyConversion,
  type ConversionResult,
  buildPostbackUrl,
  decidePostback,
  ORGANIC_TRAFFIC_SOURCE,
  type PostbackIntent,
  type TrafficSourcePostbackSettings,
} from '@funnel/reporting-domain';
import type { HitState, JobStore } from '../hits/hit-store';
import type { ApplyDeps, ApplyJob, ApplyResult, ConversionsJobPayload } from './apply-types';
import { applyHitRows, type Settled } from './job-rows';
import { postbackFieldReads } from './postback-fields';

/**
 * Applies a conversions job: each row adds, replaces or removes the hit's conversions (domain rule
 * `applyConversion`; a row without a time takes the job's `queuedAt`, the moment the update was
 * accepted) and, for a conversion added or replaced, decides the hit's traffic-source postback
 * (`decidePostback`). Rows are applied in batches, each one store transaction that also records the
 * batch's rows, so a redelivered job skips what was applied and reports the same result. Only
 * the hits' conversions (and postbackCalled) are read and written, their tracking fields only for the
 * slots their postbacks use (`postbackFieldReads`).
 */
export async function applyConversions(store: JobStore, job: ApplyJob<ConversionsJobPayload>, deps: ApplyDeps): Promise<ApplyResult> {
  const { accountId, jobId, payload } = job;
  const flags = {
    postbackCalls: payload.postbackCalls ?? 'none',
    disablePostbacks: payload.disablePostbacks ?? false,
    forcePostbacks: payload.forcePostbacks ?? false,
  };
  const conversionSettings = { overridePayout: payload.overridePayout ?? null, now: new Date(job.queuedAt) };
  const random = deps.random ?? Math.random;
  const sources = trafficSourceCache(deps);
  const sendsPostbacks = !flags.disablePostbacks && flags.postbackCalls !== 'none';
  // The settings `sources` answered, by funnel and source.
  const known = new Map<string, TrafficSourcePostbackSettings | undefined>();
  /** An added or replaced conversion's hit and postback, with the settings of the hit's source. */
  const settle = (
    hit: HitState,
    result: Extract<ConversionResult<HitState>, { kind: 'added' | 'replaced' }>,
    rowIndex: number,
    source: TrafficSourcePostbackSettings | undefined,
  ): Settled => {
    const decision = decidePostback({ flags, source, alreadyCalled: hit.postbackCalled, payout: result.conversion.payout, draw: random() * 100 });
    if (!decision.send || !source) return { hit: result.hit, postbacks: [] };
    const postback: PostbackIntent = {
      deliveryId: `${jobId}:${rowIndex}`,
      hitId: hit.hitId,
      idTrafficSource: hit.idTrafficSource,
      idFunnel: hit.idFunnel,
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
    };
    return { hit: { ...result.hit, postbackCalled: true }, postbacks: [postback] };
  };
  return applyHitRows(
    store,
    {
      accountId,
      jobId,
      rows: payload.hits,
      batchSize: deps.batchSize,
      fields: ['conversions'],
      reads: postbackFieldReads(store, accountId, sendsPostbacks, sources),
    },
    (hit, row) => applyConversion(hit, row, conversionSettings),
    (hit, result, rowIndex) => {
      if (result.kind === 'removed') return { hit: result.hit, postbacks: [] };
      // The settings of a source looked up before are used at once (no await per row).
      const key = `${hit.idFunnel}/${hit.idTrafficSource}`;
      if (known.has(key)) return settle(hit, result, rowIndex, known.get(key));
      return sources(hit.idFunnel, hit.idTrafficSource).then((source) => {
        known.set(key, source);
        return settle(hit, result, rowIndex, source);
      });
    },
  );
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
