import { getMetadataStorage } from 'class-validator';
import type { MetadataStorage } from 'class-transformer/types/MetadataStorage';
import { ErrorCodes, ServiceError } from './errors';

// class-transformer's `@Type(() => Nested)` metadata, which names nested DTOs (the package exports no typed path to it).
const { defaultMetadataStorage } = require('class-transformer/cjs/storage') as { defaultMetadataStorage: MetadataStorage };

/** The most fields one JSON object of a body may have (any depth); more is a 400 `REQUEST.TOO_MANY_FIELDS`. */
export const MAX_OBJECT_FIELDS = 1000;

type DtoClass = new () => object;

interface DtoField {
  name: string;
  /** The class of a `@Type(() => X)` field: its objects (or its array's objects) become instances of X. */
  nested?: (owner: Record<string, unknown>, instance: object) => DtoClass;
  /** Taken as it is, not copied (see OpaqueJson). */
  opaque: boolean;
}

interface DtoShape {
  fields: DtoField[];
  names: ReadonlySet<string>;
}

/** Per DTO class, the fields that are taken as they are (see OpaqueJson). */
const OPAQUE_FIELDS = new WeakMap<object, string[]>();

/**
 * A field whose value is taken as it is, not copied (its DTO rules still run: `@IsArray()` and the
 * like). For large free-form JSON checked elsewhere, such as a funnel's nodes and connections.
 */
export function OpaqueJson(): PropertyDecorator {
  return (target, property) => {
    const fields = OPAQUE_FIELDS.get(target.constructor) ?? [];
    OPAQUE_FIELDS.set(target.constructor, [...fields, String(property)]);
  };
}

const shapes = new WeakMap<DtoClass, DtoShape>();

function opaqueFieldsOf(dto: DtoClass): Set<string> {
  const out = new Set<string>();
  for (let cls: unknown = dto; typeof cls === 'function' && cls !== Function.prototype; cls = Object.getPrototypeOf(cls)) {
    for (const field of OPAQUE_FIELDS.get(cls) ?? []) out.add(field);
  }
  return out;
}

/** The fields class-validator knows of a DTO (what its whitelist keeps), with their nested classes; computed once per class. */
function shapeOf(dto: DtoClass): DtoShape {
  let shape = shapes.get(dto);
  if (shape) return shape;
  const opaque = opaqueFieldsOf(dto);
  const names = new Set<string>();
  const fields: DtoField[] = [];
  for (const meta of getMetadataStorage().getTargetValidationMetadatas(dto, '', true, false)) {
    if (names.has(meta.propertyName)) continue;
    names.add(meta.propertyName);
    const type = defaultMetadataStorage.findTypeMetadata(dto, meta.propertyName);
    const field: DtoField = { name: meta.propertyName, opaque: opaque.has(meta.propertyName) };
    if (type?.typeFunction) {
      const typeFunction = type.typeFunction;
      const property = meta.propertyName;
      field.nested = (owner, instance) => typeFunction({ newObject: instance, object: owner, property }) as DtoClass;
    }
    fields.push(field);
  }
  shape = { fields, names };
  shapes.set(dto, shape);
  return shape;
}

const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

/** Never copied onto an object: they would change its prototype (JSON parsers may leave them as own keys). */
const isForbiddenKey = (key: string) => key === '__proto__' || key === 'constructor';

function tooManyFields(path: string): ServiceError {
  const where = path === '' ? 'the body' : path;
  const message = `${where} has more than ${MAX_OBJECT_FIELDS} fields`;
  return ServiceError.badRequest(ErrorCodes.TOO_MANY_FIELDS, `invalid body: ${message}`, [{ field: path, code: 'maxFields', message }]);
}

/** Throws the 400 when `value` has more than MAX_OBJECT_FIELDS keys (counting stops there). */
function checkFieldCount(value: Record<string, unknown>, path: string): void {
  let count = 0;
  for (const key in value) {
    if (Object.prototype.hasOwnProperty.call(value, key) && ++count > MAX_OBJECT_FIELDS) throw tooManyFields(path);
  }
}

const child = (path: string, key: string | number) => (typeof key === 'number' ? `${path}[${key}]` : path === '' ? key : `${path}.${key}`);

/** A copy of free-form JSON (objects and arrays), each object's fields bounded. */
function copyJson(value: unknown, path: string): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((item, i) => (item !== null && typeof item === 'object' ? copyJson(item, child(path, i)) : item));
  checkFieldCount(value as Record<string, unknown>, path);
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) if (!isForbiddenKey(key)) out[key] = copyJson(item, child(path, key));
  return out;
}

function toNested(value: unknown, dto: DtoClass, keepUnknown: boolean, path: string): unknown {
  if (Array.isArray(value)) return value.map((item, i) => toNested(item, dto, keepUnknown, child(path, i)));
  return isObject(value) ? toInstance(dto, value, keepUnknown, path) : value;
}

function toInstance<T extends object>(dto: new () => T, plain: Record<string, unknown>, keepUnknown: boolean, path: string, nullAsAbsent = false): T {
  checkFieldCount(plain, path);
  const shape = shapeOf(dto);
  const instance = new dto() as Record<string, unknown>;
  for (const field of shape.fields) {
    if (!Object.prototype.hasOwnProperty.call(plain, field.name)) continue;
    const value = plain[field.name];
    if (value === null && nullAsAbsent) continue;
    const at = child(path, field.name);
    instance[field.name] = field.opaque ? value : field.nested ? toNested(value, field.nested(plain, instance), keepUnknown, at) : copyJson(value, at);
  }
  if (keepUnknown) {
    for (const key of Object.keys(plain)) if (!shape.names.has(key) && !isForbiddenKey(key)) instance[key] = plain[key];
  }
  return instance as T;
}

/**
 * The instance of a DTO class for a parsed JSON object, as class-transformer's `plainToInstance`
 * makes it (fields of `@Type(() => X)` become X instances, at any depth; other values are copied),
 * in time linear in the body: only the fields class-validator knows are read (`keepUnknown` copies
 * the others as they are, for a validation that reports them), and no object may have more than
 * MAX_OBJECT_FIELDS fields (400 `REQUEST.TOO_MANY_FIELDS`). class-transformer itself takes time
 * quadratic in an object's field count, so one body of many fields would hold the process.
 * `nullAsAbsent`: a top-level field set to null is left unset.
 */
export function toDtoInstance<T extends object>(
  dto: new () => T,
  plain: Record<string, unknown>,
  options: { keepUnknown?: boolean; nullAsAbsent?: boolean } = {},
): T {
  return toInstance(dto, plain, options.keepUnknown ?? false, '', options.nullAsAbsent ?? false);
}
