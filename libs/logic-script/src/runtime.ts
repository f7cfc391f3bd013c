// What a compiled script sees while it runs: the visitor's data for one evaluation (the visitor-context
// model shared with conditions) and the frame of local variables. Kept as one class so every evaluation
// has the same object shape (fast property access).
import { VisitorContext } from '@funnel/visitor-context';

/**
 * A value of the language: string; int (a number while safe, else a bigint, see go/ints); bool;
 * []string; a func value, or null for a nil func.
 */
export type RuntimeValue = string | number | bigint | boolean | readonly string[] | FuncValue | null;

/** A func value: a closure, called with its arguments. */
export type FuncValue = (env: RuntimeEnv, args: RuntimeValue[]) => RuntimeValue;

/** A variable a closure may outlive the call of (see closure-flow): each declaration makes a new box. */
export interface Box {
  v: RuntimeValue;
}

/** What a frame slot holds: a value, a box, or UNSET for an assigned predeclared variable not read yet. */
export type SlotValue = RuntimeValue | Box | typeof UNSET;

/** The nil []string: a list of no elements that == nil (a []string{} literal is another, non-nil, one). */
export const NIL_LIST: readonly string[] = Object.freeze([]);

/** A predeclared variable the script assigns, before the evaluation reads it from the visitor. */
export const UNSET: unique symbol = Symbol('unset');

/** A failure the script cannot recover from; the evaluator routes to the fallback key with the message. */
export class RuntimeFailure extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RuntimeFailure';
  }
}

export class RuntimeEnv extends VisitorContext {
  /** Local variables, one slot each; closures cannot recurse, so one frame per evaluation suffices. */
  readonly slots: SlotValue[];
  /** Set while an evaluation runs on this environment, so a re-entrant evaluation takes a fresh one. */
  busy = false;

  constructor(slotCount: number) {
    super();
    this.slots = slotCount === 0 ? (EMPTY_SLOTS as SlotValue[]) : new Array<SlotValue>(slotCount).fill('');
  }

  // reset() (inherited) loads one visitor's data. Slots keep values of an earlier evaluation, which is
  // safe: Go's scoping means every local is written before it can be read.

  /** Drops references to the visitor's data once an evaluation is over. */
  release(): void {
    this.clear();
    this.busy = false;
  }

  protected override failure(message: string): Error {
    return new RuntimeFailure(message);
  }
}

const EMPTY_SLOTS: readonly SlotValue[] = Object.freeze([]);
