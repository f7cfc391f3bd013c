import type { DrilldownReport, ReportCell, ReportColumn, ReportRow } from '@funnel/contracts';
import type { AttributeDefinition, AttributeNames } from '../catalogue/attributes';
import type { ResolvedDrilldown } from '../request/drilldown';
import { bucketText } from '../time/buckets';
import { metricCell, type BaseRow } from './values';

/** A grouped row as the engines answer it: `g<level>` the grouping values, `ctx<level>` their context (a node's funnel), and the base aggregates. */
export type EngineRow = BaseRow;

/** A grouping cell's id (asset id, text, action number, time bucket text) or null for N/A. */
export type GroupingRaw = string | number | null;

/** What a grouping value needs looked up to be shown: an asset's name (a node's within its funnel). */
export interface NameRequest {
  names: AttributeNames;
  id: string;
  /** The funnel of a node. */
  context?: string;
}

/** Names found for NameRequests; undefined: show the id. */
export type NameBook = (request: NameRequest) => string | undefined;

export const groupingKey = (level: number) => `g${level}`;
export const contextKey = (level: number) => `ctx${level}`;

/** The raw value of an engine's grouping value: "" / 0 (action) are N/A; time buckets as text. */
export function groupingRaw(attribute: AttributeDefinition, value: unknown): GroupingRaw {
  const source = attribute.source;
  if (source.kind === 'time') return bucketText(source.unit, Number(value));
  if (source.kind === 'action') return Number(value) > 0 ? Number(value) : null;
  if (value === null || value === undefined || value === '') return null;
  return String(value);
}

const regionNames = new Intl.DisplayNames(['en'], { type: 'region', fallback: 'code' });

function countryName(code: string): string {
  try {
    return regionNames.of(code.toUpperCase()) ?? code;
  } catch {
    return code;
  }
}

function groupingCell(attribute: AttributeDefinition, raw: GroupingRaw, context: unknown, names: NameBook): ReportCell {
  if (raw === null) return { raw, formatted: 'N/A' };
  const text = String(raw);
  switch (attribute.names.kind) {
    case 'asset':
    case 'funnelNode':
      return { raw, formatted: names({ names: attribute.names, id: text, context: typeof context === 'string' ? context : undefined }) ?? text };
    case 'country':
      return { raw, formatted: countryName(text) };
    case 'text':
      return { raw, formatted: text };
  }
}

/** The name lookups a page of rows needs (one per distinct id and kind). */
export function nameRequests(resolved: ResolvedDrilldown, rows: readonly EngineRow[]): NameRequest[] {
  const requests = new Map<string, NameRequest>();
  for (const row of rows) {
    resolved.groupings.slice(0, resolved.levels).forEach(({ attribute }, level) => {
      if (attribute.names.kind !== 'asset' && attribute.names.kind !== 'funnelNode') return;
      const raw = groupingRaw(attribute, row[groupingKey(level)]);
      if (raw === null) return;
      const context = row[contextKey(level)];
      const request: NameRequest = { names: attribute.names, id: String(raw), ...(typeof context === 'string' && context ? { context } : {}) };
      requests.set(JSON.stringify([request.names, request.id, request.context ?? '']), request);
    });
  }
  return [...requests.values()];
}

/** The report's columns: the grouping columns of the answer's levels, then the metrics in request order. */
export function reportColumns(resolved: ResolvedDrilldown): ReportColumn[] {
  return [
    ...resolved.groupings.slice(0, resolved.levels).map(({ attribute }) => ({
      name: attribute.label,
      key: attribute.key,
      type: 'grouping' as const,
      description: `grouped by ${attribute.label}`,
    })),
    ...resolved.metrics.map((metric) => ({ name: metric.label, key: metric.key, type: 'metric' as const, description: metric.formula })),
  ];
}

/** A row id: the JSON array of the row's grouping raw values from the top level down. */
export const rowIdOf = (path: readonly GroupingRaw[]): string => JSON.stringify(path);

/** The totals row's id. */
export const TOTALS_ROW_ID = 'totals';

/**
 * The report from the engine's rows (one page, in order) and totals. Flat: rows group by every
 * grouping, no parent, no children. Tree: rows of one level (the pinned levels plus one), each with
 * `parentRowId` the pinned path's id (null at the top level) and `children` [] (a client expands a
 * row by posting again with topLevelFilters naming its path). Rows whose value is N/A have raw null.
 */
export function assembleDrilldown(input: {
  resolved: ResolvedDrilldown;
  rows: readonly EngineRow[];
  totals: BaseRow;
  rowsTotal: number;
  names: NameBook;
}): DrilldownReport {
  const { resolved, rows, totals, rowsTotal, names } = input;
  const levels = resolved.groupings.slice(0, resolved.levels);
  const tree = resolved.viewType === 'tree';
  const parentRowId = tree && resolved.pinned.length ? rowIdOf(resolved.parentPath) : null;
  const reportRows: ReportRow[] = rows.map((row) => {
    const path = levels.map(({ attribute }, level) => groupingRaw(attribute, row[groupingKey(level)]));
    return {
      rowId: rowIdOf(path),
      parentRowId,
      cells: [
        ...levels.map(({ attribute }, level) => groupingCell(attribute, path[level], row[contextKey(level)], names)),
        ...resolved.metrics.map((metric) => metricCell(metric, row)),
      ],
      children: [],
    };
  });
  return {
    columns: reportColumns(resolved),
    rows: reportRows,
    totals: {
      rowId: TOTALS_ROW_ID,
      parentRowId: null,
      cells: [...levels.map(() => ({ raw: null, formatted: '' })), ...resolved.metrics.map((metric) => metricCell(metric, totals))],
      children: [],
    },
    rowsReturned: reportRows.length,
    rowsTotal,
  };
}
