// The visitor context a dry run takes (the body of "try this script" and of a condition's evaluate): a
// JSON-shaped input with the time as ISO 8601 text, and a validator that lists every problem with it for a 400.
import { isFieldName, isRouteKey, isUtcOffsetHours, MAX_UTC_OFFSET_HOURS, MIN_UTC_OFFSET_HOURS, ROUTE_KEY_PATTERN } from './rules';
import { STRING_VARIABLE_NAMES, TIME_VARIABLE_NAMES } from './variables';
import { VisitorAttributes, VisitorContext } from './visitor-context';

export interface DryRunInput {
  /** Visitor string attributes by variable name (country, deviceType, ...) and the visitor's UTC offset. */
  visitor: VisitorAttributes;
  trackingFields?: Record<string, string>;
  dataBuffer?: Record<string, string>;
  visitorTags?: string[];
  /** ISO 8601 date-time with a zone, e.g. 2025-03-01T18:30:00Z; the current time when absent. */
  time?: string;
  /** Keys the node's connections accept; when given, any other key routes to the fallback. */
  routeKeys?: string[];
}

export const DRY_RUN_LIMITS = Object.freeze({
  /** Longest accepted string value (a user agent or URL fits comfortably). */
  maxValueLength: 4096,
  /** Most entries in trackingFields or dataBuffer. */
  maxEntries: 100,
  maxVisitorTags: 200,
  maxRouteKeys: 200,
  /** Most problems reported for one input; the rest are counted. */
  maxProblems: 20,
  /** Longest client-chosen name echoed in a problem; longer ones are cut. */
  maxEchoedName: 64,
});

/** A client-chosen name as echoed in a problem: never more than maxEchoedName characters of it. */
function shown(name: string): string {
  return name.length > DRY_RUN_LIMITS.maxEchoedName ? `${name.slice(0, DRY_RUN_LIMITS.maxEchoedName)}…` : name;
}

const STRING_VARIABLES: ReadonlySet<string> = new Set(STRING_VARIABLE_NAMES);
const TIME_VARIABLES: ReadonlySet<string> = new Set(TIME_VARIABLE_NAMES);
const TOP_LEVEL_FIELDS = new Set(['visitor', 'trackingFields', 'dataBuffer', 'visitorTags', 'time', 'routeKeys']);
const ISO_DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(?:Z|[+-](\d{2}):?(\d{2}))$/i;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function describeType(value: unknown): string {
  return value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value;
}

/** Parses an ISO 8601 date-time with an explicit zone; null when it is not one or names an impossible date. */
export function parseIsoDateTime(text: string): Date | null {
  const match = ISO_DATE_TIME.exec(text);
  if (!match) return null;
  const [, year, month, day, hour, minute, second, zoneHours, zoneMinutes] = match.map((part) => (part === undefined ? undefined : Number(part)));
  if ((month as number) < 1 || (month as number) > 12 || (hour as number) > 23 || (minute as number) > 59 || (second ?? 0) > 59) return null;
  if ((zoneHours ?? 0) > 14 || (zoneMinutes ?? 0) > 59) return null;
  const lastDay = new Date(Date.UTC(year as number, month as number, 0)).getUTCDate();
  if ((day as number) < 1 || (day as number) > lastDay) return null;
  const date = new Date(text);
  return Number.isNaN(date.getTime()) ? null : date;
}

/** One problem with a dry-run input: the field (a path such as visitor.country, or '' for the whole input), a rule code, and a sentence. */
export interface DryRunProblem {
  field: string;
  code: string;
  message: string;
}

/**
 * Every problem with a dry-run input, each naming its field: the first `maxProblems`, then one that
 * counts the rest. Client-chosen names are echoed cut to `maxEchoedName` characters. An empty list
 * means the input is valid. Pure: no clock, no I/O.
 */
export function dryRunProblems(input: unknown): DryRunProblem[] {
  const problems: DryRunProblem[] = [];
  let more = 0;
  const report = (field: string, code: string, message: string) => {
    if (problems.length < DRY_RUN_LIMITS.maxProblems) problems.push({ field, code, message });
    else more++;
  };
  if (!isPlainObject(input)) return [{ field: '', code: 'isObject', message: `the input must be an object, got ${describeType(input)}` }];
  for (const key of Object.keys(input)) {
    if (!TOP_LEVEL_FIELDS.has(key))
      report(shown(key), 'unknownField', `${shown(key)} is not a dry-run field; the fields are ${[...TOP_LEVEL_FIELDS].join(', ')}`);
  }

  const visitor = input['visitor'];
  if (visitor === undefined) report('visitor', 'required', 'visitor is required (an object of visitor attributes, may be empty)');
  else if (!isPlainObject(visitor)) report('visitor', 'isObject', `visitor must be an object, got ${describeType(visitor)}`);
  else {
    for (const [name, value] of Object.entries(visitor)) {
      const field = `visitor.${shown(name)}`;
      if (name === 'utcOffsetHours') {
        if (!isUtcOffsetHours(value)) report(field, 'range', `${field} must be a whole number from ${MIN_UTC_OFFSET_HOURS} to ${MAX_UTC_OFFSET_HOURS}`);
      } else if (TIME_VARIABLES.has(name)) {
        report(field, 'derived', `${field} cannot be set: it is derived from time; set time instead`);
      } else if (!STRING_VARIABLES.has(name)) {
        const similar = [...STRING_VARIABLES].find((v) => v.toLowerCase() === name.toLowerCase());
        report(field, 'unknownField', `${field} is not a visitor attribute${similar ? ` (did you mean ${similar}?)` : ''}`);
      } else if (typeof value !== 'string') {
        report(field, 'isString', `${field} must be a string, got ${describeType(value)}`);
      } else if (value.length > DRY_RUN_LIMITS.maxValueLength) {
        report(field, 'maxLength', `${field} is longer than ${DRY_RUN_LIMITS.maxValueLength} characters`);
      }
    }
  }

  for (const field of ['trackingFields', 'dataBuffer'] as const) {
    const record = input[field];
    if (record === undefined) continue;
    if (!isPlainObject(record)) {
      report(field, 'isObject', `${field} must be an object of names to strings, got ${describeType(record)}`);
      continue;
    }
    const entries = Object.entries(record);
    if (entries.length > DRY_RUN_LIMITS.maxEntries) report(field, 'maxEntries', `${field} has more than ${DRY_RUN_LIMITS.maxEntries} entries`);
    for (const [name, value] of entries) {
      const entry = `${field}[${JSON.stringify(shown(name))}]`;
      if (!isFieldName(name))
        report(entry, 'fieldName', `${field} name ${JSON.stringify(shown(name))} must be 1 to 64 letters, digits, underscores, spaces or hyphens`);
      if (typeof value !== 'string') report(entry, 'isString', `${entry} must be a string, got ${describeType(value)}`);
      else if (value.length > DRY_RUN_LIMITS.maxValueLength) report(entry, 'maxLength', `${entry} is longer than ${DRY_RUN_LIMITS.maxValueLength} characters`);
    }
  }

  const tags = input['visitorTags'];
  if (tags !== undefined) {
    if (!Array.isArray(tags)) report('visitorTags', 'isArray', `visitorTags must be an array of tag ids, got ${describeType(tags)}`);
    else {
      if (tags.length > DRY_RUN_LIMITS.maxVisitorTags)
        report('visitorTags', 'maxEntries', `visitorTags has more than ${DRY_RUN_LIMITS.maxVisitorTags} entries`);
      tags.forEach((tag, i) => {
        if (typeof tag !== 'string' || tag.length === 0) report(`visitorTags[${i}]`, 'isNotEmpty', `visitorTags[${i}] must be a non-empty string`);
        else if (tag.length > DRY_RUN_LIMITS.maxValueLength)
          report(`visitorTags[${i}]`, 'maxLength', `visitorTags[${i}] is longer than ${DRY_RUN_LIMITS.maxValueLength} characters`);
      });
    }
  }

  const time = input['time'];
  if (time !== undefined && (typeof time !== 'string' || parseIsoDateTime(time) === null)) {
    report('time', 'isoDateTime', 'time must be an ISO 8601 date-time with a zone, e.g. 2025-03-01T18:30:00Z or 2025-03-01T13:30:00-05:00');
  }

  const routeKeys = input['routeKeys'];
  if (routeKeys !== undefined) {
    if (!Array.isArray(routeKeys)) report('routeKeys', 'isArray', `routeKeys must be an array of route keys, got ${describeType(routeKeys)}`);
    else {
      if (routeKeys.length > DRY_RUN_LIMITS.maxRouteKeys) report('routeKeys', 'maxEntries', `routeKeys has more than ${DRY_RUN_LIMITS.maxRouteKeys} entries`);
      routeKeys.forEach((key, i) => {
        if (!isRouteKey(key)) report(`routeKeys[${i}]`, 'routeKey', `routeKeys[${i}] must match ${ROUTE_KEY_PATTERN.source}`);
      });
    }
  }
  if (more > 0) problems.push({ field: '', code: 'moreProblems', message: `and ${more} more problems` });
  return problems;
}

/** Every problem with a dry-run input, as sentences naming the field ("visitor.country must be a string"). */
export function validateDryRunInput(input: unknown): string[] {
  return dryRunProblems(input).map((problem) => problem.message);
}

/** The instant a valid dry-run input describes: its time, else `now` (the system clock when absent). */
export function dryRunInstant(input: DryRunInput, now: Date = new Date()): Date {
  return input.time !== undefined ? (parseIsoDateTime(input.time) as Date) : now;
}

/** The visitor context of a dry-run input that validateDryRunInput accepted; `now` as for dryRunInstant. */
export function visitorContextOf(input: DryRunInput, now?: Date): VisitorContext {
  return VisitorContext.of({
    visitor: input.visitor,
    trackingFields: input.trackingFields,
    dataBuffer: input.dataBuffer,
    visitorTags: input.visitorTags,
    now: dryRunInstant(input, now),
  });
}
