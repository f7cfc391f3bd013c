import { AssetRequestBody, ErrorCodes, ID_RULE, MAX_BULK_IDS, STATUS_FILTERS, ServiceError, StatusFilter, isValidAssetId } from '@funnel/contracts';
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

/** Multi-id parameter: comma-separated, and/or repeated. */
export function idsParam(query: Query, name: string): string[] {
  const raw = query[name];
  if (raw === undefined) throw ServiceError.invalidField(name, 'required', `query parameter ${name} is required`);
  const ids = (Array.isArray(raw) ? raw : [raw])
    .flatMap((v) => v.split(','))
    .map((v) => v.trim())
    .filter((v) => v !== '');
  if (ids.length > MAX_BULK_IDS) throw ServiceError.badRequest(ErrorCodes.VALIDATION, `query parameter ${name} may list at most ${MAX_BULK_IDS} ids`);
  const bad = ids.find((id) => !isValidAssetId(id));
  if (bad !== undefined)
    throw ServiceError.invalidField(name, 'isAssetId', `query parameter ${name}: ${bad} is not a valid id (${ID_RULE})`, ErrorCodes.INVALID_ID);
  return [...new Set(ids)];
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
