import { Doc, Filter, SortSpec } from '../read-store.port';
import { valueAtPath, isArrayPosition, isPlainObject } from './documents';

/** Above this many key combinations (e.g. a long $in on a compound index) a scan is as good. */
const MAX_LOOKUP_KEYS = 256;

/**
 * Maps an index key (the encoded values of its fields) to the ids of the documents holding it, for
 * unique checks and equality lookups. Arrays are multikey, as in MongoDB: one key per element.
 */
export class EqualityIndex {
  readonly buckets = new Map<string, Set<string>>();
  /** Documents whose keys cross nested arrays: their matching is left to mingo, so lookups always include them. */
  readonly irregular = new Set<string>();
  /** Positional paths ("items.0.sku") mean array indexes or field names depending on the data; lookups skip them. */
  readonly usableForLookup: boolean;
  readonly fields: string[];
  private readonly paths: string[][];

  constructor(
    readonly name: string,
    readonly keys: SortSpec,
    readonly unique: boolean,
  ) {
    this.fields = Object.keys(keys);
    this.paths = this.fields.map((field) => field.split('.'));
    this.usableForLookup = !this.paths.some((path) => path.some(isArrayPosition));
  }

  entryOf(doc: Doc): IndexEntry {
    const simple = this.simpleKeyOf(doc);
    if (simple !== undefined) return { keys: [simple], irregular: false };
    const state = { irregular: false };
    let keys: string[] | undefined;
    for (const path of this.paths) {
      const fieldKeys: string[] = [];
      collectIndexKeys(doc, path, 0, fieldKeys, state);
      keys = keys === undefined ? fieldKeys : keys.flatMap((prefix) => fieldKeys.map((key) => `${prefix}\u0000${key}`));
    }
    const distinct = keys && keys.length > 1 ? [...new Set(keys)] : (keys ?? []);
    return { keys: distinct, irregular: state.irregular };
  }

  /** The one key of a document whose indexed fields are scalars or missing (no arrays on the way); undefined otherwise. */
  private simpleKeyOf(doc: Doc): string | undefined {
    let key: string | undefined;
    for (const path of this.paths) {
      const value = scalarAtPath(doc, path);
      if (value === NOT_SCALAR) return undefined;
      const encoded = encodeValue(value);
      key = key === undefined ? encoded : `${key}\u0000${encoded}`;
    }
    return key;
  }

  /** Whether both documents hold the same scalars at every indexed path (false when unsure: arrays, objects). */
  sameScalarValues(a: Doc, b: Doc): boolean {
    for (const path of this.paths) {
      const before = scalarAtPath(a, path);
      if (before === NOT_SCALAR || before !== scalarAtPath(b, path)) return false;
    }
    return true;
  }

  conflicts(id: string, keys: string[]): boolean {
    for (const key of keys) {
      const holders = this.buckets.get(key);
      if (!holders) continue;
      for (const holder of holders) if (holder !== id) return true;
    }
    return false;
  }

  add(id: string, entry: IndexEntry): void {
    for (const key of entry.keys) {
      let holders = this.buckets.get(key);
      if (!holders) {
        holders = new Set();
        this.buckets.set(key, holders);
      }
      holders.add(id);
    }
    if (entry.irregular) this.irregular.add(id);
  }

  replace(id: string, previous: IndexEntry, next: IndexEntry): void {
    const unchanged =
      previous.irregular === next.irregular && previous.keys.length === next.keys.length && previous.keys.every((key, i) => key === next.keys[i]);
    if (unchanged) return;
    this.remove(id, previous);
    this.add(id, next);
  }

  /** `entry` is the one the document was added with (recomputed from the stored document, which never changes in place). */
  remove(id: string, entry: IndexEntry): void {
    for (const key of entry.keys) {
      const holders = this.buckets.get(key);
      holders?.delete(id);
      if (holders?.size === 0) this.buckets.delete(key);
    }
    this.irregular.delete(id);
  }
}

export interface IndexEntry {
  keys: string[];
  irregular: boolean;
}

/** Collects the encoded values reached by `path`, descending into arrays like MongoDB's multikey indexes. */
function collectIndexKeys(value: unknown, path: string[], depth: number, out: string[], state: { irregular: boolean }): void {
  if (depth === path.length) {
    if (!Array.isArray(value)) {
      out.push(encodeValue(value));
      return;
    }
    if (value.length === 0) out.push(EMPTY_ARRAY_KEY);
    for (const element of value) {
      if (Array.isArray(element)) state.irregular = true;
      out.push(encodeValue(element));
    }
    return;
  }
  const field = path[depth];
  if (Array.isArray(value)) {
    if (value.length === 0) collectIndexKeys(undefined, path, depth + 1, out, state);
    for (const element of value) {
      if (Array.isArray(element)) state.irregular = true;
      collectIndexKeys(isPlainObject(element) ? element[field] : undefined, path, depth + 1, out, state);
    }
    return;
  }
  collectIndexKeys(isPlainObject(value) ? value[field] : undefined, path, depth + 1, out, state);
}

const EMPTY_ARRAY_KEY = 'u';

/** Marks a path leading to (or through) an array or object, which needs the multikey walk. */
const NOT_SCALAR = Symbol('not scalar');

/** The scalar (or undefined when missing) at a path of plain objects; NOT_SCALAR for arrays and objects. */
function scalarAtPath(doc: Doc, path: string[]): unknown {
  let value: unknown = doc;
  for (let depth = 0; depth < path.length && value !== undefined; depth++) {
    if (Array.isArray(value)) return NOT_SCALAR;
    value = isPlainObject(value) ? value[path[depth]] : undefined;
  }
  return typeof value === 'object' && value !== null ? NOT_SCALAR : value;
}

/** An unambiguous text form of a value; numerically equal numbers share one, as MongoDB compares them. */
function encodeValue(value: unknown): string {
  switch (typeof value) {
    case 'string':
      return `s${value.length}:${value}`;
    case 'number':
    case 'bigint':
      return `n${value}`;
    case 'boolean':
      return value ? 't' : 'f';
    case 'undefined':
      return 'z'; // missing and null are the same key in a MongoDB index
    case 'object':
      if (value === null) return 'z';
      if (value instanceof Date) return `d${value.getTime()}`;
      if (Array.isArray(value)) return `a[${value.map(encodeValue).join(',')}]`;
      if (isPlainObject(value))
        return `o{${Object.keys(value)
          .map((key) => `${key.length}:${key}=${encodeValue(value[key])}`)
          .join(',')}}`;
      return `x${String(value)}`;
    default:
      return `x${String(value)}`;
  }
}

/** Index keys for a filter that pins each index field to scalars ({f: v}, {f: {$eq: v}}, {f: {$in: [..]}}). */
export function lookupKeysOf(index: EqualityIndex, filter: Filter): string[] | undefined {
  let keys: string[] = [''];
  for (let i = 0; i < index.fields.length; i++) {
    const values = lookupValuesOf(filter[index.fields[i]]);
    if (!values) return undefined;
    keys = i === 0 ? values.map(encodeValue) : keys.flatMap((prefix) => values.map((value) => `${prefix}\u0000${encodeValue(value)}`));
    if (keys.length > MAX_LOOKUP_KEYS) return undefined;
  }
  return keys;
}

function lookupValuesOf(condition: unknown): unknown[] | undefined {
  if (isLookupScalar(condition)) return [condition];
  if (!isPlainObject(condition)) return undefined;
  const operators = Object.keys(condition);
  if (operators.length !== 1) return undefined;
  if (operators[0] === '$eq' && isLookupScalar(condition.$eq)) return [condition.$eq];
  const candidates = condition.$in;
  if (operators[0] === '$in' && Array.isArray(candidates) && candidates.every(isLookupScalar)) return candidates;
  return undefined;
}

/** Scalars whose equality match is exactly "the index holds this key" (null also matches missing fields, so it is left to scans). */
export function isLookupScalar(value: unknown): value is string | number | boolean {
  return typeof value === 'string' || typeof value === 'boolean' || (typeof value === 'number' && !Number.isNaN(value));
}

export function describeKey(index: EqualityIndex, doc: Doc): string {
  return `{ ${index.fields.map((field) => `${field}: ${JSON.stringify(valueAtPath(doc, field.split('.')) ?? null)}`).join(', ')} }`;
}

export function sameKeySpec(a: SortSpec, b: SortSpec): boolean {
  const aKeys = Object.keys(a);
  const bKeys = Object.keys(b);
  return aKeys.length === bKeys.length && aKeys.every((key, i) => key === bKeys[i] && a[key] === b[key]);
}
