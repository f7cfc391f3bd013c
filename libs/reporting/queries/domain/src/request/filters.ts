import { REPORTING_QUERY_LIMITS, ServiceError, type ReportGrouping } from '@funnel/contracts';
import { ATTRIBUTE_ALIASES, type AttributeDefinition } from '../catalogue/attributes';
import { resolveName } from '../catalogue/names';
import { bucketFromText } from '../time/buckets';

/**
 * One value a filter matches: an exact value (asset ids, action numbers, time buckets), a
 * case-insensitive LIKE pattern (text, `*` wildcards made `%`, `%` `_` and `\` escaped with `\`),
 * or "no value" (N/A).
 */
export type FilterValue = { kind: 'equals'; value: string | number } | { kind: 'like'; pattern: string } | { kind: 'none' };

/** Hits whose `attribute` matches any of `include` (when given) and none of `exclude`. */
export interface AttributeFilter {
  attribute: AttributeDefinition;
  include: FilterValue[];
  exclude: FilterValue[];
}

/** `*` -> `%`; `%`, `_` and `\` match themselves (escaped with `\`). */
export function likePattern(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`).replace(/\*/g, '%');
}

/** A filter's text as the attribute compares it. */
export function filterValue(attribute: AttributeDefinition, text: string | null, field: string, exactOnly = false): FilterValue {
  if (text === null) return { kind: 'none' };
  if (typeof text !== 'string') throw ServiceError.invalidField(field, 'isString', `${field} must hold strings`);
  const source = attribute.source;
  if (source.kind === 'time') return { kind: 'equals', value: bucketFromText(source.unit, text, field) };
  if (source.kind === 'action') {
    if (!/^\d{1,2}$/.test(text.trim())) throw ServiceError.invalidField(field, 'isInt', `${field}: an action number is 1..64`);
    return { kind: 'equals', value: Number(text.trim()) };
  }
  if (attribute.match === 'exact' || exactOnly) return { kind: 'equals', value: text };
  return { kind: 'like', pattern: likePattern(text) };
}

function filterList(attribute: AttributeDefinition, values: unknown, field: string): FilterValue[] {
  if (values === undefined || values === null) return [];
  if (!Array.isArray(values)) throw ServiceError.invalidField(field, 'isArray', `${field} must be an array`);
  if (values.length > REPORTING_QUERY_LIMITS.maxFilterValues)
    throw ServiceError.invalidField(field, 'maxSize', `${field} may hold at most ${REPORTING_QUERY_LIMITS.maxFilterValues} values`);
  if (values.length && !attribute.canFilter) throw ServiceError.invalidField(field, 'canFilter', `${attribute.label} cannot be filtered`);
  return values.map((value) => filterValue(attribute, value as string, field));
}

/** An attribute named by a request (key or label, case-insensitive). */
export function resolveAttribute(name: unknown, field: string, attributes: readonly AttributeDefinition[]): AttributeDefinition {
  if (typeof name !== 'string' || name.trim() === '') throw ServiceError.invalidField(field, 'isString', `${field} must name an attribute`);
  return resolveName('attribute', field, name, attributes, ATTRIBUTE_ALIASES);
}

/** A grouping's (or raw events filter's) attribute and include/exclude values. */
export function resolveFilter(grouping: ReportGrouping, field: string, attributes: readonly AttributeDefinition[]): AttributeFilter {
  if (!grouping || typeof grouping !== 'object') throw ServiceError.invalidField(field, 'isObject', `${field} must be an object`);
  const attribute = resolveAttribute(grouping.groupBy, `${field}.groupBy`, attributes);
  return {
    attribute,
    include: filterList(attribute, grouping.whitelistFilters, `${field}.whitelistFilters`),
    exclude: filterList(attribute, grouping.blacklistFilters, `${field}.blacklistFilters`),
  };
}
