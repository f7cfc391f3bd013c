import { Query } from 'mingo';
import {
  BulkOperation,
  BulkWriteFailure,
  BulkWriteResult,
  Doc,
  DUPLICATE_KEY,
  Filter,
  FindOptions,
  ReadCollection,
  ReadStoreBulkWriteError,
  SortSpec,
} from '../read-store.port';
import { validateOperation } from './bulk-operations';
import { CompiledQueryCache } from './compiled-queries';
import { newObjectIdHex, toStoredDocument, cloneDocument, deepEqual, isEmptyObject } from './documents';
import { EqualityIndex, type IndexEntry, lookupKeysOf, describeKey, sameKeySpec } from './equality-index';
import { EmbeddedStoreError, WriteFailure, BAD_VALUE, INDEX_OPTIONS_CONFLICT, INDEX_KEY_SPECS_CONFLICT, failureOf, immutableIdError } from './errors';
import { idLookupOf, withoutId, equalityIdOf, upsertSeedOf } from './filters';
import { topLevelProjectionOf, projectTopLevel } from './projection';
import { copyInSlices } from './sliced-copy';
import type { CollectionJournal } from './state-file';
import { sortedByStringFields } from './sort';
import { updatedDocument } from './update-operators';

const ID_INDEX_NAME = '_id_';

const MATCH_ALL = new Query({});

export class EmbeddedCollection implements ReadCollection<Doc> {
  /** Insertion-ordered, so an unsorted scan returns natural order as MongoDB roughly does. */
  private readonly docs = new Map<string, Doc>();
  private readonly indexes: EqualityIndex[] = [];
  /** While a write of a persistent collection runs: each document it changed, as it was before (undefined: absent). */
  private touched: Map<string, Doc | undefined> | undefined;

  /** `journal`: a persistent collection's storage, from which it is loaded and to which each write is written through. */
  constructor(
    private readonly name: string,
    private readonly queries: CompiledQueryCache,
    private readonly journal?: CollectionJournal,
  ) {
    if (journal) for (const doc of journal.load()) this.docs.set(doc._id, doc);
  }

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
    this.writingThrough(() => {
      for (const doc of matches) this.remove(doc);
    });
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
    this.writingThrough(() => {
      for (let index = 0; index < operations.length; index++) {
        try {
          const failure = this.apply(operations[index], result);
          if (failure) failures.push({ index, code: failure.code, message: failure.message });
        } catch (error) {
          failures.push({ index, ...failureOf(error) });
        }
      }
    });
    if (failures.length > 0) throw new ReadStoreBulkWriteError(failures, { ...result });
    return result;
  }

  /**
   * Runs a write; a persistent collection then stores the documents it changed in its journal. When
   * the journal refuses (a full disk), the documents are put back as they were and the error thrown:
   * the write changed nothing, in memory or on disk.
   */
  private writingThrough(write: () => void): void {
    if (!this.journal) return write();
    const touched = (this.touched = new Map());
    try {
      write();
    } finally {
      this.touched = undefined;
    }
    if (touched.size === 0) return;
    try {
      this.journal.write([...touched.keys()].map((id) => [id, this.docs.get(id) ?? null] as const));
    } catch (error) {
      for (const [id, before] of touched) {
        const now = this.docs.get(id);
        if (now) this.remove(now);
        if (before) this.write(before, undefined);
      }
      throw error;
    }
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
    if (this.touched && !this.touched.has(id)) this.touched.set(id, previous);
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
    if (this.touched && !this.touched.has(doc._id)) this.touched.set(doc._id, doc);
    for (const index of this.indexes) index.remove(doc._id, index.entryOf(doc));
    this.docs.delete(doc._id);
  }
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };
