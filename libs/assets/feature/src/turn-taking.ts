import { setImmediate as nextTurn } from 'node:timers/promises';

export { nextTurn };

/**
 * Ids a bulk operation handles per event-loop turn. The embedded stores work synchronously
 * (SQLite), so without turns a bulk of 1,000 ids would hold the loop, and every other request of
 * the process, for its whole length; a request of one id never waits for a turn.
 */
export const IDS_PER_TURN = 50;

/** `Promise.all(items.map(work))`, `perTurn` items at a time, letting other work run between them. */
export async function mapInTurns<T, R>(items: readonly T[], work: (item: T) => Promise<R>, perTurn = IDS_PER_TURN): Promise<R[]> {
  const results: R[] = [];
  for (let start = 0; start < items.length; start += perTurn) {
    if (start > 0) await nextTurn();
    results.push(...(await Promise.all(items.slice(start, start + perTurn).map(work))));
  }
  return results;
}

/** Runs `work` for each item in order, one after another, letting other work run every `perTurn` items. */
export async function forEachInTurns<T>(items: readonly T[], work: (item: T) => Promise<void>, perTurn = IDS_PER_TURN): Promise<void> {
  for (let i = 0; i < items.length; i++) {
    if (i > 0 && i % perTurn === 0) await nextTurn();
    await work(items[i]);
  }
}

/**
 * Records per event-loop turn for work on whole records that may be large: checking, copying and
 * storing a 500-node funnel takes tens of milliseconds, so a duplicate of a group of such funnels
 * handles one copy a turn (a request of one small record still finishes in its first turn).
 */
export const RECORDS_PER_TURN = 1;
