import { plainToInstance } from 'class-transformer';
import { validateSync, ValidationError } from 'class-validator';
import { ErrorCodes, ServiceError } from './errors';

export interface FieldProblem {
  field: string;
  problems: string[];
}

function flatten(errors: ValidationError[], prefix = ''): FieldProblem[] {
  const out: FieldProblem[] = [];
  for (const e of errors) {
    const field = prefix ? `${prefix}.${e.property}` : e.property;
    if (e.constraints) out.push({ field, problems: Object.values(e.constraints) });
    if (e.children?.length) out.push(...flatten(e.children, field));
  }
  return out;
}

/**
 * Validates a JSON body against a class-validator DTO. Unknown properties are dropped (clients may
 * echo read-only fields back); wrong types, missing required fields and rule violations are a 400
 * listing every problem. Returns the validated instance.
 */
export function validateBody<T extends object>(dto: new () => T, body: unknown, what = 'body'): T {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw ServiceError.badRequest(ErrorCodes.VALIDATION, `${what} must be a JSON object`);
  }
  const instance = plainToInstance(dto, body, { enableImplicitConversion: false });
  const errors = validateSync(instance, { whitelist: true, forbidUnknownValues: true, validationError: { target: false, value: false } });
  if (errors.length) {
    const details = flatten(errors);
    const first = details[0];
    throw ServiceError.badRequest(ErrorCodes.VALIDATION, `invalid ${what}: ${first.field}: ${first.problems[0]}`, details);
  }
  return instance;
}
