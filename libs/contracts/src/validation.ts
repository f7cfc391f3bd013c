import { plainToInstance } from 'class-transformer';
import { validateSync, ValidationError } from 'class-validator';
import { ErrorCodes, ErrorDetail, ServiceError } from './errors';

/** Rules that check a value's type: when one fails, the rules about the value's content are noise. */
const TYPE_RULES = new Set(['isString', 'isArray', 'isBoolean', 'isObject', 'isNumber', 'isInt', 'isDefined']);

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The message as a sentence that names the field once: class-validator's own messages start with it, custom ones may not. */
function sentence(field: string, property: string, message: string): string {
  return new RegExp(`(^|[^\\w])${escapeRegExp(property)}([^\\w]|$)`).test(message) ? message : `${field}: ${message}`;
}

/**
 * One detail per problem, the real one first: a missing (or null) field is `required`, and only
 * that; a value of the wrong type reports its type rule only; otherwise every broken rule.
 */
function toDetails(errors: ValidationError[], prefix = ''): ErrorDetail[] {
  const out: ErrorDetail[] = [];
  for (const e of errors) {
    const field = prefix ? `${prefix}.${e.property}` : e.property;
    if (e.constraints) {
      if (e.value === undefined) {
        out.push({ field, code: 'required', message: `${field} is required` });
      } else {
        const rules = Object.entries(e.constraints);
        const typeRules = rules.filter(([rule]) => TYPE_RULES.has(rule));
        for (const [rule, message] of typeRules.length ? typeRules : rules) out.push({ field, code: rule, message: sentence(field, e.property, message) });
      }
    }
    if (e.children?.length) out.push(...toDetails(e.children, field));
  }
  return out;
}

/** Per DTO class, the fields that class-transformer leaves as they are (see OpaqueJson). */
const OPAQUE_FIELDS = new WeakMap<object, string[]>();

/**
 * A field whose value is taken as it is, not walked by class-transformer (its DTO rules still run:
 * `@IsArray()` and the like). For large free-form JSON checked elsewhere, such as a funnel's nodes
 * and connections, which class-transformer would otherwise copy object by object on every save.
 */
export function OpaqueJson(): PropertyDecorator {
  return (target, property) => {
    const fields = OPAQUE_FIELDS.get(target.constructor) ?? [];
    OPAQUE_FIELDS.set(target.constructor, [...fields, String(property)]);
  };
}

/** The body without its null-valued fields: a null is treated as absent, so it is never stored. */
function withoutNulls(body: object): object {
  let copy: Record<string, unknown> | undefined;
  for (const [key, value] of Object.entries(body)) {
    if (value !== null) continue;
    copy ??= { ...(body as Record<string, unknown>) };
    delete copy[key];
  }
  return copy ?? body;
}

/**
 * Validates a JSON body against a class-validator DTO. Unknown properties are dropped (clients may
 * echo read-only fields back), and so are fields set to null (as if left out: an optional field
 * stays unset, a required one is reported missing). Wrong types, missing required fields and rule
 * violations are a 400 whose details list every problem as `{ field, code, message }` and whose
 * message names the first. Returns the validated instance.
 */
export function validateBody<T extends object>(dto: new () => T, body: unknown, what = 'body'): T {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw ServiceError.badRequest(ErrorCodes.VALIDATION, `${what} must be a JSON object`, [
      { field: '', code: 'isObject', message: `${what} must be a JSON object` },
    ]);
  }
  const plain = withoutNulls(body) as Record<string, unknown>;
  const opaque = (OPAQUE_FIELDS.get(dto) ?? []).filter((field) => plain[field] !== undefined);
  let instance: T;
  if (opaque.length) {
    const rest = { ...plain };
    for (const field of opaque) delete rest[field];
    instance = plainToInstance(dto, rest, { enableImplicitConversion: false });
    for (const field of opaque) (instance as Record<string, unknown>)[field] = plain[field];
  } else {
    instance = plainToInstance(dto, plain, { enableImplicitConversion: false });
  }
  // `value: true` only lets toDetails tell a missing field from a wrong one; values are never echoed.
  const errors = validateSync(instance, { whitelist: true, forbidUnknownValues: true, validationError: { target: false, value: true } });
  if (errors.length) {
    const details = toDetails(errors);
    throw ServiceError.badRequest(ErrorCodes.VALIDATION, `invalid ${what}: ${details[0].message}`, details);
  }
  return instance;
}
