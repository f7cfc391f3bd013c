import { Doc, ProjectionSpec } from '../read-store.port';
import { type Row, cloneValue } from './documents';

/**
 * Projections naming only top-level fields, all included or all excluded (_id aside), are applied
 * here: each mingo cursor stage costs tens of microseconds, too much for a request's findOne.
 * Anything else (dotted paths, operators, mixed modes) is left to mingo.
 */
export interface TopLevelProjection {
  include: boolean;
  fields: Set<string>;
  keepId: boolean;
  /** Pickers for the documents' field orders met so far (see projectTopLevel). */
  pickers: FieldPicker[];
}

/** Copies the projected fields of a document whose fields are exactly `order`, in that order. */
interface FieldPicker {
  order: string[];
  pick: (doc: Doc) => Doc;
}

/** Field orders per projection given their own picker; documents of other orders take the general loop. */
const MAX_PICKERS = 8;

/** Projections seen, by their fields and values: their pickers outlive the call (a find's spec is often a new object each time). */
const projections = new Map<string, TopLevelProjection | null>();
const MAX_PROJECTIONS = 256;

export function topLevelProjectionOf(projection: ProjectionSpec): TopLevelProjection | undefined {
  let key = '';
  for (const field in projection) {
    const value: unknown = projection[field];
    if (value !== 0 && value !== 1 && typeof value !== 'boolean') return undefined;
    // A field's JSON ends where it ends, so no two projections share a key.
    key += `${JSON.stringify(field)}${value ? 1 : 0}`;
  }
  let known = projections.get(key);
  if (known === undefined) {
    known = parseTopLevelProjection(projection) ?? null;
    if (projections.size >= MAX_PROJECTIONS) projections.clear();
    projections.set(key, known);
  }
  return known ?? undefined;
}

function parseTopLevelProjection(projection: ProjectionSpec): TopLevelProjection | undefined {
  let include: boolean | undefined;
  const fields = new Set<string>();
  for (const field in projection) {
    const value: unknown = projection[field];
    if (field.includes('.') || field.startsWith('$') || (value !== 0 && value !== 1 && typeof value !== 'boolean')) return undefined;
    if (field === '_id') continue;
    const included = Boolean(value);
    if (include !== undefined && include !== included) return undefined;
    include = included;
    fields.add(field);
  }
  const keepId = projection._id === undefined || Boolean(projection._id);
  // With _id alone, {_id: 1} includes only it and {_id: 0} excludes only it; {} projects nothing away.
  return { include: include ?? (projection._id !== undefined && keepId), fields, keepId, pickers: [] };
}

/**
 * The projected copy of `doc`, its fields in the document's order (as MongoDB answers them).
 * Documents of one collection mostly share one field order, so for each order met the copy is made
 * by a function generated for it (an object literal of the kept fields): a loop that adds each kept
 * field by name builds every copy through V8's generic property stores, which cost about five times
 * as much for a document's head read in a request.
 */
export function projectTopLevel(doc: Doc, projection: TopLevelProjection): Doc {
  const pickers = projection.pickers;
  for (let p = 0; p < pickers.length; p++) if (hasFieldOrder(doc, pickers[p].order)) return pickers[p].pick(doc);
  if (pickers.length < MAX_PICKERS) {
    const picker = pickerFor(Object.keys(doc), projection);
    if (picker) {
      pickers.push(picker);
      return picker.pick(doc);
    }
  }
  return projectFieldByField(doc, projection);
}

function wanted(field: string, { include, fields, keepId }: TopLevelProjection): boolean {
  return field === '_id' ? keepId : fields.has(field) === include;
}

function projectFieldByField(doc: Doc, projection: TopLevelProjection): Doc {
  const projected: Row = {};
  for (const field in doc) if (wanted(field, projection)) projected[field] = cloneValue(doc[field]);
  return projected as Doc;
}

/** Whether `doc`'s own enumerable fields are `order`, in that order. */
function hasFieldOrder(doc: Doc, order: string[]): boolean {
  let i = 0;
  for (const field in doc) if (field !== order[i++]) return false;
  return i === order.length;
}

/**
 * A picker for documents with fields `order`. The field names are written into the generated source
 * only as JSON string literals; a document with a `__proto__` field (which an object literal would
 * take for its prototype) gets none.
 */
function pickerFor(order: string[], projection: TopLevelProjection): FieldPicker | undefined {
  if (order.includes('__proto__')) return undefined;
  const kept = order.filter((field) => wanted(field, projection));
  const body = kept.map((field) => `${JSON.stringify(field)}: clone(doc[${JSON.stringify(field)}])`).join(', ');
  const pick = new Function('clone', `return function pick(doc) { return { ${body} }; };`)(cloneValue) as (doc: Doc) => Doc;
  return { order, pick };
}
