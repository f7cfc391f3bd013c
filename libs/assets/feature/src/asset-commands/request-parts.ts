import { AssetKindDescriptor, AssetRequestBody, ServiceError } from '@funnel/contracts';
import { ifMatchRevision } from '../query-params';

/**
 * The revision a bulk write's If-Match names (undefined without one). An ETag is one asset's, so
 * If-Match goes with exactly one entry (a 400 otherwise).
 */
export function ifMatchOf(request: AssetRequestBody, entries: readonly string[]): number | undefined {
  const revision = ifMatchRevision(request.headers);
  if (revision !== undefined && new Set(entries).size !== 1)
    throw ServiceError.invalidField('If-Match', 'singleEntry', "If-Match names one asset's revision: send it with exactly one entry");
  return revision;
}

/** A write's body with each alias (descriptor `writeAliases`) given as its field, when the field itself is left out. */
export function withWriteAliases(kind: AssetKindDescriptor, body: unknown): unknown {
  if (!kind.writeAliases || body === null || typeof body !== 'object' || Array.isArray(body)) return body;
  const named = { ...(body as Record<string, unknown>) };
  for (const [alias, field] of Object.entries(kind.writeAliases)) {
    if (named[field] === undefined && named[alias] !== undefined) named[field] = named[alias];
    delete named[alias];
  }
  return named;
}

/** Legacy single-id query fallback of delete endpoints: `?<idField>=X` with no body means entries [X]. */
export function withLegacyIdFallback(kind: AssetKindDescriptor, { query, body }: AssetRequestBody): unknown {
  const legacyId = query[kind.idField];
  const emptyBody = body === undefined || body === null || (typeof body === 'object' && !Array.isArray(body) && Object.keys(body as object).length === 0);
  if (emptyBody && typeof legacyId === 'string') return { entries: [legacyId] };
  return body;
}
