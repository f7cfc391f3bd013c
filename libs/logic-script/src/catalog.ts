// The language as data, for GET /logicscripts/language and editor tooling. Variables and helpers come
// from the same table the checker and evaluator use, so the documentation cannot drift from behaviour.
import { helperSignature, HELPERS, TYPE_SPELLING, VARIABLES } from './builtins';
import { DIAGNOSTIC_CODES, DiagnosticCode } from './diagnostics';
import { FORBIDDEN_CONSTRUCTS } from './forbidden';
import { FALLBACK_ROUTE_KEY, FIELD_NAME_PATTERN, MAX_CODE_BYTES, MAX_UTC_OFFSET_HOURS, MIN_UTC_OFFSET_HOURS, ROUTE_KEY_PATTERN } from './rules';

export interface CatalogVariable {
  name: string;
  type: string;
  meaning: string;
  example: string;
}

export interface CatalogHelper {
  name: string;
  signature: string;
  returns: string;
  meaning: string;
  example: string;
}

export interface CatalogOperator {
  operator: string;
  meaning: string;
  operands: string;
}

export interface CatalogTemplate {
  name: string;
  description: string;
  code: string;
}

export interface LanguageCatalog {
  maxCodeBytes: number;
  fallbackRouteKey: string;
  routeKeyRule: { pattern: string; description: string };
  nameRule: { pattern: string; appliesTo: string[]; description: string };
  timeRules: { clockTime: string; utcOffsetHours: string; ranges: string };
  types: { name: string; description: string }[];
  variables: CatalogVariable[];
  helpers: CatalogHelper[];
  operators: CatalogOperator[];
  syntax: {
    /** The rule the language follows: Go's, within the spec's limits. */
    rule: string;
    allowed: string[];
    forbidden: { code: DiagnosticCode; rule: string; instead: string }[];
    /** Where a snippet Go compiles is still rejected or differs, on purpose, with the diagnostic that says so. */
    differencesFromGo: { code: DiagnosticCode; rule: string }[];
  };
  diagnostics: { code: DiagnosticCode; meaning: string }[];
  templates: CatalogTemplate[];
}

const TEMPLATES: CatalogTemplate[] = [
  {
    name: 'By country',
    description: 'Send each market to its own connection; everything else takes the fallback.',
    code: `// Route by the visitor's country (uppercase ISO code).
switch country {
case "US", "CA":
	return "north_america"
case "GB", "IE":
	return "uk_ireland"
case "DE", "AT", "CH":
	return "dach"
}
return "default"
`,
  },
  {
    name: 'By device type',
    description: 'Mobile and tablet visitors get the mobile lander; unresolved devices take the fallback.',
    code: `// An empty value means the device could not be resolved.
device := strings.ToLower(deviceType)
if device == "" {
	return "default"
}
if oneOf(device, "mobile", "tablet") {
	return "mobile"
}
return "desktop"
`,
  },
  {
    name: 'By time of day',
    description: "Business hours and night in the visitor's own time; the night range wraps past midnight.",
    code: `// HHMM times at the visitor's UTC offset; start inclusive, end exclusive.
if timeInRange(900, 1800, utcOffsetHours) {
	return "business_hours"
}
if timeInRange(2200, 600, utcOffsetHours) {
	return "night"
}
return "evening"
`,
  },
  {
    name: 'By weekday',
    description: "Weekend visitors, by the day in the visitor's time zone.",
    code: `// localDay gives the lowercase English day name at an offset.
day := localDay(utcOffsetHours)
if day == "saturday" || day == "sunday" {
	return "weekend"
}
return "weekday"
`,
  },
  {
    name: 'By tracking field',
    description: 'Route by a URL parameter defined in the traffic source config.',
    code: `// trackingField reads a parameter of the traffic source; "" when absent.
campaign := strings.ToLower(trackingField("campaign"))
switch {
case campaign == "":
	return "default"
case strings.HasPrefix(campaign, "retarget"):
	return "retargeting"
case campaign == "brand":
	return "brand"
}
return "prospecting"
`,
  },
  {
    name: 'By data buffer',
    description: 'Route by a value captured earlier in the funnel, e.g. a form field.',
    code: `// dataBuffer reads keys captured across redirects, action links and POST submissions.
plan := dataBuffer("plan")
if oneOf(plan, "pro", "business") {
	return "premium_checkout"
}
if plan != "" {
	return "standard_checkout"
}
return "default"
`,
  },
  {
    name: 'By visitor tag',
    description: 'Visitors carrying a tag skip the pre-sell page.',
    code: `// Replace the id with the id of your visitor tag.
if hasVisitorTag("buyers") {
	return "returning_buyer"
}
return "new_visitor"
`,
  },
  {
    name: 'By referrer',
    description: 'Search, social and direct visitors see different landers.',
    code: `// referrer falls back to initialReferrer when empty.
searchEngines := []string{"google.", "bing.", "duckduckgo.", "yahoo."}
if containsAny(referrer, searchEngines...) {
	return "search"
}
if containsAny(referrer, "facebook.com", "instagram.com", "t.co/") {
	return "social"
}
if referrer == "" {
	return "direct"
}
return "other"
`,
  },
  {
    name: 'Organic traffic',
    description: 'Organically tracked visitors take their own path.',
    code: `if trafficSourceID == "organic" {
	return "organic"
}
return "paid"
`,
  },
  {
    name: 'Closure for a repeated test',
    description: 'A local closure keeps a test in one place; closures take and return bool, int or string.',
    code: `isMobile := func(device string) bool {
	return oneOf(strings.ToLower(device), "mobile", "tablet")
}
if country == "US" && isMobile(deviceType) {
	return "us_mobile"
}
if isMobile(deviceType) {
	return "mobile"
}
return "default"
`,
  },
];

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}

export const languageCatalog: LanguageCatalog = deepFreeze({
  maxCodeBytes: MAX_CODE_BYTES,
  fallbackRouteKey: FALLBACK_ROUTE_KEY,
  routeKeyRule: {
    pattern: ROUTE_KEY_PATTERN.source,
    description: `every returned key: 1 to 64 lowercase letters, digits or underscores; "${FALLBACK_ROUTE_KEY}" is the reserved fallback every logic node connects`,
  },
  nameRule: {
    pattern: FIELD_NAME_PATTERN.source,
    appliesTo: ['trackingField', 'dataBuffer'],
    description: '1 to 64 letters, digits, underscores, spaces or hyphens',
  },
  timeRules: {
    clockTime:
      'times are HHMM integers: 930 is 09:30, 0 is midnight, 2359 the last minute; write 900, not 0900 (a leading 0 is octal in Go: 0900 is an error and 0700 is 448, with a warning)',
    utcOffsetHours: `time helpers take a whole-hour UTC offset from ${MIN_UTC_OFFSET_HOURS} to ${MAX_UTC_OFFSET_HOURS}, never the timezone string; pass utcOffsetHours for the visitor's own time`,
    ranges: 'timeInRange includes the start and excludes the end; an end earlier than the start wraps past midnight; equal start and end is an empty range',
  },
  types: [
    { name: 'string', description: 'text; missing visitor data reads as ""' },
    { name: 'int', description: "64-bit whole number, as Go's int; comparisons are exact at any size" },
    { name: 'bool', description: 'true or false' },
    { name: '[]string', description: 'a list literal []string{"a", "b"}, for expanding into oneOf or containsAny with ...; len(list) counts its elements' },
    {
      name: 'func(...) T',
      description: 'a closure with bool, int or string parameters and one bool, int or string result; nil until a closure is assigned',
    },
  ],
  variables: VARIABLES.map((v) => ({ name: v.name, type: v.type, meaning: v.meaning, example: v.example })),
  helpers: HELPERS.map((h) => ({ name: h.name, signature: helperSignature(h), returns: TYPE_SPELLING[h.result], meaning: h.meaning, example: h.example })),
  operators: [
    { operator: '==', meaning: 'equal', operands: 'two strings, ints or bools' },
    { operator: '!=', meaning: 'not equal', operands: 'two strings, ints or bools' },
    { operator: '<', meaning: 'less than', operands: 'two ints or two strings' },
    { operator: '>', meaning: 'greater than', operands: 'two ints or two strings' },
    { operator: '<=', meaning: 'less than or equal', operands: 'two ints or two strings' },
    { operator: '>=', meaning: 'greater than or equal', operands: 'two ints or two strings' },
    { operator: '&&', meaning: 'and (the right side runs only when the left is true)', operands: 'two bools' },
    { operator: '||', meaning: 'or (the right side runs only when the left is false)', operands: 'two bools' },
    { operator: '!', meaning: 'not', operands: 'one bool' },
    { operator: '-', meaning: 'negative number, e.g. the offset -5 (not subtraction)', operands: 'one int' },
    { operator: '== nil', meaning: 'a func variable holds no closure, or a []string is nil (also != nil)', operands: 'a func or a []string, and nil' },
  ],
  syntax: {
    rule: `Go's rule: a snippet that Go compiles (as the body of a function returning string, with the variables and helpers above) is valid unless the forbidden list, the route-key rule or the ${MAX_CODE_BYTES}-byte limit excludes it (or it departs from Go as differencesFromGo lists), and it evaluates as Go would run it`,
    allowed: [
      'if / else if / else, with an optional init statement: if d := deviceType; d == "mobile" { ... }',
      'switch with a value and case lists, or without a value and bool cases; default; break leaves the switch early; fallthrough, the last statement of a case, runs the next case',
      'local variables: name := value, var name type, var name = value, and assignment with =; a local may shadow a predeclared name (country := strings.ToLower(country)), and a predeclared variable may be assigned, as a Go package variable',
      'constants: const name = value, const name type = value, and const ( ... ) groups with iota and repeated values; constants need not be used; a constant string returned is a route key known in advance',
      'closures: isMobile := func(d string) bool { ... }, with bool, int or string parameters (named or not) and exactly one bool, int or string result returned on every path; no recursion, also through func variables',
      'func values: a closure called where it is written (func() bool { ... }()), held by a variable of func type (var f func(string) bool, then f = func(s string) bool { ... }), copied, reassigned and compared with nil; calling a nil func fails at run time, and the visitor takes "default"',
      'conversions between the types, as Go allows them: string(x), int(x) and bool(x) of a value of that type, and string(n) of an int n, the character with code n ("\\uFFFD" when n is none), which is a warning as go vet gives',
      'string-list literals []string{...}, expanded into oneOf or containsAny with a trailing ...; a []string declared without a value is nil',
      'integers in decimal, hex (0x1F), octal (0o17, or 017 with a leading 0) and binary (0b101), with _ between digits (1_000); ints are 64-bit and compare exactly; an integer constant that overflows int is an error',
      'strings "..." with Go escapes and raw strings `...`; len counts UTF-8 bytes; strings.ToLower and strings.ToUpper map rune by rune with Unicode simple case mappings, as Go does ("ß" stays "ß"); comments // and /* */',
      'every path returns a route key; code after a return never runs (the first return wins) and is a warning; unused local variables are rejected, as in Go',
    ],
    forbidden: FORBIDDEN_CONSTRUCTS.map((f) => ({ code: f.code, rule: f.rejected, instead: f.instead })),
    differencesFromGo: [
      {
        code: 'INVALID_UTF8_LITERAL',
        rule: 'a string literal must be valid UTF-8: \\x and octal escapes have to spell whole UTF-8 characters ("\\xc3\\xa9" is é; "\\xff" is an error), because visitor data is always valid UTF-8',
      },
      {
        code: 'UNSUPPORTED_ARITHMETIC',
        rule: 'the operators are the ones listed above: arithmetic, bit operations and string concatenation (+ - * / % & | ^ << >> &^, += and ++) are rejected',
      },
      {
        code: 'UNSUPPORTED_TYPE',
        rule: 'the types are the ones listed above: other Go types (rune, byte, float64, arrays, structs, maps are forbidden) and conversions to them are rejected',
      },
      { code: 'UNSUPPORTED_RUNE_LITERAL', rule: "rune literals such as 'a' are rejected: write strings in double quotes" },
      { code: 'UNSUPPORTED_TYPE_DECLARATION', rule: 'type declarations are rejected' },
      { code: 'UNSUPPORTED_BRANCH', rule: 'labels and goto are rejected; break and fallthrough act on the innermost switch' },
      {
        code: 'UNSUPPORTED_STRINGS_FUNCTION',
        rule: 'the functions are the helpers above: other functions of package strings and Go built-ins other than len are rejected, and helpers can only be called, not used as func values',
      },
      {
        code: 'INVALID_CLOCK_TIME',
        rule: 'a literal helper argument that breaks its rule (a clock time, an offset or a field name) is an error at validation, where Go would fail only at run time',
      },
      { code: 'RECURSION_NOT_ALLOWED', rule: 'a closure may not call itself, directly, through another closure or through a func variable' },
    ],
  },
  diagnostics: (Object.keys(DIAGNOSTIC_CODES) as DiagnosticCode[]).map((code) => ({ code, meaning: DIAGNOSTIC_CODES[code] })),
  templates: TEMPLATES,
});
