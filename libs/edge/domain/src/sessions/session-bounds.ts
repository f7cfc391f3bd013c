import type { RoutingSession } from '@funnel/routing';

/** The most a session keeps of one string-to-string map. */
export interface RecordCaps {
  /** Entries kept (the first ones, in the map's key order). */
  maxEntries: number;
  /** Longer names are dropped with their value. */
  maxNameChars: number;
  /** Longer values are dropped with their name (a cut value, such as a click id, would be wrong). */
  maxValueChars: number;
  /** Names plus values, summed over the entries kept: the entry that would pass it and the later ones are dropped. */
  maxTotalChars: number;
}

/**
 * The caps of one session. A session grows with what visitors send (every URL parameter joins the
 * buffer), so each growing part is capped; within its caps a session's JSON stays under about 70 KB.
 */
export const SESSION_CAPS = {
  /** Every URL parameter seen (`{data-<name>}`): 64 parameters, names up to 64 and values up to 1024 characters, 16,384 in all. */
  urlBuffer: { maxEntries: 64, maxNameChars: 64, maxValueChars: 1024, maxTotalChars: 16_384 },
  /** The entrance's tracking fields: 32 fields, names up to 64 and values up to 1024 characters, 8,192 in all. */
  trackingFields: { maxEntries: 32, maxNameChars: 64, maxValueChars: 1024, maxTotalChars: 8_192 },
  /** Sticky rotator choices (node id -> connection id): 256, ids up to 64 characters. */
  sticky: { maxEntries: 256, maxNameChars: 64, maxValueChars: 64, maxTotalChars: 256 * 128 },
  /** Visitor tag ids held: the first 128 (sorted), ids up to 64 characters. */
  tags: { maxEntries: 128, maxChars: 64 },
} as const satisfies Record<'urlBuffer' | 'trackingFields' | 'sticky', RecordCaps> & { tags: { maxEntries: number; maxChars: number } };

/** The map within `caps`: entries that break a cap are dropped, the others kept in order (a new object; the input is not changed). */
export function capRecord(record: Readonly<Record<string, string>>, caps: RecordCaps): Record<string, string> {
  const kept: Record<string, string> = {};
  let entries = 0;
  let total = 0;
  for (const [name, value] of Object.entries(record)) {
    if (entries >= caps.maxEntries) break;
    if (typeof value !== 'string' || name.length > caps.maxNameChars || value.length > caps.maxValueChars) continue;
    if (total + name.length + value.length > caps.maxTotalChars) break;
    kept[name] = value;
    entries++;
    total += name.length + value.length;
  }
  return kept;
}

/**
 * Whether the map is within `caps` already (every put asks): walks the names with for-in, making no
 * list of them nor a [name, value] pair per entry (Object.entries cost a quarter of an encode); an
 * entry that is no text is not within. Session maps are plain objects of their own names.
 */
function withinRecord(record: Readonly<Record<string, string>>, caps: RecordCaps): boolean {
  let entries = 0;
  let total = 0;
  for (const name in record) {
    const value = record[name];
    if (++entries > caps.maxEntries || typeof value !== 'string' || name.length > caps.maxNameChars || value.length > caps.maxValueChars) return false;
    total += name.length + value.length;
  }
  return total <= caps.maxTotalChars;
}

/** Whether the tags are within their caps already: sorted, unique, at most maxEntries of at most maxChars. */
function withinTags(tags: readonly string[]): boolean {
  const { maxEntries, maxChars } = SESSION_CAPS.tags;
  if (tags.length > maxEntries) return false;
  for (let i = 0; i < tags.length; i++) {
    const tag = tags[i];
    if (typeof tag !== 'string' || tag.length > maxChars || (i > 0 && !(tags[i - 1] < tag))) return false;
  }
  return true;
}

/** The tag ids within the caps: unique, sorted, the first `maxEntries` of those up to `maxChars`. */
export function capTags(tags: readonly string[]): string[] {
  const { maxEntries, maxChars } = SESSION_CAPS.tags;
  return [...new Set(tags.filter((tag) => typeof tag === 'string' && tag.length <= maxChars))].sort().slice(0, maxEntries);
}

/**
 * The session as a store keeps it: its URL buffer, tracking fields, sticky choices and tags within
 * SESSION_CAPS. A session already within them is returned as it is (the common case costs a scan).
 */
export function boundSession(session: RoutingSession): RoutingSession {
  if (
    withinTags(session.tags) &&
    withinRecord(session.urlBuffer, SESSION_CAPS.urlBuffer) &&
    withinRecord(session.trackingFields, SESSION_CAPS.trackingFields) &&
    withinRecord(session.sticky, SESSION_CAPS.sticky)
  ) {
    return session;
  }
  return {
    ...session,
    urlBuffer: capRecord(session.urlBuffer, SESSION_CAPS.urlBuffer),
    trackingFields: capRecord(session.trackingFields, SESSION_CAPS.trackingFields),
    sticky: capRecord(session.sticky, SESSION_CAPS.sticky),
    tags: capTags(session.tags),
  };
}
