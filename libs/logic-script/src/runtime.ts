// What a compiled script sees while it runs: the visitor's data for one evaluation (the visitor-context
// model shared with conditions) and the frame of local variables. Kept as one class so every evaluation
// has the same object shape (fast property access).
import { VisitorContext } from '@funnel/visitor-context';

export type RuntimeValue = string | number | boolean | readonly string[];

/** A failure the script cannot recover from; the evaluator routes to the fallback key with the message. */
export class RuntimeFailure extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RuntimeFailure';
  }
}

export class RuntimeEnv extends VisitorContext {
  /** Local variables, one slot each; closures cannot recurse, so one frame per evaluation suffices. */
  readonly slots: RuntimeValue[];
  /** Set while an evaluation runs on this environment, so a re-entrant evaluation takes a fresh one. */
  busy = false;

  constructor(slotCount: number) {
    super();
    this.slots = slotCount === 0 ? (EMPTY_SLOTS as RuntimeValue[]) : new Array<RuntimeValue>(slotCount).fill('');
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

const EMPTY_SLOTS: readonly RuntimeValue[] = Object.freeze([]);
