import type { FieldProblem } from '../kind-rules';
import { FUNNEL_LIMITS, FUNNEL_PROBLEM_CODES } from './funnel-types';

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function describeType(value: unknown): string {
  return value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value;
}

/** `a rotator`, `an offerGroup`. */
export function withArticle(noun: string): string {
  return `${/^[aeiou]/i.test(noun) ? 'an' : 'a'} ${noun}`;
}

export function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

/** Problems in the order found; `bounded()` keeps the first FUNNEL_LIMITS.maxProblems and counts the rest. */
export class ProblemList {
  readonly all: FieldProblem[] = [];

  add(field: string, code: string, message: string): void {
    this.all.push({ field, code, message });
  }

  bounded(): FieldProblem[] {
    const { maxProblems } = FUNNEL_LIMITS;
    if (this.all.length <= maxProblems) return this.all;
    const more = this.all.length - maxProblems;
    return [...this.all.slice(0, maxProblems), { field: '', code: FUNNEL_PROBLEM_CODES.MORE_PROBLEMS, message: `and ${plural(more, 'more problem')}` }];
  }
}
