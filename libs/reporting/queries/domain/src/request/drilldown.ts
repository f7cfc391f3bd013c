import { REPORTING_QUERY_LIMITS, ServiceError, type DrilldownRequest, type TimeAttribution, type ViewType } from '@funnel/contracts';
import type { AttributeDefinition } from '../catalogue/attributes';
import { METRICS, type MetricDefinition } from '../catalogue/metrics';
import { resolveName, unknownName, type Named } from '../catalogue/names';
import { groupingRaw } from '../report/assemble';
import { offsetPeriods, type OffsetPeriod } from '../time/zone-periods';
import { filterValue, resolveAttribute, resolveFilter, type AttributeFilter, type FilterValue } from './filters';
import { parseWindow, type TimeWindow } from './window';

export type MetricOperator = '<' | '<=' | '>' | '>=';

export interface MetricFilter {
  metric: MetricDefinition;
  operator: MetricOperator;
  value: number;
}

/** A sort key: one of the answer's grouping columns (by level) or any metric. */
export type SortTarget = { kind: 'grouping'; level: number } | { kind: 'metric'; metric: MetricDefinition };

/** A drilldown request, checked and resolved against the catalogue. */
export interface ResolvedDrilldown {
  window: TimeWindow;
  timeZone: string;
  /** The zone's offsets over the window (time groupings bucket local time with them). */
  periods: OffsetPeriod[];
  /** Every grouping of the request with its filters. */
  groupings: AttributeFilter[];
  /** How many groupings this answer groups by: all (flat), or the pinned ones plus one (tree). */
  levels: number;
  /** topLevelFilters: the values pinning the first groupings (the parent row of a tree level). */
  pinned: FilterValue[];
  /** The raw values of the pinned parent row (its rowId path). */
  parentPath: (string | number | null)[];
  metrics: MetricDefinition[];
  metricFilters: MetricFilter[];
  sorting: { target: SortTarget; order: 'asc' | 'desc' }[];
  paging: { start: number; length: number };
  viewType: ViewType;
  timeAttribution: TimeAttribution;
}

const OPERATOR = /^\s*(<=|>=|<|>)\s*(-?\d+(?:\.\d+)?)\s*$/;

function oneOf<T extends string>(value: unknown, allowed: readonly T[], fallback: T, field: string): T {
  if (value === undefined || value === null) return fallback;
  if (!allowed.includes(value as T)) throw ServiceError.invalidField(field, 'isIn', `${field} must be one of ${allowed.join(', ')}`);
  return value as T;
}

function integerIn(value: unknown, min: number, max: number, fallback: number, field: string): number {
  if (value === undefined || value === null) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max)
    throw ServiceError.invalidField(field, 'isInt', `${field} must be an integer from ${min} to ${max}`);
  return value;
}

/** Metric keys or labels (absent or empty: every metric, in catalogue order). */
export function resolveMetrics(names: unknown): MetricDefinition[] {
  if (names === undefined || names === null) return [...METRICS];
  if (!Array.isArray(names)) throw ServiceError.invalidField('metrics', 'isArray', 'metrics must be an array of metric names');
  if (!names.length) return [...METRICS];
  const metrics = names.map((name, i) => {
    if (typeof name !== 'string') throw ServiceError.invalidField(`metrics.${i}`, 'isString', 'metrics must name metrics');
    return resolveName('metric', `metrics.${i}`, name, METRICS);
  });
  return metrics.filter((metric, i) => metrics.indexOf(metric) === i);
}

/**
 * Checks a drilldown request beyond its shape and resolves its names against `attributes` (the
 * catalogue as this request sees it). Refuses (400): an unknown attribute or metric (naming the
 * nearest valid one), a bad window or time zone, 0 or more than 5 groupings, an attribute grouped
 * twice or one that cannot be grouped, topLevelFilters that do not pin the first groupings in order
 * (fewer than the groupings), a bad metric filter, sorting by a column the answer does not have.
 */
export function resolveDrilldown(request: DrilldownRequest, attributes: readonly AttributeDefinition[]): ResolvedDrilldown {
  if (!request || typeof request !== 'object') throw ServiceError.invalidField('', 'isObject', 'the request must be an object');
  const window = parseWindow(request);
  const timeZone = request.timeZone ?? 'UTC';
  if (typeof timeZone !== 'string') throw ServiceError.invalidField('timeZone', 'isString', 'timeZone must be an IANA time zone name');
  const periods = offsetPeriods(timeZone, window.startMs, window.endMs);

  if (!Array.isArray(request.groupings) || request.groupings.length < 1 || request.groupings.length > REPORTING_QUERY_LIMITS.maxGroupings)
    throw ServiceError.invalidField('groupings', 'arraySize', `groupings must hold 1 to ${REPORTING_QUERY_LIMITS.maxGroupings} groupings`);
  const groupings = request.groupings.map((grouping, i) => resolveFilter(grouping, `groupings.${i}`, attributes));
  groupings.forEach(({ attribute }, i) => {
    if (!attribute.canGroupBy) throw ServiceError.invalidField(`groupings.${i}.groupBy`, 'canGroupBy', `${attribute.label} cannot be grouped by`);
    if (groupings.findIndex((other) => other.attribute.key === attribute.key) !== i)
      throw ServiceError.invalidField(`groupings.${i}.groupBy`, 'unique', `${attribute.label} is grouped by twice`);
  });

  const options = request.options ?? {};
  const viewType = oneOf<ViewType>(options.viewType, ['flat', 'tree'], 'flat', 'options.viewType');
  const timeAttribution = oneOf<TimeAttribution>(options.timeAttribution, ['entrance', 'event'], 'entrance', 'options.timeAttribution');

  const topLevel = request.topLevelFilters ?? [];
  if (!Array.isArray(topLevel) || topLevel.length >= groupings.length)
    throw ServiceError.invalidField('topLevelFilters', 'arraySize', 'topLevelFilters must pin fewer levels than there are groupings');
  const pinned: FilterValue[] = [];
  const parentPath: (string | number | null)[] = [];
  topLevel.forEach((filter, i) => {
    const field = `topLevelFilters.${i}`;
    const attribute = resolveAttribute(filter?.groupBy, `${field}.groupBy`, attributes);
    if (attribute.key !== groupings[i].attribute.key)
      throw ServiceError.invalidField(
        `${field}.groupBy`,
        'pinsGrouping',
        `topLevelFilters must pin the groupings in order: ${field} must name ${groupings[i].attribute.label}`,
      );
    const values = filter.whitelistFilters;
    if (!Array.isArray(values) || values.length !== 1)
      throw ServiceError.invalidField(
        `${field}.whitelistFilters`,
        'arraySize',
        `${field}.whitelistFilters must hold the parent row's one raw value (null for N/A)`,
      );
    const value = filterValue(attribute, values[0], `${field}.whitelistFilters`, true);
    pinned.push(value);
    parentPath.push(value.kind === 'equals' ? groupingRaw(attribute, value.value) : null);
  });
  const levels = viewType === 'tree' ? pinned.length + 1 : groupings.length;

  const metrics = resolveMetrics(request.metrics);

  const filterColumns = request.columnFilters?.filterColumns ?? [];
  if (!Array.isArray(filterColumns)) throw ServiceError.invalidField('columnFilters.filterColumns', 'isArray', 'columnFilters.filterColumns must be an array');
  const metricFilters = filterColumns.map((filter, i): MetricFilter => {
    const field = `columnFilters.filterColumns.${i}`;
    const metric = resolveName('metric', `${field}.columnName`, String(filter?.columnName ?? ''), METRICS);
    const match = OPERATOR.exec(typeof filter?.filter === 'string' ? filter.filter : '');
    if (!match)
      throw ServiceError.invalidField(`${field}.filter`, 'metricFilter', `${field}.filter must be an operator (<, <=, >, >=) and a number, e.g. ">= 10"`);
    return { metric, operator: match[1] as MetricOperator, value: Number(match[2]) };
  });

  const columns: (Named & { target: SortTarget })[] = [
    ...groupings
      .slice(0, levels)
      .map(({ attribute }, level) => ({ key: attribute.key, label: attribute.label, target: { kind: 'grouping', level } as SortTarget })),
    ...METRICS.map((metric) => ({ key: metric.key, label: metric.label, target: { kind: 'metric', metric } as SortTarget })),
  ];
  const sortingColumns = request.sorting?.sortingColumns ?? [];
  if (!Array.isArray(sortingColumns)) throw ServiceError.invalidField('sorting.sortingColumns', 'isArray', 'sorting.sortingColumns must be an array');
  const sorting = sortingColumns.map((column, i) => {
    const field = `sorting.sortingColumns.${i}`;
    const name = String(column?.columnName ?? '');
    const found = resolveColumn(name, `${field}.columnName`, columns, attributes);
    return { target: found.target, order: oneOf<'asc' | 'desc'>(column?.order, ['asc', 'desc'], 'desc', `${field}.order`) };
  });
  if (!sorting.length) sorting.push({ target: { kind: 'metric', metric: METRICS[0] }, order: 'desc' });

  const paging = {
    start: integerIn(request.paging?.start, 0, Number.MAX_SAFE_INTEGER, 0, 'paging.start'),
    length: integerIn(request.paging?.length, 1, REPORTING_QUERY_LIMITS.maxPageLength, REPORTING_QUERY_LIMITS.defaultPageLength, 'paging.length'),
  };

  return { window, timeZone, periods, groupings, levels, pinned, parentPath, metrics, metricFilters, sorting, paging, viewType, timeAttribution };
}

/** A sorting column among the answer's columns; an attribute the answer does not group by is named as such. */
function resolveColumn<T extends Named>(name: string, field: string, columns: readonly T[], attributes: readonly AttributeDefinition[]): T {
  try {
    return resolveName('column', field, name, columns);
  } catch (error) {
    const attribute = attributes.find((candidate) => [candidate.key, candidate.label].some((n) => n.toLowerCase() === name.trim().toLowerCase()));
    if (attribute) throw ServiceError.invalidField(field, 'isColumn', `${field}: the answer has no ${attribute.label} column (not grouped at this level)`);
    throw error instanceof ServiceError ? error : unknownName('column', field, name, columns);
  }
}
