import { aHit, type Hit } from '@funnel/reporting-domain';

export const ACCOUNT = 'ACCOUNT00001';
/** The hits of a test, in a window that counts them. */
export const WINDOW = { timeStart: '2026-01-01T00:00:00Z', timeEnd: '2026-02-01T00:00:00Z' };

/** `count` valid hits with distinct ids (12 characters), starting at `from`. */
export function someHits(count: number, from = 0): Hit[] {
  return Array.from({ length: count }, (_, i) =>
    aHit({ accountId: ACCOUNT, hitId: `HIT${String(from + i).padStart(9, '0')}`, time: new Date(Date.UTC(2026, 0, 10) + (from + i) * 1000).toISOString() }),
  );
}

/** Polls `condition` until it holds (a bounded wait for something asynchronous, not a timing assertion). */
export async function eventually(condition: () => Promise<boolean> | boolean, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
