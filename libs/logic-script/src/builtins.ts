// The single table of predeclared variables and helpers. The checker takes their types from here, the
// compiler their implementations, the catalog their documentation: one entry, three uses. The variables
// are the visitor-context model shared with conditions, defined in @funnel/visitor-context.
import * as visitorTime from '@funnel/visitor-context';
import { isClockTime, isFieldName, isUtcOffsetHours, MAX_UTC_OFFSET_HOURS, MIN_UTC_OFFSET_HOURS, utf8ByteLength } from './rules';
import { formatConstant } from './constants';
import { goToLower, goToUpper } from './go/strings';
import { RuntimeEnv, RuntimeFailure, RuntimeValue } from './runtime';

export { VARIABLES, VARIABLES_BY_NAME } from '@funnel/visitor-context';

// The clock functions, bound once: compiled imports read another module's exports through getters,
// which every evaluation would otherwise pay for on each call.
const { clockMinutes, DAY_NAMES, inClockRange, localWeekday, minuteOfDay } = visitorTime;
export type { VisitorVariable as VariableDefinition } from '@funnel/visitor-context';

/** The value types of the language; 'list' is Go's []string. */
export type ValueType = 'string' | 'int' | 'bool' | 'list';

export const TYPE_SPELLING: Readonly<Record<ValueType, string>> = { string: 'string', int: 'int', bool: 'bool', list: '[]string' };

/** Rules a literal argument must satisfy; checked at validation for literals and at run time for the rest. */
export type ArgumentRule = 'fieldName' | 'clockTime' | 'utcOffset';

export interface HelperParameter {
  name: string;
  type: ValueType;
  /** Only the last parameter can be variadic; its arguments arrive as one list. */
  variadic?: boolean;
  rule?: ArgumentRule;
}

interface HelperDescription {
  /** As written in a script, e.g. `len` or `strings.Contains`. */
  name: string;
  params: readonly HelperParameter[];
  result: ValueType;
  meaning: string;
  example: string;
}

/**
 * A helper and its implementation, which compiled code runs (see codegen). Arguments arrive evaluated,
 * type-checked and, where the parameter has a rule, already checked against it (by the checker for
 * literals, by compiled code for computed values). A variadic parameter's arguments arrive as one list.
 */
export type HelperDefinition = HelperDescription &
  (
    | {
        /** A function compiled code calls. */
        call: (env: RuntimeEnv, ...args: any[]) => RuntimeValue;
        inline?: undefined;
      }
    | {
        /**
         * JavaScript compiled code writes in place of a call, given the JavaScript of the environment
         * and of each argument: a name or a literal, so it may be repeated. A variadic parameter gets
         * its arguments one by one (an array), or the list expanded with `...` (a string).
         */
        inline: (env: string, ...args: (string | readonly string[])[]) => string;
        call?: undefined;
      }
  );

export const ARGUMENT_RULES: Readonly<Record<ArgumentRule, { test: (value: unknown) => boolean; describe: string }>> = {
  fieldName: { test: isFieldName, describe: '1 to 64 letters, digits, underscores, spaces or hyphens' },
  clockTime: { test: isClockTime, describe: 'an HHMM clock time from 0 (00:00) to 2359 (23:59)' },
  utcOffset: { test: isUtcOffsetHours, describe: `a whole-hour UTC offset from ${MIN_UTC_OFFSET_HOURS} to ${MAX_UTC_OFFSET_HOURS}` },
};

/** Run-time check of a computed argument against its parameter's rule. */
export function requireArgument(rule: ArgumentRule, helper: string, parameter: string, value: unknown): void {
  if (!ARGUMENT_RULES[rule].test(value)) {
    throw new RuntimeFailure(`${helper}: ${parameter} ${formatConstant(value)} is not ${ARGUMENT_RULES[rule].describe}`);
  }
}

/** Inline form of a test over a variadic list: one test per argument joined by ||, or one over the expanded list. */
function anyOf(list: string | readonly string[], one: (item: string) => string, expanded: (list: string) => string): string {
  if (typeof list === 'string') return expanded(list);
  return list.length === 0 ? 'false' : list.map(one).join(' || ');
}

export const HELPERS: readonly HelperDefinition[] = [
  {
    name: 'len',
    params: [{ name: 'value', type: 'string' }],
    result: 'int',
    meaning: 'length of the string in bytes (UTF-8), as in Go (len("é") is 2); 0 for an empty or missing value; of a []string, its number of elements',
    example: 'len(trackingField("sub1")) == 0',
    call: (_env, value: string | readonly string[]) => (typeof value === 'string' ? utf8ByteLength(value) : value.length),
  },
  {
    name: 'trackingField',
    params: [{ name: 'name', type: 'string', rule: 'fieldName' }],
    result: 'string',
    meaning: 'URL parameter defined in the traffic source config; "" when absent',
    example: 'trackingField("campaign") == "spring"',
    inline: (env, name) => `${env}.trackingField(${name as string})`,
  },
  {
    name: 'dataBuffer',
    params: [{ name: 'name', type: 'string', rule: 'fieldName' }],
    result: 'string',
    meaning: 'any URL or form key/value captured across redirect links, action links and POST submissions; "" when absent',
    example: 'dataBuffer("plan") == "pro"',
    inline: (env, name) => `${env}.dataBufferValue(${name as string})`,
  },
  {
    name: 'hasVisitorTag',
    params: [{ name: 'id', type: 'string' }],
    result: 'bool',
    meaning: 'the visitor has the tag with this id',
    example: 'hasVisitorTag("returning_buyer")',
    inline: (env, id) => `${env}.hasVisitorTag(${id as string})`,
  },
  {
    name: 'oneOf',
    params: [
      { name: 'value', type: 'string' },
      { name: 'candidates', type: 'string', variadic: true },
    ],
    result: 'bool',
    meaning: 'value equals one of the candidates exactly',
    example: 'oneOf(country, "US", "CA", "MX")',
    inline: (_env, value, candidates) =>
      anyOf(
        candidates,
        (candidate) => `${value as string} === ${candidate}`,
        (list) => `${list}.includes(${value as string})`,
      ),
  },
  {
    name: 'containsAny',
    params: [
      { name: 'value', type: 'string' },
      { name: 'substrings', type: 'string', variadic: true },
    ],
    result: 'bool',
    meaning: 'value contains at least one of the substrings',
    example: 'containsAny(referrer, "google.", "bing.")',
    inline: (_env, value, substrings) =>
      anyOf(
        substrings,
        (part) => `${value as string}.includes(${part})`,
        (list) => `${list}.some((part) => ${value as string}.includes(part))`,
      ),
  },
  {
    name: 'timeInRange',
    params: [
      { name: 'startHHMM', type: 'int', rule: 'clockTime' },
      { name: 'endHHMM', type: 'int', rule: 'clockTime' },
      { name: 'utcOffsetHours', type: 'int', rule: 'utcOffset' },
    ],
    result: 'bool',
    meaning: 'local time at the offset is at or after start and before end (HHMM); an end earlier than the start wraps past midnight',
    example: 'timeInRange(2200, 600, utcOffsetHours)',
    call: (env, start: number, end: number, utcOffsetHours: number) =>
      inClockRange(minuteOfDay(env.now(), utcOffsetHours), clockMinutes(start), clockMinutes(end)),
  },
  {
    name: 'timeAtOrAfter',
    params: [
      { name: 'hhmm', type: 'int', rule: 'clockTime' },
      { name: 'utcOffsetHours', type: 'int', rule: 'utcOffset' },
    ],
    result: 'bool',
    meaning: 'local time at the offset is at or after HHMM (same day, until midnight)',
    example: 'timeAtOrAfter(1800, -5)',
    call: (env, hhmm: number, utcOffsetHours: number) => minuteOfDay(env.now(), utcOffsetHours) >= clockMinutes(hhmm),
  },
  {
    name: 'timeAtOrBefore',
    params: [
      { name: 'hhmm', type: 'int', rule: 'clockTime' },
      { name: 'utcOffsetHours', type: 'int', rule: 'utcOffset' },
    ],
    result: 'bool',
    meaning: 'local time at the offset is at or before HHMM, to the minute (same day, from midnight)',
    example: 'timeAtOrBefore(830, 1)',
    call: (env, hhmm: number, utcOffsetHours: number) => minuteOfDay(env.now(), utcOffsetHours) <= clockMinutes(hhmm),
  },
  {
    name: 'localDay',
    params: [{ name: 'utcOffsetHours', type: 'int', rule: 'utcOffset' }],
    result: 'string',
    meaning: 'lowercase English day name (sunday .. saturday) at the offset',
    example: 'localDay(utcOffsetHours) == "saturday"',
    call: (env, utcOffsetHours: number) => DAY_NAMES[localWeekday(env.now(), utcOffsetHours)],
  },
  {
    name: 'strings.Contains',
    params: [
      { name: 's', type: 'string' },
      { name: 'substr', type: 'string' },
    ],
    result: 'bool',
    meaning: 's contains substr',
    example: 'strings.Contains(userAgent, "Android")',
    inline: (_env, s, substr) => `${s as string}.includes(${substr as string})`,
  },
  {
    name: 'strings.HasPrefix',
    params: [
      { name: 's', type: 'string' },
      { name: 'prefix', type: 'string' },
    ],
    result: 'bool',
    meaning: 's begins with prefix',
    example: 'strings.HasPrefix(currentURL, "https://")',
    inline: (_env, s, prefix) => `${s as string}.startsWith(${prefix as string})`,
  },
  {
    name: 'strings.HasSuffix',
    params: [
      { name: 's', type: 'string' },
      { name: 'suffix', type: 'string' },
    ],
    result: 'bool',
    meaning: 's ends with suffix',
    example: 'strings.HasSuffix(trackingDomain, ".example.com")',
    inline: (_env, s, suffix) => `${s as string}.endsWith(${suffix as string})`,
  },
  {
    name: 'strings.ToLower',
    params: [{ name: 's', type: 'string' }],
    result: 'string',
    meaning: 's in lower case, rune by rune with Unicode\'s simple mappings, as Go does ("İ" becomes "i", a final "Σ" becomes "σ")',
    example: 'strings.ToLower(browser) == "chrome"',
    call: (_env, s: string) => goToLower(s),
  },
  {
    name: 'strings.ToUpper',
    params: [{ name: 's', type: 'string' }],
    result: 'string',
    meaning: 's in upper case, rune by rune with Unicode\'s simple mappings, as Go does ("ß" stays "ß")',
    example: 'strings.ToUpper(trackingField("geo")) == country',
    call: (_env, s: string) => goToUpper(s),
  },
];

export const HELPERS_BY_NAME: ReadonlyMap<string, HelperDefinition> = new Map(HELPERS.map((h) => [h.name, h]));

/** The member names of package strings that scripts may call. */
export const STRINGS_MEMBERS: readonly string[] = HELPERS.filter((h) => h.name.startsWith('strings.')).map((h) => h.name.slice('strings.'.length));

/** The helpers of package strings by member name (ToLower, ...). */
export const STRINGS_HELPERS: ReadonlyMap<string, HelperDefinition> = new Map(
  HELPERS.filter((h) => h.name.startsWith('strings.')).map((h) => [h.name.slice('strings.'.length), h]),
);

/** `oneOf(value string, candidates ...string) bool` */
export function helperSignature(helper: HelperDefinition): string {
  const params = helper.params.map((p) => `${p.name} ${p.variadic ? '...' : ''}${TYPE_SPELLING[p.type]}`).join(', ');
  return `${helper.name}(${params}) ${TYPE_SPELLING[helper.result]}`;
}
