import { applyPercent, fromMicros, isCanonicalNonNegative, toMicros } from '../decimal';

export const POSTBACK_CALLS = ['none', 'onlyOnce', 'all'] as const;
export type PostbackCalls = (typeof POSTBACK_CALLS)[number];

/** The postback fields of an update request (the spec's ConversionsUpdateParams). */
export interface PostbackFlags {
  postbackCalls: PostbackCalls;
  disablePostbacks: boolean;
  forcePostbacks: boolean;
}

/** The traffic-source settings postbacks depend on (a TrafficSource record has them all). */
export interface TrafficSourcePostbackSettings {
  idTrafficSource: string;
  postback: { postbackType: 'none' | 'postbackUrl' | 'pixelUrl' | 'javascript'; postbackCode: string };
  disableZeroRevenuePostbacks: boolean;
  /** 0..100: percent of postbacks sent. */
  outgoingPostbackProbability: number;
  /** 0..500: percent of the payout sent. */
  outgoingRevenueModifier: number;
  /** Slot -> tracking field (its URL parameter `name`); used for `{trackingField.<name>}` tokens. */
  trackingFieldSlots?: Record<string, { name: string }>;
}

export interface PostbackDecisionInput {
  flags: PostbackFlags;
  /** The hit's traffic source; undefined when the hit has none (organic) or it no longer exists. */
  source: TrafficSourcePostbackSettings | undefined;
  /** Whether the hit's postback was already called (before this row). */
  alreadyCalled: boolean;
  /** The conversion's payout, decimal text >= 0. */
  payout: string;
  /** A uniform draw in [0, 100), compared with `outgoingPostbackProbability`. */
  draw: number;
}

export type PostbackSkipReason = 'disabled' | 'postbackCallsNone' | 'alreadyCalled' | 'noPostback' | 'zeroRevenue' | 'sampledOut';

export type PostbackDecision =
  | { send: false; reason: PostbackSkipReason }
  | {
      send: true;
      /** `call`: a GET of the URL (postbackUrl); `record`: listed, not called (pixelUrl, javascript). */
      action: 'call' | 'record';
      postbackType: 'postbackUrl' | 'pixelUrl' | 'javascript';
      /** The payout sent: the conversion's payout times `outgoingRevenueModifier` %, rounded half up to 6 decimals. */
      payout: string;
    };

/**
 * The postback decision table, rules in order (the first that applies decides):
 * 1. `disablePostbacks` -> no postback (it wins over `forcePostbacks`).
 * 2. `postbackCalls: none` -> no postback (the spec: none for any hit; `forcePostbacks` does not change it).
 * 3. `postbackCalls: onlyOnce` and the hit's postback was already called -> no postback.
 * 4. no traffic source, or its `postbackType` is `none` -> no postback.
 * 5. unless `forcePostbacks`: `disableZeroRevenuePostbacks` and a payout of 0 -> no postback.
 * 6. unless `forcePostbacks`: `draw` >= `outgoingPostbackProbability` -> no postback (sampled out).
 * 7. otherwise a postback with the payout times `outgoingRevenueModifier` %: `postbackUrl` is called,
 *    `pixelUrl` and `javascript` are recorded. Either way the hit counts as called from then on.
 */
export function decidePostback(input: PostbackDecisionInput): PostbackDecision {
  const { flags, source } = input;
  if (flags.disablePostbacks) return { send: false, reason: 'disabled' };
  if (flags.postbackCalls === 'none') return { send: false, reason: 'postbackCallsNone' };
  if (flags.postbackCalls === 'onlyOnce' && input.alreadyCalled) return { send: false, reason: 'alreadyCalled' };
  if (!source || source.postback.postbackType === 'none') return { send: false, reason: 'noPostback' };
  // A canonical payout at 100 % (the usual case) is sent as it is: no decimal arithmetic.
  const asIs = isCanonicalNonNegative(input.payout);
  const payoutMicros = asIs && source.outgoingRevenueModifier === 100 ? undefined : toMicros(input.payout);
  if (!flags.forcePostbacks) {
    if (source.disableZeroRevenuePostbacks && (payoutMicros === undefined ? input.payout === '0' : payoutMicros === 0n))
      return { send: false, reason: 'zeroRevenue' };
    if (!(input.draw < source.outgoingPostbackProbability)) return { send: false, reason: 'sampledOut' };
  }
  const postbackType = source.postback.postbackType;
  return {
    send: true,
    action: postbackType === 'postbackUrl' ? 'call' : 'record',
    postbackType,
    payout: payoutMicros === undefined ? input.payout : fromMicros(applyPercent(payoutMicros, source.outgoingRevenueModifier)),
  };
}
