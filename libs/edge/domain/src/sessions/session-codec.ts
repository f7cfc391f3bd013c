import type { RoutingSession } from '@funnel/routing';
import { boundSession } from './session-bounds';

/** The text a store keeps for a session: its JSON, within SESSION_CAPS. */
export function encodeSession(session: RoutingSession): string {
  return JSON.stringify(boundSession(session));
}

const STRING_FIELDS = ['visitorId', 'idFunnel', 'idTrafficSource', 'currentNode', 'lastHitId', 'currentPage', 'cost'] as const;
const MAP_FIELDS = ['trackingFields', 'sticky', 'urlBuffer'] as const;

function isStringMap(value: unknown): value is Record<string, string> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && Object.values(value).every((entry) => typeof entry === 'string');
}

/**
 * The session a store kept for `visitorId`, or null when the text is not one (damaged, written by
 * something else, or another visitor's): a store answers "no session" rather than failing the visit.
 */
export function decodeSession(text: string, visitorId: string): RoutingSession | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null) return null;
  const candidate = value as Record<string, unknown>;
  if (candidate['visitorId'] !== visitorId) return null;
  if (!STRING_FIELDS.every((field) => typeof candidate[field] === 'string')) return null;
  if (typeof candidate['startedAt'] !== 'number' || !Number.isFinite(candidate['startedAt'])) return null;
  if (!MAP_FIELDS.every((field) => isStringMap(candidate[field]))) return null;
  const tags = candidate['tags'];
  if (!Array.isArray(tags) || !tags.every((tag) => typeof tag === 'string')) return null;
  return boundSession(candidate as unknown as RoutingSession);
}
