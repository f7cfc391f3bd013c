import { Doc, Filter } from '../read-store.port';
import { type Row, cloneValue, isPlainObject } from './documents';
import { applyDirectly } from './update-operators';

// What a filter pins: the _ids it names, the equalities an upsert seeds its new document with.

/** The _ids a filter pins (`_id: "x"`, `{$eq}`, `{$in}` of strings) and the rest of the filter to test. */
export function idLookupOf(filter: Filter): { ids: Iterable<string>; residual: Filter } | undefined {
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

export function withoutId(filter: Filter): Filter {
  let residual: Filter = EMPTY_FILTER;
  for (const field in filter) {
    if (field === '_id') continue;
    if (residual === EMPTY_FILTER) residual = {};
    residual[field] = filter[field];
  }
  return residual;
}

const EMPTY_FILTER: Filter = Object.freeze({}) as Filter;

export function equalityIdOf(filter: Filter): string | undefined {
  const condition = filter._id;
  if (typeof condition === 'string') return condition;
  if (isPlainObject(condition) && typeof condition.$eq === 'string') return condition.$eq;
  return undefined;
}

/**
 * The document an update-style upsert starts from: the filter's equality conditions (also inside
 * $and and a one-clause $or), as MongoDB builds it.
 */
export function upsertSeedOf(filter: Filter): Doc {
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
