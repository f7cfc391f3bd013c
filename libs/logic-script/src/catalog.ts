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
  syntax: { allowed: string[]; forbidden: { code: DiagnosticCode; rule: string; instead: string }[] };
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
    clockTime: 'times are HHMM integers: 930 is 09:30, 0 is midnight, 2359 the last minute; write 900, not 0900 (a leading 0 is octal in Go)',
    utcOffsetHours: `time helpers take a whole-hour UTC offset from ${MIN_UTC_OFFSET_HOURS} to ${MAX_UTC_OFFSET_HOURS}, never the timezone string; pass utcOffsetHours for the visitor's own time`,
    ranges: 'timeInRange includes the start and excludes the end; an end earlier than the start wraps past midnight; equal start and end is an empty range',
  },
  types: [
    { name: 'string', description: 'text; missing visitor data reads as ""' },
    { name: 'int', description: 'whole number' },
    { name: 'bool', description: 'true or false' },
    { name: '[]string', description: 'a list literal []string{"a", "b"}, only for expanding into oneOf or containsAny with ...' },
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
  ],
  syntax: {
    allowed: [
      'if / else if / else, with an optional init statement: if d := deviceType; d == "mobile" { ... }',
      'switch with a value and case lists, or without a value and bool cases; default',
      'local variables: name := value, var name type, var name = value, and assignment with =',
      'closures assigned to a local and called: isMobile := func(d string) bool { ... }; bool, int or string parameters and exactly one bool, int or string result returned on every path; no recursion',
      'string-list literals []string{...}, expanded into oneOf or containsAny with a trailing ...',
      'comments // and /* */; strings "..." with Go escapes and raw strings `...`; decimal integers; true and false',
      'every path returns a route key; code after a return is unreachable and rejected; unused locals are rejected, as in Go',
    ],
    forbidden: FORBIDDEN_CONSTRUCTS.map((f) => ({ code: f.code, rule: f.rejected, instead: f.instead })),
  },
  diagnostics: (Object.keys(DIAGNOSTIC_CODES) as DiagnosticCode[]).map((code) => ({ code, meaning: DIAGNOSTIC_CODES[code] })),
  templates: TEMPLATES,
});
