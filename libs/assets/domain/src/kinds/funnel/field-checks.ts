import { isValidAssetId } from '@funnel/contracts';
import { ROUTE_KEY_PATTERN, isRouteKey } from '@funnel/visitor-context';
import { ProblemList, describeType, isPlainObject } from './funnel-problems';
import { FUNNEL_PROBLEM_CODES as CODES } from './funnel-types';

/**
 * Field checks of one node or connection: each problem names the field's path and, in its message,
 * the node or connection id (`nodes[3].posX (node 0AbCdEfGhIjK): must be a number from 0 to 1`).
 * Every check answers whether the value is good, so callers can go on with values they can read.
 */
export class FieldChecks {
  private subject: unknown;

  constructor(
    readonly problems: ProblemList,
    /**
     * ` (node <id>)`, ` (connection <id>)`, or '' while the id is not known to be valid; a function
     * (of the node or connection being checked, see `of`) is called only for a problem.
     */
    private readonly note: string | ((subject: unknown) => string),
  ) {}

  /** Checks the fields of `subject` from now on: one checker serves every node (or connection) of a list in turn. */
  of(subject: unknown): this {
    this.subject = subject;
    return this;
  }

  add(field: string, code: string, text: string): void {
    this.problems.add(field, code, `${field}${typeof this.note === 'string' ? this.note : this.note(this.subject)}: ${text}`);
  }

  present(field: string, value: unknown): boolean {
    if (value !== undefined) return true;
    this.add(field, CODES.REQUIRED, 'is required');
    return false;
  }

  string(field: string, value: unknown): value is string {
    if (!this.present(field, value)) return false;
    if (typeof value === 'string') return true;
    this.add(field, CODES.INVALID_TYPE, `must be a string, got ${describeType(value)}`);
    return false;
  }

  /** A string of min..max characters. */
  text(field: string, value: unknown, min: number, max: number): value is string {
    if (!this.string(field, value)) return false;
    if (value.length >= min && value.length <= max) return true;
    this.add(field, CODES.OUT_OF_RANGE, `must be ${min} to ${max} characters long`);
    return false;
  }

  assetId(field: string, value: unknown): value is string {
    if (!this.string(field, value)) return false;
    if (isValidAssetId(value)) return true;
    this.add(field, CODES.INVALID_ID, 'must be an asset id (12 characters of 0-9, A-Z, a-z)');
    return false;
  }

  routeKey(field: string, value: unknown): value is string {
    if (!this.string(field, value)) return false;
    if (isRouteKey(value)) return true;
    this.add(field, CODES.INVALID_ROUTE_KEY, `must be a route key (${ROUTE_KEY_PATTERN.source})`);
    return false;
  }

  /** A finite number from min to max (an integer when `integer`). */
  number(field: string, value: unknown, min: number, max: number, integer = false): value is number {
    if (!this.present(field, value)) return false;
    const kind = integer ? 'an integer' : 'a number';
    if (typeof value !== 'number' || !Number.isFinite(value) || (integer && !Number.isInteger(value))) {
      this.add(field, CODES.INVALID_TYPE, `must be ${kind} from ${min} to ${max}, got ${describeType(value)}`);
      return false;
    }
    if (value >= min && value <= max) return true;
    this.add(field, CODES.OUT_OF_RANGE, `must be ${kind} from ${min} to ${max}`);
    return false;
  }

  boolean(field: string, value: unknown): value is boolean {
    if (!this.present(field, value)) return false;
    if (typeof value === 'boolean') return true;
    this.add(field, CODES.INVALID_TYPE, `must be true or false, got ${describeType(value)}`);
    return false;
  }

  object(field: string, value: unknown): value is Record<string, unknown> {
    if (!this.present(field, value)) return false;
    if (isPlainObject(value)) return true;
    this.add(field, CODES.INVALID_TYPE, `must be an object, got ${describeType(value)}`);
    return false;
  }

  /** A list of min..max entries. */
  list(field: string, value: unknown, min: number, max: number): value is unknown[] {
    if (!this.present(field, value)) return false;
    if (!Array.isArray(value)) {
      this.add(field, CODES.INVALID_TYPE, `must be a list, got ${describeType(value)}`);
      return false;
    }
    if (value.length >= min && value.length <= max) return true;
    this.add(field, CODES.OUT_OF_RANGE, `must hold ${min} to ${max} entries, got ${value.length}`);
    return false;
  }

  /** One of the allowed values. */
  oneOf<T extends string>(field: string, value: unknown, allowed: readonly T[]): value is T {
    if (!this.present(field, value)) return false;
    if (allowed.includes(value as T)) return true;
    this.add(field, CODES.NOT_ALLOWED_VALUE, `must be one of ${allowed.join(', ')}`);
    return false;
  }
}
