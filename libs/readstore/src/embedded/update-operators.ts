import { update as applyUpdateOperators } from 'mingo';
import { Doc, UpdateSpec } from '../read-store.port';
import { type Row, toStoredDocument, shallowCopy, cloneValue, deepEqual, isArrayPosition, isPlainObject } from './documents';
import { WriteFailure, BAD_VALUE, TYPE_MISMATCH, PATH_NOT_VIABLE, CONFLICTING_UPDATE_OPERATORS, IMMUTABLE_FIELD, immutableIdError } from './errors';

/**
 * The update for `doc`, or undefined when it changes nothing. `inserting` applies $setOnInsert
 * (a $set that only upserts perform). The original document is never modified.
 */
export function updatedDocument(doc: Doc, update: UpdateSpec, inserting: boolean): Doc | undefined {
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

export function applyDirectly(doc: Doc, operators: UpdateSpec): Doc | undefined {
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
