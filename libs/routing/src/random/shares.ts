// Weighted choices: weights normalised to shares (summing to 1), picked with one draw in [0, 1).

/** Shares of the weights: proportional when their sum is positive, else equal. Negative or non-finite weights count as 0. */
export function sharesOf(weights: readonly number[]): number[] {
  const clean = weights.map((weight) => (Number.isFinite(weight) && weight > 0 ? weight : 0));
  const sum = clean.reduce((total, weight) => total + weight, 0);
  if (sum <= 0) return clean.map(() => 1 / clean.length);
  return clean.map((weight) => weight / sum);
}

/**
 * Running totals of the shares, from the last positive share on forced to 1: every draw below 1 picks
 * an entry, and rounding never lets a draw land on a zero share at the end.
 */
export function cumulativeOf(shares: readonly number[]): Float64Array {
  const cumulative = new Float64Array(shares.length);
  let total = 0;
  let lastPositive = shares.length - 1;
  shares.forEach((share, i) => {
    total += share;
    cumulative[i] = total;
    if (share > 0) lastPositive = i;
  });
  for (let i = Math.max(0, lastPositive); i < shares.length; i++) cumulative[i] = 1;
  return cumulative;
}

/** The index a draw in [0, 1) picks: the first whose running total exceeds it, skipping zero shares. */
export function pick(cumulative: Float64Array, drawn: number): number {
  const n = cumulative.length;
  for (let i = 0; i < n; i++) if (drawn < cumulative[i]) return i;
  return n - 1;
}
