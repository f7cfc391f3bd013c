// What a compiled script sees while it runs: the visitor's data for one evaluation (the visitor-context
// model shared with conditions). Kept as one class so every evaluation has the same object shape (fast
// property access). The script's own variables are variables of its generated function (codegen).
import { VisitorContext } from '@funnel/visitor-context';

/**
 * A value of the language: string; int (a number while safe, else a bigint, see go/ints); bool;
 * []string; a func value, or null for a nil func.
 */
export type RuntimeValue = string | number | bigint | boolean | readonly string[] | FuncValue | null;

/** A func value: a closure of the generated code, called with its arguments. */
export type FuncValue = (...args: RuntimeValue[]) => RuntimeValue;

/** The nil []string: a list of no elements that == nil (a []string{} literal is another, non-nil, one). */
export const NIL_LIST: readonly string[] = Object.freeze([]);

/** A failure the script cannot recover from; the evaluator routes to the fallback key with the message. */
export class RuntimeFailure extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RuntimeFailure';
  }
}

export class RuntimeEnv extends VisitorContext {
  /** Set while an evaluation runs on this environment, so a re-entrant evaluation takes a fresh one. */
  busy = false;

  // reset() (inherited) loads one visitor's data.

  /** Drops references to the visitor's data once an evaluation is over. */
  release(): void {
    this.clear();
    this.busy = false;
  }

  protected override failure(message: string): Error {
    return new RuntimeFailure(message);
  }
}
