import { randomBytes } from 'node:crypto';
import { Query, update as applyUpdateOperators } from 'mingo';
import {
  BulkOperation,
  BulkWriteFailure,
  BulkWriteResult,
  CheckpointPosition,
  CheckpointStore,
  Doc,
  DUPLICATE_KEY,
  Filter,
  FindOptions,
  ReadCollection,
  ReadStore,
  ReadStoreBulkWriteError,
  SortSpec,
  UpdateSpec,
} from './read-store.port';

/**
 * In-memory ReadStore. Query, projection, sort and update semantics come from mingo so they match
 * MongoDB's; this file adds what mingo does not do: storage by _id, unique and lookup indexes,
 * upserts, unordered bulk writes and MongoDB's error codes. Not durable: models are rebuilt from
 * the event log after a restart.
 */
export class EmbeddedReadStore implements ReadStore {
  readonly durable = false;
  readonly checkpoints: CheckpointStore = new EmbeddedCheckpointStore();
  private readonly collections = new Map<string, EmbeddedCollection>();
  private readonly queries = new CompiledQueryCache();

  collection<T extends Doc = Doc>(name: string): ReadCollection<T> {
    let collection = this.collections.get(name);
    if (!collection) {
      collection = new EmbeddedCollection(name, this.queries);
      this.collections.set(name, collection);
    }
    // The collection stores plain documents; T is the caller's view of them, as with the driver.
    return collection as unknown as ReadCollection<T>;
  }

  async close(): Promise<void> {
    // Nothing to release; the data stays readable, like a driver that reconnects on demand.
  }
}

/** A write failure carrying the MongoDB error code the server would report. */
export class EmbeddedStoreError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
    this.name = 'EmbeddedStoreError';
  }
}

/**
 * A failed operation inside bulkWrite. Deliberately not an Error: replays fail thousands of guarded
 * upserts per batch, and capturing a stack trace for each would dominate the cost.
 */
class WriteFailure {
  constructor(
    readonly code: number,
    readonly message: string,
  ) {}
}

// MongoDB error codes reproduced here (besides DUPLICATE_KEY).
const BAD_VALUE = 2;
const TYPE_MISMATCH = 14;
const PATH_NOT_VIABLE = 28;
const CONFLICTING_UPDATE_OPERATORS = 40;
const IMMUTABLE_FIELD = 66;
const INDEX_OPTIONS_CONFLICT = 85;
const INDEX_KEY_SPECS_CONFLICT = 86;

const ID_INDEX_NAME = '_id_';
/** Bounds the compiled-query cache; filters embedding per-document values would otherwise grow it forever. */
const MAX_CACHED_QUERIES = 10_000;
/** Above this many key combinations (e.g. a long $in on a compound index) a scan is as good. */
const MAX_LOOKUP_KEYS = 256;
const MATCH_ALL = new Query({});

type Row = Record<string, unknown>;

class EmbeddedCollection implements ReadCollection<Doc> {
  /** Insertion-ordered, so an unsorted scan returns natural order as MongoDB roughly does. */
  private readonly docs = new Map<string, Doc>();
  private readonly indexes: EqualityIndex[] = [];

  constructor(
    private readonly name: string,
    private readonly queries: CompiledQueryCache,
  ) {}

  async find(filter: Filter, options: FindOptions = {}): Promise<Doc[]> {
    return this.findNow(filter, options);
  }

  async findOne(filter: Filter, options: Pick<FindOptions, 'projection' | 'sort'> = {}): Promise<Doc | null> {
    return this.findNow(filter, { ...options, limit: 1 })[0] ?? null;
  }

  async countDocuments(filter: Filter = {}): Promise<number> {
    return isEmptyObject(filter) ? this.docs.size : this.match(filter).length;
  }

  async deleteMany(filter: Filter): Promise<{ deletedCount: number }> {
    const matches = this.match(filter);
    for (const doc of matches) this.remove(doc);
    return { deletedCount: matches.length };
  }

  async createIndex(keys: SortSpec, options: { unique?: boolean; name?: string } = {}): Promise<string> {
    const fields = Object.keys(keys);
    if (fields.length === 0) throw new EmbeddedStoreError(BAD_VALUE, 'Index keys cannot be empty');
    const name = options.name ?? fields.map((field) => `${field}_${keys[field]}`).join('_');
    const unique = options.unique === true;
    if (fields.length === 1 && fields[0] === '_id') return ID_INDEX_NAME; // always present and unique
    const sameKeys = (index: EqualityIndex) => sameKeySpec(index.keys, keys);
    const existing = this.indexes.find((index) => index.name === name) ?? this.indexes.find(sameKeys);
    if (existing) {
      if (existing.name === name && sameKeys(existing) && existing.unique === unique) return name;
      const code = existing.name === name && !sameKeys(existing) ? INDEX_KEY_SPECS_CONFLICT : INDEX_OPTIONS_CONFLICT;
      throw new EmbeddedStoreError(code, `An index with name '${existing.name}' or the same keys already exists with different options`);
    }
    const index = new EqualityIndex(name, { ...keys }, unique);
    for (const doc of this.docs.values()) {
      const entry = index.entryOf(doc);
      if (unique && index.conflicts(doc._id, entry.keys)) {
        throw new EmbeddedStoreError(DUPLICATE_KEY, `E11000 duplicate key error collection: ${this.name} index: ${name} dup key: ${describeKey(index, doc)}`);
      }
      index.add(doc._id, entry);
    }
    this.indexes.push(index);
    return name;
  }

  async bulkWrite(operations: BulkOperation<Doc>[]): Promise<BulkWriteResult> {
    // Malformed operations are rejected before anything is applied, as the driver does.
    operations.forEach(validateOperation);
    const result: Mutable<BulkWriteResult> = { insertedCount: 0, matchedCount: 0, modifiedCount: 0, deletedCount: 0, upsertedCount: 0 };
    const failures: BulkWriteFailure[] = [];
    for (let index = 0; index < operations.length; index++) {
      try {
        this.apply(operations[index], result);
      } catch (error) {
        failures.push({ index, ...failureOf(error) });
      }
    }
    if (failures.length > 0) throw new ReadStoreBulkWriteError(failures, { ...result });
    return result;
  }

  private findNow(filter: Filter, options: FindOptions): Doc[] {
    const skip = Math.max(0, options.skip ?? 0);
    // As in MongoDB: a limit of 0 means none, a negative one means its absolute value.
    const limit = options.limit ? Math.abs(options.limit) : undefined;
    const { sort, projection } = options;
    const enough = sort === undefined && limit !== undefined ? skip + limit : Infinity;
    const matches = this.match(filter, enough);
    if (sort === undefined && projection === undefined) {
      return matches.slice(skip, limit === undefined ? undefined : skip + limit).map(cloneDocument);
    }
    let cursor = MATCH_ALL.find<Doc>(matches, projection);
    if (sort) cursor = cursor.sort(sort);
    if (skip > 0) cursor = cursor.skip(skip);
    if (limit !== undefined) cursor = cursor.limit(limit);
    // mingo's projected documents share nested values with the stored ones.
    return cursor.all().map(cloneDocument);
  }

  /** The stored documents matching the filter (at most `enough`), using _id or an index when the filter allows. */
  private match(filter: Filter, enough = Infinity): Doc[] {
    const id = filter._id;
    if (typeof id === 'string') {
      // The hot path (projector writes, request lookups): one map read, and the rest of the filter
      // is only looked at when the document exists.
      const doc = this.docs.get(id);
      return doc && this.queries.predicate(withoutId(filter))(doc) ? [doc] : [];
    }
    const matches: Doc[] = [];
    const byId = idLookupOf(filter);
    if (byId) {
      const test = this.queries.predicate(byId.residual);
      for (const id of byId.ids) {
        const doc = this.docs.get(id);
        if (doc && test(doc)) {
          matches.push(doc);
          if (matches.length >= enough) break;
        }
      }
      return matches;
    }
    const test = this.queries.predicate(filter);
    const candidates = this.indexCandidates(filter) ?? this.docs.values();
    for (const candidate of candidates) {
      const doc = typeof candidate === 'string' ? this.docs.get(candidate) : candidate;
      if (doc && test(doc)) {
        matches.push(doc);
        if (matches.length >= enough) break;
      }
    }
    return matches;
  }

  /**
   * Ids of the documents that may match, from the most selective index whose every field the filter
   * pins to scalars; undefined when no index applies. A superset: callers still test the filter.
   */
  private indexCandidates(filter: Filter): Iterable<string> | undefined {
    let best: { keys: string[]; index: EqualityIndex; size: number } | undefined;
    for (const index of this.indexes) {
      if (!index.usableForLookup) continue;
      const keys = lookupKeysOf(index, filter);
      if (!keys) continue;
      let size = index.irregular.size;
      for (const key of keys) size += index.buckets.get(key)?.size ?? 0;
      if (!best || size < best.size) best = { keys, index, size };
    }
    if (!best) return undefined;
    const { index, keys } = best;
    const sets = keys.map((key) => index.buckets.get(key)).filter((set): set is Set<string> => set !== undefined);
    if (index.irregular.size > 0) sets.push(index.irregular);
    if (sets.length === 0) return [];
    if (sets.length === 1) return sets[0];
    const union = new Set<string>();
    for (const set of sets) for (const id of set) union.add(id);
    return union;
  }

  private apply(operation: BulkOperation<Doc>, result: Mutable<BulkWriteResult>): void {
    if ('insertOne' in operation) {
      const doc = toStoredDocument(operation.insertOne.document);
      if (doc._id === undefined) doc._id = newObjectIdHex();
      this.insert(doc);
      result.insertedCount++;
    } else if ('replaceOne' in operation) {
      const { filter, replacement, upsert } = operation.replaceOne;
      const [target] = this.match(filter, 1);
      if (target) {
        if (replacement._id !== undefined && replacement._id !== target._id) throw immutableIdError(target._id);
        const next = toStoredDocument(replacement, target._id);
        result.matchedCount++;
        if (!deepEqual(next, target)) {
          this.write(next, target);
          result.modifiedCount++;
        }
      } else if (upsert) {
        const filterId = equalityIdOf(filter);
        if (replacement._id !== undefined && filterId !== undefined && replacement._id !== filterId) throw immutableIdError(filterId);
        this.insert(toStoredDocument(replacement, replacement._id ?? filterId ?? newObjectIdHex()));
        result.upsertedCount++;
      }
    } else if ('updateOne' in operation || 'updateMany' in operation) {
      const many = 'updateMany' in operation;
      const { filter, update, upsert } = many ? operation.updateMany : operation.updateOne;
      const targets = this.match(filter, many ? Infinity : 1);
      for (const target of targets) {
        const next = updatedDocument(target, update, false);
        result.matchedCount++;
        if (next) {
          this.write(next, target);
          result.modifiedCount++;
        }
      }
      if (targets.length === 0 && upsert) {
        const seed = upsertSeedOf(filter);
        const inserted = updatedDocument(seed, update, true) ?? seed;
        this.insert(inserted._id === undefined ? toStoredDocument(inserted, newObjectIdHex()) : inserted);
        result.upsertedCount++;
      }
    } else if ('deleteOne' in operation || 'deleteMany' in operation) {
      const many = 'deleteMany' in operation;
      const { filter } = many ? operation.deleteMany : operation.deleteOne;
      const targets = this.match(filter, many ? Infinity : 1);
      for (const target of targets) this.remove(target);
      result.deletedCount += targets.length;
    }
  }

  private insert(doc: Doc): void {
    if (this.docs.has(doc._id)) {
      throw new WriteFailure(DUPLICATE_KEY, `E11000 duplicate key error collection: ${this.name} index: ${ID_INDEX_NAME} dup key: { _id: ${JSON.stringify(doc._id)} }`);
    }
    this.write(doc, undefined);
  }

  /** Stores `doc` in place of `previous` (same _id), after checking every unique index. */
  private write(doc: Doc, previous: Doc | undefined): void {
    const id = doc._id;
    const { indexes } = this;
    if (indexes.length > 0) {
      const entries = indexes.map((index) => index.entryOf(doc));
      for (let i = 0; i < indexes.length; i++) {
        const index = indexes[i];
        if (index.unique && index.conflicts(id, entries[i].keys)) {
          throw new WriteFailure(DUPLICATE_KEY, `E11000 duplicate key error collection: ${this.name} index: ${index.name} dup key: ${describeKey(index, doc)}`);
        }
      }
      for (let i = 0; i < indexes.length; i++) {
        if (previous) indexes[i].replace(id, entries[i]);
        else indexes[i].add(id, entries[i]);
      }
    }
    this.docs.set(id, doc);
  }

  private remove(doc: Doc): void {
    for (const index of this.indexes) index.remove(doc._id);
    this.docs.delete(doc._id);
  }
}

/**
 * Maps an index key (the encoded values of its fields) to the ids of the documents holding it, for
 * unique checks and equality lookups. Arrays are multikey, as in MongoDB: one key per element.
 */
class EqualityIndex {
  readonly buckets = new Map<string, Set<string>>();
  /** Documents whose keys cross nested arrays: their matching is left to mingo, so lookups always include them. */
  readonly irregular = new Set<string>();
  /** Positional paths ("items.0.sku") mean array indexes or field names depending on the data; lookups skip them. */
  readonly usableForLookup: boolean;
  readonly fields: string[];
  private readonly paths: string[][];
  private readonly keysById = new Map<string, string[]>();

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
      let value: unknown = doc;
      for (let depth = 0; depth < path.length && value !== undefined; depth++) {
        value = isPlainObject(value) ? value[path[depth]] : Array.isArray(value) ? ARRAY_ON_PATH : undefined;
      }
      if (value === ARRAY_ON_PATH || (typeof value === 'object' && value !== null)) return undefined;
      const encoded = encodeValue(value);
      key = key === undefined ? encoded : `${key}\u0000${encoded}`;
    }
    return key;
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
    this.keysById.set(id, entry.keys);
    if (entry.irregular) this.irregular.add(id);
  }

  replace(id: string, entry: IndexEntry): void {
    const previous = this.keysById.get(id);
    const unchanged = previous && previous.length === entry.keys.length && previous.every((key, i) => key === entry.keys[i]);
    if (unchanged && this.irregular.has(id) === entry.irregular) return;
    this.remove(id);
    this.add(id, entry);
  }

  remove(id: string): void {
    const keys = this.keysById.get(id);
    if (!keys) return;
    for (const key of keys) {
      const holders = this.buckets.get(key);
      holders?.delete(id);
      if (holders?.size === 0) this.buckets.delete(key);
    }
    this.keysById.delete(id);
    this.irregular.delete(id);
  }
}

interface IndexEntry {
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
/** Marks a path that runs through an array, which needs the multikey walk. */
const ARRAY_ON_PATH = Symbol('array on path');

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
      if (isPlainObject(value)) return `o{${Object.keys(value).map((key) => `${key.length}:${key}=${encodeValue(value[key])}`).join(',')}}`;
      return `x${String(value)}`;
    default:
      return `x${String(value)}`;
  }
}

/** Index keys for a filter that pins each index field to scalars ({f: v}, {f: {$eq: v}}, {f: {$in: [..]}}). */
function lookupKeysOf(index: EqualityIndex, filter: Filter): string[] | undefined {
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
function isLookupScalar(value: unknown): value is string | number | boolean {
  return typeof value === 'string' || typeof value === 'boolean' || (typeof value === 'number' && !Number.isNaN(value));
}

function describeKey(index: EqualityIndex, doc: Doc): string {
  return `{ ${index.fields.map((field) => `${field}: ${JSON.stringify(valueAtPath(doc, field.split('.')) ?? null)}`).join(', ')} }`;
}

/**
 * Compiled mingo queries keyed by the filter's JSON, so a projector replaying thousands of
 * same-shaped guarded writes compiles each distinct filter once.
 */
class CompiledQueryCache {
  private readonly queries = new Map<string, Query>();

  /** A test for the filter; compiles (or fetches) the mingo query only once a document needs it. */
  predicate(filter: Filter): (doc: Doc) => boolean {
    if (isEmptyObject(filter)) return matchesEverything;
    let query: Query | undefined;
    return (doc) => simpleEqualityVerdict(filter, doc) ?? (query ??= this.compiled(filter)).test(doc);
  }

  private compiled(filter: Filter): Query {
    const key = cacheKeyOf(filter);
    if (key === undefined) return new Query(filter);
    let query = this.queries.get(key);
    if (!query) {
      if (this.queries.size >= MAX_CACHED_QUERIES) this.queries.clear();
      // Compiled from a copy: the caller may reuse and mutate its filter object afterwards.
      query = new Query(cloneValue(filter));
      this.queries.set(key, query);
    }
    return query;
  }
}

/**
 * Decides `{ field: scalar, ... }` filters against scalar fields without mingo (strict equality
 * is MongoDB's rule there); undefined when anything else is involved (operators, paths, arrays).
 */
function simpleEqualityVerdict(filter: Filter, doc: Doc): boolean | undefined {
  let verdict = true;
  for (const field in filter) {
    if (field.charCodeAt(0) === 36 /* $ */ || field.includes('.')) return undefined;
    const expected = filter[field];
    const actual = doc[field];
    if (!isLookupScalar(expected) || !isLookupScalar(actual)) return undefined;
    if (actual !== expected) verdict = false;
  }
  return verdict;
}

/** JSON of a filter made only of JSON values; undefined when it holds others (RegExp, Date ...) whose JSON would collide. */
function cacheKeyOf(filter: Filter): string | undefined {
  return isJsonValue(filter) ? JSON.stringify(filter) : undefined;
}

function isJsonValue(value: unknown): boolean {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return true;
    case 'number':
      return Number.isFinite(value);
    case 'object':
      if (value === null) return true;
      if (Array.isArray(value)) return value.every(isJsonValue);
      if (!isPlainObject(value)) return false;
      for (const key in value) if (!isJsonValue(value[key])) return false;
      return true;
    default:
      return false;
  }
}

/** The _ids a filter pins (`_id: "x"`, `{$eq}`, `{$in}` of strings) and the rest of the filter to test. */
function idLookupOf(filter: Filter): { ids: Iterable<string>; residual: Filter } | undefined {
  const condition = filter._id;
  let ids: Iterable<string>;
  if (typeof condition === 'string') ids = [condition];
  else if (isPlainObject(condition) && Object.keys(condition).length === 1) {
    if (typeof condition.$eq === 'string') ids = [condition.$eq];
    else if (Array.isArray(condition.$in) && condition.$in.every((id) => typeof id === 'string')) ids = new Set(condition.$in as string[]);
    else return undefined;
  } else return undefined;
  return { ids, residual: withoutId(filter) };
}

function withoutId(filter: Filter): Filter {
  let residual: Filter = EMPTY_FILTER;
  for (const field in filter) {
    if (field === '_id') continue;
    if (residual === EMPTY_FILTER) residual = {};
    residual[field] = filter[field];
  }
  return residual;
}

const matchesEverything = () => true;

const EMPTY_FILTER: Filter = Object.freeze({}) as Filter;

function equalityIdOf(filter: Filter): string | undefined {
  const condition = filter._id;
  if (typeof condition === 'string') return condition;
  if (isPlainObject(condition) && typeof condition.$eq === 'string') return condition.$eq;
  return undefined;
}

/**
 * The document an update-style upsert starts from: the filter's equality conditions (also inside
 * $and and a one-clause $or), as MongoDB builds it.
 */
function upsertSeedOf(filter: Filter): Doc {
  const equalities: Row = {};
  collectEqualities(filter, equalities);
  // mingo refuses any $set of _id, so it is placed directly.
  const { _id: id, ...fields } = equalities;
  const seed = (id === undefined ? {} : { _id: id }) as Doc;
  if (Object.keys(fields).length > 0) applyOperators(seed, { $set: fields });
  return seed;
}

function collectEqualities(filter: Filter, out: Row): void {
  for (const field of Object.keys(filter)) {
    const condition = filter[field];
    if (field === '$and' || (field === '$or' && Array.isArray(condition) && condition.length === 1)) {
      if (Array.isArray(condition)) for (const clause of condition) if (isPlainObject(clause)) collectEqualities(clause, out);
    } else if (field.startsWith('$') || condition instanceof RegExp) {
      continue;
    } else if (isPlainObject(condition) && Object.keys(condition).some((key) => key.startsWith('$'))) {
      if ('$eq' in condition) out[field] = cloneValue(condition.$eq);
    } else {
      out[field] = cloneValue(condition);
    }
  }
}

/**
 * Applies an update to a copy of `doc`; returns the copy, or undefined when nothing changed.
 * `inserting` applies $setOnInsert (mingo lacks it; it is a $set that only upserts perform).
 */
function updatedDocument(doc: Doc, update: UpdateSpec, inserting: boolean): Doc | undefined {
  checkUpdatePaths(update);
  const operators: UpdateSpec = {};
  for (const operator of Object.keys(update)) {
    if (operator !== '$setOnInsert') operators[operator] = update[operator];
  }
  if (inserting && update.$setOnInsert) operators.$set = { ...operators.$set, ...update.$setOnInsert };
  const next = cloneValue(doc);
  if (operators.$set && '_id' in operators.$set) {
    // MongoDB accepts $set of _id to its current value (or on an upsert without one); mingo never does.
    const { _id: id, ...fields } = operators.$set;
    if (doc._id !== undefined && id !== doc._id) throw immutableIdError(doc._id);
    next._id = id as string;
    operators.$set = fields;
  }
  checkFieldUpdates(next, operators);
  const changed = applyOperators(next, operators);
  if (doc._id !== undefined && next._id !== doc._id) throw immutableIdError(doc._id);
  return changed ? toStoredDocument(next) : undefined;
}

function applyOperators(doc: Doc, operators: UpdateSpec): boolean {
  if (isEmptyObject(operators)) return false;
  try {
    // Deep clone mode: stored documents must not share values with the caller's update.
    return applyUpdateOperators(doc, operators, undefined, undefined, { cloneMode: 'deep' }).length > 0;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (/immutable field '_id'/.test(message)) throw new WriteFailure(IMMUTABLE_FIELD, message);
    if (/conflict/i.test(message)) throw new WriteFailure(CONFLICTING_UPDATE_OPERATORS, message);
    throw new WriteFailure(BAD_VALUE, message);
  }
}

/** MongoDB refuses two operators touching the same path (or one inside the other); so do we, before applying any. */
function checkUpdatePaths(update: UpdateSpec): void {
  const paths: string[] = [];
  for (const operator of Object.keys(update)) paths.push(...Object.keys(update[operator] ?? {}));
  if (paths.length < 2) return;
  paths.sort();
  for (let i = 1; i < paths.length; i++) {
    const [previous, path] = [paths[i - 1], paths[i]];
    if (path === previous || path.startsWith(`${previous}.`)) {
      throw new WriteFailure(CONFLICTING_UPDATE_OPERATORS, `Updating the path '${path}' would create a conflict at '${previous}'`);
    }
  }
}

/** mingo silently skips what MongoDB fails: $inc on non-numbers, and fields created inside scalars. */
function checkFieldUpdates(doc: Doc, operators: UpdateSpec): void {
  for (const operator of ['$set', '$inc']) {
    const fields = operators[operator];
    if (!fields) continue;
    for (const path of Object.keys(fields)) {
      const current = existingValueAt(doc, path);
      if (operator !== '$inc') continue;
      if (typeof fields[path] !== 'number') {
        throw new WriteFailure(TYPE_MISMATCH, `Cannot increment with non-numeric argument: {${path}: ${JSON.stringify(fields[path])}}`);
      }
      if (current !== undefined && typeof current !== 'number') {
        throw new WriteFailure(TYPE_MISMATCH, `Cannot apply $inc to a value of non-numeric type. {_id: ${JSON.stringify(doc._id)}} has the field '${path}' of non-numeric type`);
      }
    }
  }
}

/** The value at a dotted path (undefined when absent); fails like MongoDB when the path runs through a scalar. */
function existingValueAt(doc: Doc, path: string): unknown {
  const segments = path.split('.');
  let current: unknown = doc;
  for (let i = 0; i < segments.length && current !== undefined; i++) {
    if (i > 0 && (current === null || typeof current !== 'object')) {
      throw new WriteFailure(PATH_NOT_VIABLE, `Cannot create field '${segments[i]}' in element {${segments[i - 1]}: ${JSON.stringify(current)}}`);
    }
    current = (current as Row)[segments[i]];
  }
  return current;
}

function validateOperation(operation: BulkOperation<Doc>, index: number): void {
  const kinds = Object.keys(operation);
  if (kinds.length !== 1 || !OPERATION_KINDS.has(kinds[0])) throw new TypeError(`bulkWrite: operation ${index} is not one of ${[...OPERATION_KINDS].join(', ')}`);
  if ('updateOne' in operation || 'updateMany' in operation) {
    const { update } = 'updateOne' in operation ? operation.updateOne : operation.updateMany;
    const operators = Object.keys(update ?? {});
    if (operators.length === 0 || operators.some((key) => !key.startsWith('$'))) throw new TypeError(`bulkWrite: operation ${index}: update document requires atomic operators`);
  }
  if ('replaceOne' in operation && Object.keys(operation.replaceOne.replacement).some((key) => key.startsWith('$'))) {
    throw new TypeError(`bulkWrite: operation ${index}: replacement document must not contain atomic operators`);
  }
}

const OPERATION_KINDS = new Set(['insertOne', 'updateOne', 'updateMany', 'replaceOne', 'deleteOne', 'deleteMany']);

function failureOf(error: unknown): { code: number; message: string } {
  if (error instanceof WriteFailure) return { code: error.code, message: error.message };
  return { code: BAD_VALUE, message: error instanceof Error ? error.message : String(error) };
}

function immutableIdError(id: string): WriteFailure {
  return new WriteFailure(IMMUTABLE_FIELD, `After applying the update, the (immutable) field '_id' was found to have been altered to _id: ${JSON.stringify(id)}`);
}

function newObjectIdHex(): string {
  return randomBytes(12).toString('hex');
}

/** A private copy for storage, _id first; undefined fields become null as the BSON serializer makes them. */
function toStoredDocument(source: Row, id: unknown = source._id): Doc {
  const doc: Row = { _id: id };
  for (const field of Object.keys(source)) {
    if (field !== '_id') doc[field] = cloneValue(source[field]);
  }
  return doc as Doc;
}

function cloneDocument(doc: Doc): Doc {
  return cloneValue(doc);
}

/** Deep copy of document data (plain objects, arrays, Dates); other objects are treated as immutable values. */
function cloneValue<V>(value: V): V {
  if (value === undefined) return null as V;
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map(cloneValue) as V;
  if (value instanceof Date) return new Date(value.getTime()) as V;
  if (!isPlainObject(value)) return value;
  const copy: Row = {};
  for (const key of Object.keys(value)) copy[key] = cloneValue(value[key]);
  return copy as V;
}

/** Structural equality of document data, field order included (MongoDB compares documents byte-wise). */
function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return Number.isNaN(a) && Number.isNaN(b);
  if (a instanceof Date || b instanceof Date) return a instanceof Date && b instanceof Date && a.getTime() === b.getTime();
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((element, i) => deepEqual(element, b[i]));
  }
  const aKeys = Object.keys(a);
  const bKeys = Object.keys(b);
  if (aKeys.length !== bKeys.length) return false;
  return aKeys.every((key, i) => key === bKeys[i] && deepEqual((a as Row)[key], (b as Row)[key]));
}

function valueAtPath(doc: Row, path: string[]): unknown {
  let current: unknown = doc;
  for (const field of path) {
    if (!isPlainObject(current)) return undefined;
    current = current[field];
  }
  return current;
}

function sameKeySpec(a: SortSpec, b: SortSpec): boolean {
  const aKeys = Object.keys(a);
  const bKeys = Object.keys(b);
  return aKeys.length === bKeys.length && aKeys.every((key, i) => key === bKeys[i] && a[key] === b[key]);
}

function isArrayPosition(segment: string): boolean {
  return /^\d+$/.test(segment);
}

function isPlainObject(value: unknown): value is Row {
  if (typeof value !== 'object' || value === null) return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

function isEmptyObject(value: object): boolean {
  for (const _key in value) return false;
  return true;
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

class EmbeddedCheckpointStore implements CheckpointStore {
  private readonly positions = new Map<string, CheckpointPosition>();

  async get(projectorName: string): Promise<CheckpointPosition | null> {
    const position = this.positions.get(projectorName);
    return position ? { commit: position.commit, prepare: position.prepare } : null;
  }

  async advance(projectorName: string, position: CheckpointPosition): Promise<boolean> {
    const current = this.positions.get(projectorName);
    if (current && !isLater(position, current)) return false;
    this.positions.set(projectorName, Object.freeze({ commit: position.commit, prepare: position.prepare }));
    return true;
  }

  async reset(projectorName: string): Promise<void> {
    this.positions.delete(projectorName);
  }
}

function isLater(a: CheckpointPosition, b: CheckpointPosition): boolean {
  return a.commit > b.commit || (a.commit === b.commit && a.prepare > b.prepare);
}
