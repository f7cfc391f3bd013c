import { postbackSlots, type TrafficSourcePostbackSettings } from '@funnel/reporting-domain';
import type { JobStore } from '../hits/hit-store';
import type { StateReads } from './job-rows';

/** Accounts whose postback slots are remembered at most (the oldest learned is forgotten first). */
const REMEMBERED_ACCOUNTS = 10_000;

/**
 * The tracking-field slots the postbacks of an account's hits used lately, by account: what the
 * next conversions job of the account reads with its hits' states. Only a guess (a source may change
 * its postback, a job may meet a new source): `postbackFieldReads` reads what it misses.
 */
const learnedSlots = new Map<string, ReadonlySet<string>>();

function learn(accountId: string, slots: Iterable<string>): void {
  const known = learnedSlots.get(accountId);
  const next = new Set([...(known ?? []), ...slots]);
  if (known && next.size === known.size) return;
  learnedSlots.delete(accountId);
  learnedSlots.set(accountId, next);
  if (learnedSlots.size > REMEMBERED_ACCOUNTS) learnedSlots.delete(learnedSlots.keys().next().value!);
}

/**
 * The tracking fields a conversions job reads (StateReads): none when the job sends no postback;
 * else the slots the account's postbacks used lately, and, for each batch, the slots the postbacks of
 * its hits' sources use (`source`: the job's cached settings of a funnel and source) that were not
 * read, read for those hits with a second read. A hit's tracking fields never change, so the
 * fields read later stand with the state read first.
 */
export function postbackFieldReads(
  store: JobStore,
  accountId: string,
  sendsPostbacks: boolean,
  source: (idFunnel: string, idTrafficSource: string) => Promise<TrafficSourcePostbackSettings | undefined>,
): StateReads {
  if (!sendsPostbacks) return { trackingSlots: () => [], complete: async (states) => states };
  return {
    trackingSlots: () => [...(learnedSlots.get(accountId) ?? [])],
    async complete(states, read) {
      if (read === undefined) return states;
      const readSlots = new Set(read);
      // The slots each hit's postback uses that were not read, by (funnel, source).
      const missingOf = new Map<string, string[]>();
      for (const hit of states) {
        const key = `${hit.idFunnel}/${hit.idTrafficSource}`;
        if (missingOf.has(key)) continue;
        const settings = await source(hit.idFunnel, hit.idTrafficSource);
        const slots = settings ? postbackSlots(settings.postback.postbackCode, settings.trackingFieldSlots) : [];
        learn(accountId, slots);
        missingOf.set(
          key,
          slots.filter((slot) => !readSlots.has(slot)),
        );
      }
      const incomplete = states.filter((hit) => missingOf.get(`${hit.idFunnel}/${hit.idTrafficSource}`)!.length > 0);
      if (incomplete.length === 0) return states;
      const missing = [...new Set([...missingOf.values()].flat())];
      const fields = new Map(
        (
          await store.getHitStates(
            accountId,
            incomplete.map((hit) => hit.hitId),
            { trackingSlots: missing, fields: [] },
          )
        ).map((hit) => [hit.hitId, hit.trackingFields]),
      );
      return states.map((hit) => (fields.has(hit.hitId) ? { ...hit, trackingFields: { ...hit.trackingFields, ...fields.get(hit.hitId) } } : hit));
    },
  };
}

/** Forgets every account's learned slots (tests). */
export function forgetPostbackSlots(): void {
  learnedSlots.clear();
}
