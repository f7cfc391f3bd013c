import { randomBytes } from 'node:crypto';
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
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
  ProjectionSpec,
  ReadStoreBulkWriteError,
  SortSpec,
  UpdateSpec,
} from './read-store.port';

/**
 * In-memory ReadStore. Filters and sorts are evaluated by mingo so they match MongoDB's semantics,
 * as are projections and update operators beyond the common cases this file applies itself for
 * speed (top-level projections; $set, $unset, $inc on plain paths), which property tests check
 * against mingo. Added here: storage by _id, unique and lookup indexes, upserts, unordered bulk
 * writes and MongoDB's error codes. Not durable: models are rebuilt from the event log after a restart.
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

/** Thrown by createIndex with the MongoDB error code the server would report (as MongoServerError carries `code`). */
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

  /**
   * Matching and sorting take one turn of the event loop; the answer's private copies are made in
   * slices (see copyInSlices), so a large answer (an unpaged list of 10,000 assets) does not hold
   * every other request up. Stored documents are never modified (writes replace them), so the copies
   * are of the documents as they were when the find started.
   */
  async find(filter: Filter, options: FindOptions = {}): Promise<Doc[]> {
    const { docs, copy } = this.findStored(filter, options);
    return copyInSlices(docs, copy);
  }

  async findOne(filter: Filter, options: Pick<FindOptions, 'projection' | 'sort'> = {}): Promise<Doc | null> {
    if (options.sort) return this.findNow(filter, { ...options, limit: 1 })[0] ?? null;
    // Unsorted, the first match is the answer: no page to cut (a request's lookup by _id).
    const [first] = this.match(filter, 1);
    if (first === undefined) return null;
    const topLevel = options.projection && topLevelProjectionOf(options.projection);
    if (options.projection === undefined || topLevel) return topLevel ? projectTopLevel(first, topLevel) : cloneDocument(first);
    return cloneDocument(MATCH_ALL.find<Doc>([first], options.projection).all()[0]);
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
        const failure = this.apply(operations[index], result);
        if (failure) failures.push({ index, code: failure.code, message: failure.message });
      } catch (error) {
        failures.push({ index, ...failureOf(error) });
      }
    }
    if (failures.length > 0) throw new ReadStoreBulkWriteError(failures, { ...result });
    return result;
  }

  private findNow(filter: Filter, options: FindOptions): Doc[] {
    const { docs, copy } = this.findStored(filter, options);
    return docs.map(copy);
  }

  /** The documents a find answers, in order, not yet copied (stored ones, or mingo's projections), and how to copy each. */
  private findStored(filter: Filter, options: FindOptions): { docs: Doc[]; copy: (doc: Doc) => Doc } {
    const skip = Math.max(0, options.skip ?? 0);
    // As in MongoDB: a limit of 0 means none, a negative one means its absolute value.
    const limit = options.limit ? Math.abs(options.limit) : undefined;
    const { sort, projection } = options;
    const enough = sort === undefined && limit !== undefined ? skip + limit : Infinity;
    const matches = this.match(filter, enough);
    const topLevel = projection && topLevelProjectionOf(projection);
    if (projection === undefined || topLevel) {
      const ordered = sort ? (sortedByStringFields(matches, sort) ?? MATCH_ALL.find<Doc>(matches).sort(sort).all()) : matches;
      const page = ordered.slice(skip, limit === undefined ? undefined : skip + limit);
      return { docs: page, copy: topLevel ? (doc) => projectTopLevel(doc, topLevel) : cloneDocument };
    }
    let cursor = MATCH_ALL.find<Doc>(matches, projection);
    if (sort) cursor = cursor.sort(sort);
    if (skip > 0) cursor = cursor.skip(skip);
    if (limit !== undefined) cursor = cursor.limit(limit);
    // mingo's projected documents share nested values with the stored ones.
    return { docs: cursor.all(), copy: cloneDocument };
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

  /**
   * Applies one operation. A duplicate _id is returned rather than thrown: it is the expected outcome
   * of every stale guarded upsert during a replay, and exceptions would make replays several times slower.
   */
  private apply(operation: BulkOperation<Doc>, result: Mutable<BulkWriteResult>): WriteFailure | undefined {
    if ('insertOne' in operation) {
      const { document } = operation.insertOne;
      const id = document._id ?? newObjectIdHex();
      if (this.docs.has(id)) return this.duplicateId(id);
      this.write(toStoredDocument(document, id), undefined);
      result.insertedCount++;
    } else if ('replaceOne' in operation) {
      const { filter, replacement, upsert } = operation.replaceOne;
      const target = this.match(filter, 1)[0] as Doc | undefined;
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
        const id = replacement._id ?? filterId ?? newObjectIdHex();
        if (this.docs.has(id)) return this.duplicateId(id);
        this.write(toStoredDocument(replacement, id), undefined);
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
        if (seed._id !== undefined && this.docs.has(seed._id)) return this.duplicateId(seed._id);
        const inserted = updatedDocument(seed, update, true) ?? seed;
        const id = inserted._id ?? newObjectIdHex();
        if (this.docs.has(id)) return this.duplicateId(id);
        // Already a private copy; only a generated _id still needs placing (first, as MongoDB does).
        this.write(inserted._id === undefined ? toStoredDocument(inserted, id) : inserted, undefined);
        result.upsertedCount++;
      }
    } else if ('deleteOne' in operation || 'deleteMany' in operation) {
      const many = 'deleteMany' in operation;
      const { filter } = many ? operation.deleteMany : operation.deleteOne;
      const targets = this.match(filter, many ? Infinity : 1);
      for (const target of targets) this.remove(target);
      result.deletedCount += targets.length;
    }
    return undefined;
  }

  private duplicateId(id: string): WriteFailure {
    return new WriteFailure(
      DUPLICATE_KEY,
      `E11000 duplicate key error collection: ${this.name} index: ${ID_INDEX_NAME} dup key: { _id: ${JSON.stringify(id)} }`,
    );
  }

  /** Stores `doc` in place of `previous` (same _id), after checking every unique index. */
  private write(doc: Doc, previous: Doc | undefined): void {
    const id = doc._id;
    let changes: { index: EqualityIndex; entry: IndexEntry }[] | undefined;
    for (const index of this.indexes) {
      // Most rewrites leave indexed fields alone; then the index needs no work and cannot conflict.
      if (previous && index.sameScalarValues(previous, doc)) continue;
      const entry = index.entryOf(doc);
      if (index.unique && index.conflicts(id, entry.keys)) {
        throw new WriteFailure(DUPLICATE_KEY, `E11000 duplicate key error collection: ${this.name} index: ${index.name} dup key: ${describeKey(index, doc)}`);
      }
      (changes ??= []).push({ index, entry });
    }
    for (const { index, entry } of changes ?? []) {
      if (previous) index.replace(id, index.entryOf(previous), entry);
      else index.add(id, entry);
    }
    this.docs.set(id, doc);
  }

  private remove(doc: Doc): void {
    for (const index of this.indexes) index.remove(doc._id, index.entryOf(doc));
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
 * Decides a filter without mingo when its top-level conditions on scalar fields settle it (strict
 * equality is MongoDB's rule for scalars): false as soon as a `{ field: scalar }` or `{ field:
 * { $ne: scalar } }` condition fails, as every other condition is ANDed to it; true when every
 * condition is such a one and holds; undefined when another condition (an operator, a path, an
 * array) is left to decide. An account's list (`{ accountId, kind, status: { $ne: 'deleted' } }`)
 * is thus decided for every document of a scan without mingo.
 */
function simpleEqualityVerdict(filter: Filter, doc: Doc): boolean | undefined {
  let undecided = false;
  for (const field in filter) {
    if (field.charCodeAt(0) === 36 /* $ */ || field.includes('.')) {
      undecided = true;
      continue;
    }
    const expected = filter[field];
    const actual = doc[field];
    if (isLookupScalar(expected)) {
      if (!isLookupScalar(actual)) undecided = true;
      else if (actual !== expected) return false;
    } else if (isPlainObject(expected) && isScalarNe(expected) && (actual === undefined || isLookupScalar(actual))) {
      // A missing field is not equal to anything, as in MongoDB.
      if (actual === expected.$ne) return false;
    } else {
      undecided = true;
    }
  }
  return undecided ? undefined : true;
}

/** `{ $ne: scalar }` and nothing else. */
function isScalarNe(condition: Row): condition is { $ne: string | number | boolean } {
  for (const operator in condition) if (operator !== '$ne') return false;
  return isLookupScalar(condition.$ne);
}

/**
 * Projections naming only top-level fields, all included or all excluded (_id aside), are applied
 * here: each mingo cursor stage costs tens of microseconds, too much for a request's findOne.
 * Anything else (dotted paths, operators, mixed modes) is left to mingo.
 */
interface TopLevelProjection {
  include: boolean;
  fields: Set<string>;
  keepId: boolean;
}

function topLevelProjectionOf(projection: ProjectionSpec): TopLevelProjection | undefined {
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
  return { include: include ?? (projection._id !== undefined && keepId), fields, keepId };
}

function projectTopLevel(doc: Doc, { include, fields, keepId }: TopLevelProjection): Doc {
  const projected: Row = {};
  for (const field in doc) {
    const wanted = field === '_id' ? keepId : fields.has(field) === include;
    if (wanted) projected[field] = cloneValue(doc[field]);
  }
  return projected as Doc;
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
  const { _id: id, ...fields } = equalities;
  const seed = (id === undefined ? {} : { _id: id }) as Doc;
  return applyDirectly(seed, { $set: fields }) ?? seed;
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
 * The update for `doc`, or undefined when it changes nothing. `inserting` applies $setOnInsert
 * (a $set that only upserts perform). The original document is never modified.
 */
function updatedDocument(doc: Doc, update: UpdateSpec, inserting: boolean): Doc | undefined {
  checkUpdatePaths(update);
  const operators: UpdateSpec = {};
  for (const operator of Object.keys(update)) {
    if (operator !== '$setOnInsert') operators[operator] = update[operator];
  }
  if (inserting && update.$setOnInsert) operators.$set = Object.assign({}, operators.$set, update.$setOnInsert);
  let id = doc._id;
  if (operators.$set && '_id' in operators.$set) {
    // MongoDB accepts a $set of _id to its current value, or on an upsert that has none yet.
    const { _id: newId, ...fields } = operators.$set;
    if (id !== undefined && newId !== id) throw immutableIdError(id);
    id = newId as string;
    operators.$set = fields;
  }
  const source = id === doc._id ? doc : toStoredDocument(doc, id);
  const updated = canApplyDirectly(operators) ? applyDirectly(source, operators) : applyWithMingo(source, operators);
  return updated ?? (source === doc ? undefined : source);
}

/**
 * The operators the port names ($set, $unset, $inc; $setOnInsert arrives as $set) on plain dotted
 * paths are applied here, copying only the objects along each path. mingo's updater rebuilds its
 * operator context on every call (50-300 µs), far too slow for projections; it still handles the rest.
 */
function canApplyDirectly(operators: UpdateSpec): boolean {
  for (const operator of Object.keys(operators)) {
    if (operator !== '$set' && operator !== '$unset' && operator !== '$inc') return false;
    for (const path of Object.keys(operators[operator] ?? {})) if (path.includes('$')) return false;
  }
  return true;
}

function applyDirectly(doc: Doc, operators: UpdateSpec): Doc | undefined {
  const next = shallowCopy(doc);
  let changed = false;
  for (const operator of Object.keys(operators)) {
    const fields = operators[operator] ?? {};
    for (const path of Object.keys(fields)) {
      const segments = path.includes('.') ? path.split('.') : [path];
      const container = segments.length === 1 ? next : writableContainer(next, segments, operator !== '$unset');
      if (!container) continue;
      const field = segments[segments.length - 1];
      if (operator === '$set') changed = setField(container, field, segments, cloneValue(fields[path])) || changed;
      else if (operator === '$unset') changed = unsetField(container, field) || changed;
      else changed = incrementField(container, field, segments, fields[path], doc._id) || changed;
    }
  }
  return changed ? (next as Doc) : undefined;
}

/**
 * The object or array holding the last segment of `path`, made writable by copying it (and its
 * parents) from the stored version. Missing parents are created when `create`; otherwise there is
 * nothing to do (undefined). Running through a scalar fails as in MongoDB (PathNotViable).
 */
function writableContainer(root: Row, segments: string[], create: boolean): Row | unknown[] | undefined {
  let container: Row | unknown[] = root;
  for (let depth = 0; depth < segments.length - 1; depth++) {
    const segment = segments[depth];
    if (Array.isArray(container) && !isArrayPosition(segment)) {
      if (!create) return undefined;
      throw cannotCreateField(segment, segments[depth - 1], container);
    }
    const child: unknown = (container as Row)[segment];
    let writable: Row | unknown[];
    if (child === undefined) {
      if (!create) return undefined;
      writable = {};
    } else if (Array.isArray(child)) writable = child.slice();
    else if (isPlainObject(child)) writable = shallowCopy(child);
    else if (!create) return undefined;
    else throw cannotCreateField(segments[depth + 1], segment, child);
    placeField(container, segment, writable);
    container = writable;
  }
  return container;
}

function setField(container: Row | unknown[], field: string, segments: string[], value: unknown): boolean {
  if (Array.isArray(container) && !isArrayPosition(field)) throw cannotCreateField(field, segments[segments.length - 2], container);
  if (field in container && deepEqual((container as Row)[field], value)) return false;
  placeField(container, field, value);
  return true;
}

function unsetField(container: Row | unknown[], field: string): boolean {
  if (Array.isArray(container)) {
    // MongoDB keeps array positions: an unset element becomes null.
    if (!isArrayPosition(field) || Number(field) >= container.length || container[Number(field)] === null) return false;
    container[Number(field)] = null;
    return true;
  }
  if (!(field in container)) return false;
  delete container[field];
  return true;
}

function incrementField(container: Row | unknown[], field: string, segments: string[], amount: unknown, id: unknown): boolean {
  if (typeof amount !== 'number')
    throw new WriteFailure(TYPE_MISMATCH, `Cannot increment with non-numeric argument: {${segments.join('.')}: ${JSON.stringify(amount)}}`);
  if (Array.isArray(container) && !isArrayPosition(field)) throw cannotCreateField(field, segments[segments.length - 2], container);
  const current = (container as Row)[field];
  if (current === undefined) {
    placeField(container, field, amount);
    return true;
  }
  if (typeof current !== 'number') {
    throw new WriteFailure(
      TYPE_MISMATCH,
      `Cannot apply $inc to a value of non-numeric type. {_id: ${JSON.stringify(id)}} has the field '${segments.join('.')}' of non-numeric type`,
    );
  }
  if (amount === 0) return false;
  placeField(container, field, current + amount);
  return true;
}

/** Sets a field, or an array position (padding with nulls as MongoDB does). */
function placeField(container: Row | unknown[], field: string, value: unknown): void {
  if (!Array.isArray(container)) {
    container[field] = value;
    return;
  }
  const position = Number(field);
  while (container.length < position) container.push(null);
  container[position] = value;
}

function cannotCreateField(field: string, parent: string | undefined, value: unknown): WriteFailure {
  return new WriteFailure(PATH_NOT_VIABLE, `Cannot create field '${field}' in element {${parent ?? ''}: ${JSON.stringify(value)}}`);
}

/** Other operators ($push, $addToSet, positional paths ...): mingo's updater, on a deep copy since it writes in place. */
function applyWithMingo(doc: Doc, operators: UpdateSpec): Doc | undefined {
  const next = cloneValue(doc);
  try {
    const changed = applyUpdateOperators(next, operators, undefined, undefined, { cloneMode: 'deep' }).length > 0;
    return changed ? toStoredDocument(next) : undefined;
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
  for (const operator in update) {
    for (const path in update[operator]) {
      // $set of _id is allowed (to the same value) and checked by the caller.
      if ((operator !== '$set' && operator !== '$setOnInsert' && path === '_id') || path.startsWith('_id.')) {
        throw new WriteFailure(IMMUTABLE_FIELD, `Performing an update on the path '${path}' would modify the immutable field '_id'`);
      }
      paths.push(path);
    }
  }
  if (paths.length < 2) return;
  paths.sort();
  for (let i = 1; i < paths.length; i++) {
    const [previous, path] = [paths[i - 1], paths[i]];
    if (path === previous || path.startsWith(`${previous}.`)) {
      throw new WriteFailure(CONFLICTING_UPDATE_OPERATORS, `Updating the path '${path}' would create a conflict at '${previous}'`);
    }
  }
}

function validateOperation(operation: BulkOperation<Doc>, index: number): void {
  const kinds = Object.keys(operation);
  if (kinds.length !== 1 || !OPERATION_KINDS.has(kinds[0]))
    throw new TypeError(`bulkWrite: operation ${index} is not one of ${[...OPERATION_KINDS].join(', ')}`);
  if ('updateOne' in operation || 'updateMany' in operation) {
    const { update } = 'updateOne' in operation ? operation.updateOne : operation.updateMany;
    const operators = Object.keys(update ?? {});
    if (operators.length === 0 || operators.some((key) => !key.startsWith('$')))
      throw new TypeError(`bulkWrite: operation ${index}: update document requires atomic operators`);
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
  return new WriteFailure(
    IMMUTABLE_FIELD,
    `After applying the update, the (immutable) field '_id' was found to have been altered to _id: ${JSON.stringify(id)}`,
  );
}

function newObjectIdHex(): string {
  return randomBytes(12).toString('hex');
}

/** A private copy for storage, _id first; undefined fields become null as the BSON serializer makes them. */
function toStoredDocument(source: Row, id: unknown = source._id): Doc {
  const doc: Row = { _id: id };
  for (const field in source) {
    if (field !== '_id') doc[field] = cloneValue(source[field]);
  }
  return doc as Doc;
}

/**
 * A copy that new fields are then added to. (Object spread makes such copies several times slower
 * to extend in V8, which showed up as the main cost of upserts.)
 */
function shallowCopy<V extends Row>(value: V): V {
  const copy: Row = {};
  for (const key in value) copy[key] = value[key];
  return copy as V;
}

function cloneDocument(doc: Doc): Doc {
  return cloneValue(doc);
}

/** A find copies at most this many documents in one turn of the event loop... */
const COPY_SLICE_DOCUMENTS = 500;
/** ...and for at most this long (a slice of large documents, 60 kB funnels, ends sooner). */
const COPY_SLICE_MS = 20;

/** `docs` copied in order, yielding to the event loop between slices (none for an answer of one slice). */
async function copyInSlices(docs: Doc[], copy: (doc: Doc) => Doc): Promise<Doc[]> {
  const copies: Doc[] = new Array<Doc>(docs.length);
  let sliceStart = performance.now();
  let inSlice = 0;
  for (let i = 0; i < docs.length; i++) {
    if (inSlice === COPY_SLICE_DOCUMENTS || (inSlice % 16 === 15 && performance.now() - sliceStart > COPY_SLICE_MS)) {
      await yieldToEventLoop();
      sliceStart = performance.now();
      inSlice = 0;
    }
    copies[i] = copy(docs[i]);
    inSlice++;
  }
  return copies;
}

/**
 * `docs` sorted by `sort` when every sorted field is a top-level string in every document (an id or
 * a name: the common case), else undefined (mingo sorts them). The same order as mingo's $sort, which
 * sorts such keys with the native string order and keeps documents of equal keys in their order,
 * as this stable sort does; mingo's way costs a hash of every value (~40 ms for 10,000 documents).
 */
function sortedByStringFields(docs: Doc[], sort: SortSpec): Doc[] | undefined {
  const fields = Object.keys(sort);
  if (fields.some((field) => field.includes('.') || (sort[field] !== 1 && sort[field] !== -1))) return undefined;
  for (const doc of docs) for (const field of fields) if (typeof doc[field] !== 'string') return undefined;
  return docs.slice().sort((a, b) => {
    for (const field of fields) {
      const x = a[field] as string;
      const y = b[field] as string;
      if (x !== y) return x < y ? -sort[field] : sort[field];
    }
    return 0;
  });
}

/** Deep copy of document data (plain objects, arrays, Dates); other objects are treated as immutable values. */
function cloneValue<V>(value: V): V {
  if (value === undefined) return null as V;
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map(cloneValue) as V;
  if (value instanceof Date) return new Date(value.getTime()) as V;
  if (!isPlainObject(value)) return value;
  const copy: Row = {};
  for (const key in value) copy[key] = cloneValue(value[key]);
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
