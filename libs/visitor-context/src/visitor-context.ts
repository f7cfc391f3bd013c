// One visitor's data as routing sees it: the reads that logic scripts and conditions share, with the
// same answers for missing or malformed data. The script runtime's environment extends this class, so
// a value read by a script and by a condition is, by construction, the same value.

/**
 * Visitor string attributes by variable name (country, deviceType, ...) and the visitor's whole-hour
 * UTC offset. (Written so that object literals type-check; `Partial<Record<string, string>> &
 * { utcOffsetHours?: number }` values are assignable to it.)
 */
export interface VisitorAttributes {
  readonly [name: string]: string | number | undefined;
  readonly utcOffsetHours?: number;
}

type Attributes = Readonly<Record<string, unknown>>;

const EMPTY: Attributes = Object.freeze({});

/** The data of one visitor, for {@link VisitorContext.of}. */
export interface VisitorData {
  visitor?: VisitorAttributes;
  trackingFields?: Record<string, string>;
  dataBuffer?: Record<string, string>;
  visitorTags?: Iterable<string> | string[];
  /** The instant the visitor arrived; time variables derive from it. */
  now: Date;
}

export class VisitorContext {
  // Mutable so that one context can serve many evaluations without allocating (see reset).
  visitor: Attributes = EMPTY;
  private trackingFields: Attributes = EMPTY;
  private dataBuffer: Attributes = EMPTY;
  private visitorTags: unknown = undefined;
  private tagSet: ReadonlySet<string> | null = null;
  private nowMs = NaN;

  /** A context holding one visitor's data. */
  static of(data: VisitorData): VisitorContext {
    return new VisitorContext().reset(data.visitor, data.trackingFields, data.dataBuffer, data.visitorTags, data.now);
  }

  /** Loads one visitor's data; values of the wrong shape read as absent. */
  reset(visitor: unknown, trackingFields: unknown, dataBuffer: unknown, visitorTags: unknown, now: unknown): this {
    this.visitor = isRecord(visitor) ? visitor : EMPTY;
    this.trackingFields = isRecord(trackingFields) ? trackingFields : EMPTY;
    this.dataBuffer = isRecord(dataBuffer) ? dataBuffer : EMPTY;
    this.visitorTags = visitorTags;
    this.tagSet = null;
    this.nowMs = now instanceof Date ? now.getTime() : NaN;
    return this;
  }

  /** Drops references to the visitor's data. */
  clear(): void {
    this.visitor = EMPTY;
    this.trackingFields = EMPTY;
    this.dataBuffer = EMPTY;
    this.visitorTags = undefined;
    this.tagSet = null;
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

  /** A traffic-source URL parameter; "" when absent. */
  trackingField(name: string): string {
    return ownString(this.trackingFields, name);
  }

  /** A value captured across redirects and submissions; "" when absent. */
  dataBufferValue(name: string): string {
    return ownString(this.dataBuffer, name);
  }

  /** Whether the visitor holds the tag with this id; a visitor without tags holds none. */
  hasVisitorTag(id: string): boolean {
    const tags = this.visitorTags;
    if (Array.isArray(tags)) return tags.includes(id);
    if (tags instanceof Set) return tags.has(id);
    if (this.tagSet === null) this.tagSet = toTagSet(tags);
    return this.tagSet.has(id);
  }

  /** The instant the visitor arrived, in epoch milliseconds; only reads of the clock need one. */
  now(): number {
    if (Number.isNaN(this.nowMs)) throw this.failure('the current time is missing or invalid');
    return this.nowMs;
  }

  /** The error a read throws when the data cannot answer it (the script runtime throws its own kind). */
  protected failure(message: string): Error {
    return new Error(message);
  }
}

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
