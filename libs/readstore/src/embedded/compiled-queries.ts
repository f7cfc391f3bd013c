import { Query } from 'mingo';
import { Doc, Filter } from '../read-store.port';
import { type Row, cloneValue, isPlainObject, isEmptyObject } from './documents';
import { isLookupScalar } from './equality-index';

/** Bounds the compiled-query cache; filters embedding per-document values would otherwise grow it forever. */
const MAX_CACHED_QUERIES = 10_000;

/**
 * Compiled mingo queries keyed by the filter's JSON, so a projector replaying thousands of
 * same-shaped guarded writes compiles each distinct filter once.
 */
export class CompiledQueryCache {
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

const matchesEverything = () => true;
