// The parameters of an incoming postback (`/pb/`): the hit, the transaction and the revenue, each
// under the names networks use (the reference API's and its peers' aliases).

/** Accepted names, first found wins (in this order): hit, transaction id, revenue. */
export const POSTBACK_PARAM_ALIASES = {
  hit: ['hit', 'hitid', 'clickid', 'click_id', 'cid', 'subid', 'sub_id'],
  tx: ['tx', 'txid', 'transaction_id', 'transactionid'],
  rev: ['rev', 'payout', 'revenue', 'sum', 'amount'],
} as const;

/** A postback's values as given ("" or undefined when absent). */
export interface PostbackParams {
  hitId: string;
  transactionId: string;
  /** undefined when absent or empty: the offer's payout. */
  revenue?: string;
}

const first = (value: unknown): string | undefined => {
  if (typeof value === 'string') return value;
  if (Array.isArray(value) && typeof value[0] === 'string') return value[0];
  return undefined;
};

/**
 * The postback's values from its parameters (query, or a form body on POST; the query wins a name
 * both give). Names are matched case-insensitively; values are trimmed.
 */
export function postbackParamsOf(...sources: unknown[]): PostbackParams {
  const params = new Map<string, string>();
  for (const source of sources) {
    if (typeof source !== 'object' || source === null) continue;
    for (const [name, raw] of Object.entries(source as Record<string, unknown>)) {
      const value = first(raw);
      const key = name.toLowerCase();
      if (value !== undefined && !params.has(key)) params.set(key, value.trim());
    }
  }
  const pick = (names: readonly string[]) => {
    for (const name of names) {
      const value = params.get(name);
      if (value !== undefined && value !== '') return value;
    }
    return undefined;
  };
  return { hitId: pick(POSTBACK_PARAM_ALIASES.hit) ?? '', transactionId: pick(POSTBACK_PARAM_ALIASES.tx) ?? '', revenue: pick(POSTBACK_PARAM_ALIASES.rev) };
}
