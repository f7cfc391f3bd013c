import { randomBytes } from 'node:crypto';
import { Doc } from '../read-store.port';

// Stored documents as values: private copies, structural equality, paths.

export type Row = Record<string, unknown>;

export function newObjectIdHex(): string {
  return randomBytes(12).toString('hex');
}

/**
 * A private copy for storage, _id first; undefined fields become null as the BSON serializer makes
 * them. A frozen object or array is kept as it is, not copied (see storedValue).
 */
export function toStoredDocument(source: Row, id: unknown = source._id): Doc {
  const doc: Row = { _id: id };
  for (const field in source) {
    if (field !== '_id') doc[field] = storedValue(source[field]);
  }
  return doc as Doc;
}

/**
 * A value as stored: a deep copy (as cloneValue), except that a frozen object or array is kept as it
 * is. Stored documents are never modified (writes replace them, updates copy what they change), and
 * a writer that freezes a value promises it and everything in it never change: the event store
 * freezes the records it shares with its subscribers all the way down (AppendOptions.shareData), so
 * the read model holds the event's record itself instead of a second copy of a 200-node funnel.
 * Reads still answer copies.
 */
function storedValue<V>(value: V): V {
  if (value === undefined) return null as V;
  if (typeof value !== 'object' || value === null) return value;
  // A Date's time can be set even when it is frozen.
  if (value instanceof Date) return new Date(value.getTime()) as V;
  if (Object.isFrozen(value)) return value;
  if (Array.isArray(value)) return value.map(storedValue) as V;
  if (!isPlainObject(value)) return value;
  const copy: Row = {};
  for (const key in value) copy[key] = storedValue(value[key]);
  return copy as V;
}

/**
 * A copy that new fields are then added to. (Object spread makes such copies several times slower
 * to extend in V8, which showed up as the main cost of upserts.)
 */
export function shallowCopy<V extends Row>(value: V): V {
  const copy: Row = {};
  for (const key in value) copy[key] = value[key];
  return copy as V;
}

export function cloneDocument(doc: Doc): Doc {
  return cloneValue(doc);
}

/** Deep copy of document data (plain objects, arrays, Dates); other objects are treated as immutable values. */
export function cloneValue<V>(value: V): V {
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
export function deepEqual(a: unknown, b: unknown): boolean {
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

export function valueAtPath(doc: Row, path: string[]): unknown {
  let current: unknown = doc;
  for (const field of path) {
    if (!isPlainObject(current)) return undefined;
    current = current[field];
  }
  return current;
}

export function isArrayPosition(segment: string): boolean {
  return /^\d+$/.test(segment);
}

export function isPlainObject(value: unknown): value is Row {
  if (typeof value !== 'object' || value === null) return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

export function isEmptyObject(value: object): boolean {
  for (const _key in value) return false;
  return true;
}
