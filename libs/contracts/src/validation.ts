import { validateSync, ValidationError } from 'class-validator';
import { toDtoInstance } from './dto-instance';
import { ErrorCodes, ErrorDetail, ServiceError } from './errors';
import { cacheTargetValidationMetadatas } from './validation-metadata';

cacheTargetValidationMetadatas();

export { MAX_OBJECT_FIELDS, OpaqueJson } from './dto-instance';

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

/**
 * Validates a JSON body against a class-validator DTO. Unknown properties are dropped (clients may
 * echo read-only fields back), and so are fields set to null (as if left out: an optional field
 * stays unset, a required one is reported missing). Wrong types, missing required fields and rule
 * violations are a 400 whose details list every problem as `{ field, code, message }` and whose
 * message names the first; an object of more than MAX_OBJECT_FIELDS fields is a 400 before any of
 * that. The work is linear in the body (see toDtoInstance). Returns the validated instance.
 */
export function validateBody<T extends object>(dto: new () => T, body: unknown, what = 'body'): T {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw ServiceError.badRequest(ErrorCodes.VALIDATION, `${what} must be a JSON object`, [
      { field: '', code: 'isObject', message: `${what} must be a JSON object` },
    ]);
  }
  const instance = toDtoInstance(dto, body as Record<string, unknown>, { nullAsAbsent: true });
  // `value: true` only lets toDetails tell a missing field from a wrong one; values are never echoed.
  const errors = validateSync(instance, { whitelist: true, forbidUnknownValues: true, validationError: { target: false, value: true } });
  if (errors.length) {
    const details = toDetails(errors);
    throw ServiceError.badRequest(ErrorCodes.VALIDATION, `invalid ${what}: ${details[0].message}`, details);
  }
  return instance;
}
