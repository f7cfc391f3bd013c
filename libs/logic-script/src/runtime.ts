// What a compiled script sees while it runs: the visitor's data for one evaluation and the frame of
// local variables. Kept as one class so every evaluation has the same object shape (fast property access).

export type RuntimeValue = string | number | boolean | readonly string[];

/** A failure the script cannot recover from; the evaluator routes to the fallback key with the message. */
export class RuntimeFailure extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RuntimeFailure';
  }
}

type Attributes = Readonly<Record<string, unknown>>;

const EMPTY: Attributes = Object.freeze({});

export class RuntimeEnv {
  /** Local variables, one slot each; closures cannot recurse, so one frame per evaluation suffices. */
  readonly slots: RuntimeValue[];
  /** Set while an evaluation runs on this environment, so a re-entrant evaluation takes a fresh one. */
  busy = false;
  // Mutable so that one environment can serve many evaluations without allocating (see reset).
  visitor: Attributes = EMPTY;
  private trackingFields: Attributes = EMPTY;
  private dataBuffer: Attributes = EMPTY;
  private visitorTags: unknown = undefined;
  private tagSet: ReadonlySet<string> | null = null;
  private nowMs = NaN;

  constructor(slotCount: number) {
    this.slots = slotCount === 0 ? (EMPTY_SLOTS as RuntimeValue[]) : new Array<RuntimeValue>(slotCount).fill('');
  }

  /**
   * Loads one visitor's data. Slots keep values of an earlier evaluation, which is safe: Go's scoping
   * means every local is written before it can be read.
   */
  reset(visitor: unknown, trackingFields: unknown, dataBuffer: unknown, visitorTags: unknown, now: unknown): this {
    this.visitor = isRecord(visitor) ? visitor : EMPTY;
    this.trackingFields = isRecord(trackingFields) ? trackingFields : EMPTY;
    this.dataBuffer = isRecord(dataBuffer) ? dataBuffer : EMPTY;
    this.visitorTags = visitorTags;
    this.tagSet = null;
    this.nowMs = now instanceof Date ? now.getTime() : NaN;
    return this;
  }

  /** Drops references to the visitor's data once an evaluation is over. */
  release(): void {
    this.visitor = EMPTY;
    this.trackingFields = EMPTY;
    this.dataBuffer = EMPTY;
    this.visitorTags = undefined;
    this.tagSet = null;
    this.busy = false;
  }

  /** A visitor string attribute; missing or non-string values read as "" (a resolution failure per spec). */
  visitorString(name: string): string {
    const value = this.visitor[name];
    return typeof value === 'string' ? value : '';
  }

  /** The visitor's whole-hour offset; 0 (UTC) when absent or not a whole number. */
  visitorUtcOffsetHours(): number {
    const value = this.visitor['utcOffsetHours'];
    if (typeof value === 'number') return Number.isInteger(value) ? value : 0;
    if (typeof value === 'string' && /^[+-]?\d{1,2}$/.test(value)) return Number(value);
    return 0;
  }

  trackingField(name: string): string {
    return ownString(this.trackingFields, name);
  }

  dataBufferValue(name: string): string {
    return ownString(this.dataBuffer, name);
  }

  hasVisitorTag(id: string): boolean {
    const tags = this.visitorTags;
    if (Array.isArray(tags)) return tags.includes(id);
    if (tags instanceof Set) return tags.has(id);
    if (this.tagSet === null) this.tagSet = toTagSet(tags);
    return this.tagSet.has(id);
  }

  /** The evaluation instant; only scripts that read the clock need one. */
  now(): number {
    if (Number.isNaN(this.nowMs)) throw new RuntimeFailure('the current time is missing or invalid');
    return this.nowMs;
  }
}

const EMPTY_SLOTS: readonly RuntimeValue[] = Object.freeze([]);

function isRecord(value: unknown): value is Attributes {
  return typeof value === 'object' && value !== null;
}

function ownString(record: Attributes, name: string): string {
  // Own properties only: a field named "constructor" must not read Object.prototype.
  const value = Object.prototype.hasOwnProperty.call(record, name) ? record[name] : undefined;
  return typeof value === 'string' ? value : '';
}

function toTagSet(tags: unknown): ReadonlySet<string> {
  const set = new Set<string>();
  if (typeof tags === 'object' && tags !== null && typeof (tags as Iterable<unknown>)[Symbol.iterator] === 'function') {
    for (const tag of tags as Iterable<unknown>) if (typeof tag === 'string') set.add(tag);
  }
  return set;
}
