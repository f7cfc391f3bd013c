import {
  AssetRequestBody,
  ErrorCodes,
  ID_PATTERN,
  ID_RULE,
  MAX_BULK_IDS,
  MAX_PAGE_SIZE,
  STATUS_FILTERS,
  ServiceError,
  StatusFilter,
  isValidAssetId,
} from '@funnel/contracts';
import { Filter } from '@funnel/readstore';

type Query = AssetRequestBody['query'];

function single(query: Query, name: string): string | undefined {
  const value = query[name];
  return Array.isArray(value) ? value[value.length - 1] : value;
}

export function requiredParam(query: Query, name: string): string {
  const value = single(query, name);
  if (value === undefined) throw ServiceError.invalidField(name, 'required', `query parameter ${name} is required`);
  return value;
}

export function optionalParam(query: Query, name: string): string | undefined {
  return single(query, name);
}

export function idParam(query: Query, name: string): string {
  const value = requiredParam(query, name);
  if (!isValidAssetId(value))
    throw ServiceError.invalidField(name, 'isAssetId', `query parameter ${name} must be a valid id (${ID_RULE})`, ErrorCodes.INVALID_ID);
  return value;
}

/** A list of valid ids separated by commas, nothing else. */
const ID_LIST = new RegExp(`^${ID_PATTERN.source.slice(1, -1)}(?:,${ID_PATTERN.source.slice(1, -1)})*$`);

/** Multi-id parameter: comma-separated, and/or repeated; each id once, in the order first given. */
export function idsParam(query: Query, name: string): string[] {
  const raw = query[name];
  if (raw === undefined) throw ServiceError.invalidField(name, 'required', `query parameter ${name} is required`);
  // Plain loops: a bulk read names up to MAX_BULK_IDS ids on every request. A valid id has no
  // spaces to trim, so only the others are trimmed (and checked again).
  const given: string[] = [];
  let invalid: string | undefined;
  for (const value of Array.isArray(raw) ? raw : [raw]) {
    const parts = value.split(',');
    // The usual value, ids and commas only, is checked by one regular expression over all of it.
    if (ID_LIST.test(value)) {
      for (let i = 0; i < parts.length; i++) given.push(parts[i]);
      continue;
    }
    for (let i = 0; i < parts.length; i++) {
      if (isValidAssetId(parts[i])) {
        given.push(parts[i]);
        continue;
      }
      const id = parts[i].trim();
      if (id === '') continue;
      given.push(id);
      if (invalid === undefined && !isValidAssetId(id)) invalid = id;
    }
  }
  if (given.length > MAX_BULK_IDS) throw ServiceError.badRequest(ErrorCodes.VALIDATION, `query parameter ${name} may list at most ${MAX_BULK_IDS} ids`);
  if (invalid !== undefined)
    throw ServiceError.invalidField(name, 'isAssetId', `query parameter ${name}: ${invalid} is not a valid id (${ID_RULE})`, ErrorCodes.INVALID_ID);
  return given.length > 1 ? Array.from(new Set(given)) : given;
}

/** The `status` filter; where it is optional, absent or empty (`status=`) means `fallback`. */
export function statusParam(query: Query, required: boolean, fallback: StatusFilter): StatusFilter {
  const given = optionalParam(query, 'status');
  const value = required ? requiredParam(query, 'status') : given === undefined || given === '' ? fallback : given;
  if (!(STATUS_FILTERS as readonly string[]).includes(value)) {
    throw ServiceError.invalidField('status', 'isIn', `query parameter status must be one of ${STATUS_FILTERS.join(', ')}`);
  }
  return value as StatusFilter;
}

/** The read-model condition of a status filter. */
export function statusCondition(filter: StatusFilter): Filter {
  switch (filter) {
    case 'active':
      return { status: 'active' };
    case 'archived':
      return { status: 'archived' };
    case 'not-deleted':
      return { status: { $ne: 'deleted' } };
    case 'all':
      return {};
    default: {
      const unknown: never = filter;
      throw new Error(`unknown status filter ${String(unknown)}`);
    }
  }
}

/** An integer query parameter within `min..max`; undefined when absent. */
export function intParam(query: Query, name: string, min: number, max: number): number | undefined {
  const value = single(query, name);
  if (value === undefined) return undefined;
  const n = /^\d{1,16}$/.test(value) ? Number(value) : NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max)
    throw ServiceError.invalidField(name, 'isInt', `query parameter ${name} must be an integer from ${min} to ${max}`);
  return n;
}

/** A page of a list: at most `limit` assets (none: all of them) whose id comes after `after`, in id order. */
export interface Page {
  limit?: number;
  after?: string;
}

/** The opaque cursor of a page that ends with asset `lastId` (base64url of the id). */
export function encodeCursor(lastId: string): string {
  return Buffer.from(lastId, 'utf8').toString('base64url');
}

/** `limit` (1..1000) and `cursor` (from a previous answer's X-Next-Cursor); a cursor that is not one is a 400. */
export function pageParams(query: Query): Page {
  const limit = intParam(query, 'limit', 1, MAX_PAGE_SIZE);
  const cursor = single(query, 'cursor');
  if (cursor === undefined || cursor === '') return { limit };
  const after = /^[A-Za-z0-9_-]{1,32}$/.test(cursor) ? Buffer.from(cursor, 'base64url').toString('utf8') : '';
  if (!isValidAssetId(after) || encodeCursor(after) !== cursor)
    throw ServiceError.invalidField('cursor', 'isCursor', 'query parameter cursor must be the X-Next-Cursor of a previous answer');
  return { limit, after };
}

/**
 * The revision of an `If-Match` header (`W/"<n>"` or `"<n>"`, as find/byId's ETag); undefined when
 * there is none or it is `*` (any revision). Anything else is a 400.
 */
export function ifMatchRevision(headers: Record<string, string> | undefined): number | undefined {
  const value = headers?.['if-match']?.trim();
  if (value === undefined || value === '*') return undefined;
  const match = /^(?:W\/)?"(\d{1,15})"$/.exec(value);
  if (!match) throw ServiceError.invalidField('If-Match', 'isETag', 'header If-Match must be an ETag of find/byId, W/"<revision>" (or "<revision>")');
  return Number(match[1]);
}
