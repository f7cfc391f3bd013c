import { VARIABLES } from './builtins';
import { compile, CompiledScript, evaluate, EvaluationContext } from './evaluator';

const lines = (...parts: string[]): string => parts.join('\n');
const NOW = new Date('2024-05-06T14:30:00Z'); // a Monday

function compiled(code: string): CompiledScript {
  const result = compile(code);
  if (!result.ok) throw new Error(`test script is invalid: ${JSON.stringify(result.result.errors)}`);
  return result.script;
}

/** The key a script returns for a context (now defaults to NOW). */
function keyOf(code: string, context: Partial<EvaluationContext> = {}): string {
  const result = evaluate(compiled(code), { now: NOW, ...context });
  return result.routeKey;
}

/** Evaluates `condition` as a bool: "yes" or "no". */
function holds(condition: string, context: Partial<EvaluationContext> = {}): boolean {
  const key = keyOf(lines(`if ${condition} {`, '\treturn "yes"', '}', 'return "no"'), context);
  if (key !== 'yes' && key !== 'no') throw new Error(`unexpected key ${key}`);
  return key === 'yes';
}

const at = (iso: string): Date => new Date(iso);

describe('variables', () => {
  const stringVariables = VARIABLES.filter((v) => v.type === 'string' && v.name !== 'referrer').map((v) => v.name);

  it.each(stringVariables)('%s reads the visitor attribute of the same name', (name) => {
    expect(holds(`${name} == "Some value"`, { visitor: { [name]: 'Some value' } })).toBe(true);
    expect(holds(`${name} == "Some value"`, { visitor: { [name]: 'Other' } })).toBe(false);
  });

  it.each(stringVariables)('%s is "" when the attribute is missing', (name) => {
    expect(holds(`${name} == ""`, { visitor: {} })).toBe(true);
    expect(holds(`${name} == ""`, {})).toBe(true);
  });

  it('reads non-string attribute values as ""', () => {
    expect(holds('country == ""', { visitor: { country: 42 as unknown as string } })).toBe(true);
  });

  it('keeps the text "unknown" of unresolved attributes as it is', () => {
    expect(holds('city == "unknown"', { visitor: { city: 'unknown' } })).toBe(true);
  });

  it('referrer falls back to initialReferrer when empty', () => {
    expect(holds('referrer == "https://a.example/"', { visitor: { initialReferrer: 'https://a.example/' } })).toBe(true);
    expect(holds('referrer == "https://a.example/"', { visitor: { referrer: '', initialReferrer: 'https://a.example/' } })).toBe(true);
    expect(holds('referrer == "https://b.example/"', { visitor: { referrer: 'https://b.example/', initialReferrer: 'https://a.example/' } })).toBe(true);
    expect(holds('referrer == ""', { visitor: {} })).toBe(true);
  });

  it('derives hour, minute, weekday, dayOfMonth, month and year from the instant in UTC', () => {
    const context = { now: at('2024-02-29T23:59:30Z'), visitor: { utcOffsetHours: 5 } };
    expect(holds('hour == 23', context)).toBe(true);
    expect(holds('minute == 59', context)).toBe(true);
    expect(holds('weekday == 4', context)).toBe(true); // Thursday
    expect(holds('dayOfMonth == 29', context)).toBe(true);
    expect(holds('month == 2', context)).toBe(true);
    expect(holds('year == 2024', context)).toBe(true);
  });

  it('numbers weekdays from Sunday 0 to Saturday 6 and months from January 1', () => {
    expect(holds('weekday == 0 && month == 1 && dayOfMonth == 7', { now: at('2024-01-07T00:00:00Z') })).toBe(true);
    expect(holds('weekday == 6 && month == 12 && dayOfMonth == 31', { now: at('2022-12-31T12:00:00Z') })).toBe(true);
  });

  it('handles instants before 1970', () => {
    expect(holds('year == 1969 && month == 12 && dayOfMonth == 31 && hour == 23 && minute == 0 && weekday == 3', { now: at('1969-12-31T23:00:00Z') })).toBe(
      true,
    );
  });

  it('utcOffsetHours comes with the visitor, 0 when absent or not whole', () => {
    expect(holds('utcOffsetHours == 7', { visitor: { utcOffsetHours: 7 } })).toBe(true);
    expect(holds('utcOffsetHours == -5', { visitor: { utcOffsetHours: -5 } })).toBe(true);
    expect(holds('utcOffsetHours == 0', { visitor: {} })).toBe(true);
    expect(holds('utcOffsetHours == 0', { visitor: { utcOffsetHours: 5.5 } })).toBe(true);
    expect(holds('utcOffsetHours == 3', { visitor: { utcOffsetHours: '3' as unknown as number } })).toBe(true);
  });

  it('time variables ignore the visitor offset', () => {
    expect(holds('hour == 14', { visitor: { utcOffsetHours: 9 } })).toBe(true);
  });
});

describe('helpers', () => {
  it('len counts UTF-8 bytes, as Go does', () => {
    expect(holds('len(city) == 0', { visitor: {} })).toBe(true);
    expect(holds('len(city) == 6', { visitor: { city: 'Berlin' } })).toBe(true);
    expect(holds('len(city) == 6', { visitor: { city: 'Zürich' } })).toBe(false);
    expect(holds('len(city) == 7', { visitor: { city: 'Zürich' } })).toBe(true);
    expect(holds('len(city) == 4', { visitor: { city: '😀' } })).toBe(true);
  });

  it('trackingField reads the traffic source parameter, "" when absent', () => {
    expect(holds('trackingField("sub 1") == "abc"', { trackingFields: { 'sub 1': 'abc' } })).toBe(true);
    expect(holds('trackingField("sub2") == ""', { trackingFields: { 'sub 1': 'abc' } })).toBe(true);
    expect(holds('trackingField("sub2") == ""', {})).toBe(true);
    expect(holds('trackingField("sub2") == ""', { trackingFields: { sub2: 7 as unknown as string } })).toBe(true);
  });

  it('trackingField and dataBuffer do not read inherited properties', () => {
    expect(holds('trackingField("constructor") == "" && dataBuffer("toString") == ""', { trackingFields: {}, dataBuffer: {} })).toBe(true);
  });

  it('dataBuffer reads captured values, "" when absent', () => {
    expect(holds('dataBuffer("plan") == "pro"', { dataBuffer: { plan: 'pro' } })).toBe(true);
    expect(holds('dataBuffer("plan") == ""', { dataBuffer: {} })).toBe(true);
    // the two sources are separate
    expect(holds('dataBuffer("plan") == ""', { trackingFields: { plan: 'pro' } })).toBe(true);
  });

  it('hasVisitorTag accepts arrays, sets and other iterables', () => {
    expect(holds('hasVisitorTag("t1")', { visitorTags: ['t0', 't1'] })).toBe(true);
    expect(holds('hasVisitorTag("t1")', { visitorTags: new Set(['t1']) })).toBe(true);
    function* tags(): Generator<string> {
      yield 't9';
      yield 't1';
    }
    expect(holds('hasVisitorTag("t1") && hasVisitorTag("t9")', { visitorTags: tags() })).toBe(true);
    expect(holds('hasVisitorTag("t1")', { visitorTags: ['T1'] })).toBe(false);
    expect(holds('hasVisitorTag("t1")', {})).toBe(false);
  });

  it('oneOf matches exactly, with literal candidates or an expanded list', () => {
    expect(holds('oneOf(country, "US", "CA")', { visitor: { country: 'CA' } })).toBe(true);
    expect(holds('oneOf(country, "US", "CA")', { visitor: { country: 'us' } })).toBe(false);
    expect(holds('oneOf(country, "US", "CA")', { visitor: { country: 'USA' } })).toBe(false);
    const withList = lines('l := []string{"US", strings.ToUpper(city)}', 'if oneOf(country, l...) {', '\treturn "yes"', '}', 'return "no"');
    expect(keyOf(withList, { visitor: { country: 'PARIS', city: 'paris' } })).toBe('yes');
    expect(keyOf(withList, { visitor: { country: 'FR', city: 'paris' } })).toBe('no');
    expect(holds('oneOf(country)', { visitor: { country: '' } })).toBe(false);
  });

  it('containsAny matches substrings', () => {
    expect(holds('containsAny(referrer, "google.", "bing.")', { visitor: { referrer: 'https://www.bing.com/search' } })).toBe(true);
    expect(holds('containsAny(referrer, "google.", "bing.")', { visitor: { referrer: 'https://duckduckgo.com/' } })).toBe(false);
    expect(holds('containsAny(referrer, []string{"duck"}...)', { visitor: { referrer: 'https://duckduckgo.com/' } })).toBe(true);
    expect(holds('containsAny(referrer)', { visitor: { referrer: 'x' } })).toBe(false);
  });

  it('timeInRange includes the start and excludes the end', () => {
    const range = 'timeInRange(900, 1700, 0)';
    expect(holds(range, { now: at('2024-05-06T08:59:59Z') })).toBe(false);
    expect(holds(range, { now: at('2024-05-06T09:00:00Z') })).toBe(true);
    expect(holds(range, { now: at('2024-05-06T16:59:59Z') })).toBe(true);
    expect(holds(range, { now: at('2024-05-06T17:00:00Z') })).toBe(false);
  });

  it('timeInRange wraps past midnight when the end is earlier than the start', () => {
    const night = 'timeInRange(2200, 600, 0)';
    expect(holds(night, { now: at('2024-05-06T21:59:00Z') })).toBe(false);
    expect(holds(night, { now: at('2024-05-06T22:00:00Z') })).toBe(true);
    expect(holds(night, { now: at('2024-05-06T23:59:00Z') })).toBe(true);
    expect(holds(night, { now: at('2024-05-07T00:00:00Z') })).toBe(true);
    expect(holds(night, { now: at('2024-05-07T05:59:00Z') })).toBe(true);
    expect(holds(night, { now: at('2024-05-07T06:00:00Z') })).toBe(false);
    expect(holds(night, { now: at('2024-05-07T12:00:00Z') })).toBe(false);
  });

  it('timeInRange with equal start and end is empty', () => {
    expect(holds('timeInRange(1200, 1200, 0)', { now: at('2024-05-06T12:00:00Z') })).toBe(false);
  });

  it('timeInRange applies negative and positive offsets', () => {
    // 02:00 UTC is 21:00 the previous evening at UTC-5 and 16:00 at UTC+14.
    const now = at('2024-05-06T02:00:00Z');
    expect(holds('timeInRange(2000, 2200, -5)', { now })).toBe(true);
    expect(holds('timeInRange(100, 300, -5)', { now })).toBe(false);
    expect(holds('timeInRange(1600, 1601, 14)', { now })).toBe(true);
    expect(holds('timeInRange(2100, 2101, -12)', { now: at('2024-05-06T09:00:00Z') })).toBe(true);
  });

  it('timeInRange takes the visitor offset from utcOffsetHours', () => {
    const now = at('2024-05-06T02:00:00Z');
    expect(holds('timeInRange(2000, 2200, utcOffsetHours)', { now, visitor: { utcOffsetHours: -5 } })).toBe(true);
    expect(holds('timeInRange(2000, 2200, utcOffsetHours)', { now, visitor: { utcOffsetHours: 0 } })).toBe(false);
  });

  it('timeAtOrAfter and timeAtOrBefore compare to the minute, both inclusive', () => {
    const now = at('2024-05-06T17:00:45Z');
    expect(holds('timeAtOrAfter(1700, 0)', { now })).toBe(true);
    expect(holds('timeAtOrAfter(1701, 0)', { now })).toBe(false);
    expect(holds('timeAtOrBefore(1700, 0)', { now })).toBe(true);
    expect(holds('timeAtOrBefore(1659, 0)', { now })).toBe(false);
    // 17:00 UTC is 12:00 at UTC-5 and 03:00 the next day at UTC+10.
    expect(holds('timeAtOrAfter(1200, -5) && timeAtOrBefore(1200, -5)', { now })).toBe(true);
    expect(holds('timeAtOrBefore(300, 10) && timeAtOrAfter(300, 10)', { now })).toBe(true);
    expect(holds('timeAtOrAfter(0, 0) && timeAtOrBefore(2359, 0)', { now })).toBe(true);
  });

  it('localDay names the day at the offset in lowercase English', () => {
    const mondayEarly = at('2024-05-06T02:00:00Z');
    expect(holds('localDay(0) == "monday"', { now: mondayEarly })).toBe(true);
    expect(holds('localDay(-5) == "sunday"', { now: mondayEarly })).toBe(true);
    expect(holds('localDay(14) == "tuesday"', { now: at('2024-05-06T12:00:00Z') })).toBe(true);
    expect(holds('localDay(-12) == "saturday"', { now: at('2024-05-05T11:59:00Z') })).toBe(true);
    const week = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];
    week.forEach((day, i) => expect(holds(`localDay(0) == "${day}"`, { now: at(`2024-05-${String(5 + i).padStart(2, '0')}T12:00:00Z`) })).toBe(true));
  });

  it('strings helpers', () => {
    const visitor = { userAgent: 'Mozilla/5.0 (Linux; Android 14)', browser: 'Chrome' };
    expect(holds('strings.Contains(userAgent, "Android")', { visitor })).toBe(true);
    expect(holds('strings.Contains(userAgent, "iPhone")', { visitor })).toBe(false);
    expect(holds('strings.HasPrefix(userAgent, "Mozilla/")', { visitor })).toBe(true);
    expect(holds('strings.HasPrefix(userAgent, "Linux")', { visitor })).toBe(false);
    expect(holds('strings.HasSuffix(userAgent, "14)")', { visitor })).toBe(true);
    expect(holds('strings.HasSuffix(userAgent, "Mozilla")', { visitor })).toBe(false);
    expect(holds('strings.ToLower(browser) == "chrome"', { visitor })).toBe(true);
    expect(holds('strings.ToUpper(browser) == "CHROME"', { visitor })).toBe(true);
  });

  it('a computed argument that breaks a helper rule routes to default with the reason', () => {
    const script = compiled(
      lines('opens := func(at int) bool {', '\treturn timeAtOrAfter(at, 0)', '}', 'if opens(hour) {', '\treturn "open"', '}', 'return "closed"'),
    );
    expect(evaluate(script, { now: NOW }).routeKey).toBe('open'); // hour 14 read as 00:14
    const bad = compiled(
      lines('opens := func(at int) bool {', '\treturn timeAtOrAfter(at, 0)', '}', 'if opens(2500) {', '\treturn "open"', '}', 'return "closed"'),
    );
    expect(evaluate(bad, { now: NOW })).toEqual({
      routeKey: 'default',
      fallback: true,
      reasonCode: 'RUNTIME_ERROR',
      reason: expect.stringContaining('timeAtOrAfter: hhmm 2500 is not an HHMM clock time'),
    });
  });

  it('an out-of-range visitor offset passed to a time helper routes to default', () => {
    const result = evaluate(compiled(lines('if localDay(utcOffsetHours) == "monday" {', '\treturn "monday"', '}', 'return "other"')), {
      now: NOW,
      visitor: { utcOffsetHours: 20 },
    });
    expect(result).toMatchObject({ routeKey: 'default', fallback: true, reasonCode: 'RUNTIME_ERROR' });
    expect(result.reason).toContain('utcOffsetHours 20');
  });

  it('a computed field name that breaks the name rule routes to default', () => {
    const result = evaluate(compiled(lines('if trackingField(city) == "" {', '\treturn "a"', '}', 'return "b"')), { now: NOW, visitor: { city: 'a.b' } });
    expect(result).toMatchObject({ routeKey: 'default', reasonCode: 'RUNTIME_ERROR' });
    expect(evaluate(compiled(lines('if trackingField(city) == "" {', '\treturn "a"', '}', 'return "b"')), { now: NOW, visitor: { city: 'ok' } }).routeKey).toBe(
      'a',
    );
  });
});

describe('statements and expressions', () => {
  it('the first return wins', () => {
    expect(keyOf(lines('if true {', '\treturn "first"', '}', 'return "second"'))).toBe('first');
  });

  it('if / else if / else', () => {
    const code = lines('if country == "US" {', '\treturn "us"', '} else if country == "CA" {', '\treturn "ca"', '} else {', '\treturn "row"', '}');
    expect(keyOf(code, { visitor: { country: 'US' } })).toBe('us');
    expect(keyOf(code, { visitor: { country: 'CA' } })).toBe('ca');
    expect(keyOf(code, { visitor: { country: 'FR' } })).toBe('row');
  });

  it('if init statements are scoped to the whole chain', () => {
    const code = lines('if c := strings.ToLower(country); c == "us" {', '\treturn "us"', '} else if c == "ca" {', '\treturn "ca"', '}', 'return "row"');
    expect(keyOf(code, { visitor: { country: 'CA' } })).toBe('ca');
  });

  it('switch with literal cases, case lists and default anywhere', () => {
    const code = lines('switch country {', 'case "US", "CA":', '\treturn "na"', 'default:', '\treturn "row"', 'case "DE":', '\treturn "de"', '}');
    expect(keyOf(code, { visitor: { country: 'CA' } })).toBe('na');
    expect(keyOf(code, { visitor: { country: 'DE' } })).toBe('de');
    expect(keyOf(code, { visitor: { country: 'FR' } })).toBe('row');
  });

  it('switch with computed cases picks the first match', () => {
    const code = lines(
      'switch strings.ToLower(country) {',
      'case strings.ToLower(city):',
      '\treturn "same"',
      'case "us":',
      '\treturn "us"',
      '}',
      'return "row"',
    );
    expect(keyOf(code, { visitor: { country: 'US', city: 'us' } })).toBe('same');
    expect(keyOf(code, { visitor: { country: 'US', city: 'x' } })).toBe('us');
  });

  it('tagless switch runs the first true case; an empty case does not fall through', () => {
    const code = lines('switch {', 'case hour < 6:', 'case hour < 12:', '\treturn "morning"', 'default:', '\treturn "later"', '}', 'return "night"');
    expect(keyOf(code, { now: at('2024-05-06T03:00:00Z') })).toBe('night');
    expect(keyOf(code, { now: at('2024-05-06T09:00:00Z') })).toBe('morning');
    expect(keyOf(code, { now: at('2024-05-06T19:00:00Z') })).toBe('later');
  });

  it('evaluates a switch tag once', () => {
    const code = lines(
      'state := "a"',
      'step := func() string {',
      '\tif state == "a" {',
      '\t\tstate = "b"',
      '\t\treturn "first"',
      '\t}',
      '\tstate = "c"',
      '\treturn "second"',
      '}',
      'switch step() {',
      'case "x":',
      '\treturn "x"',
      'case "y":',
      '\treturn "y"',
      '}',
      'if state == "b" {',
      '\treturn "once"',
      '}',
      'return "twice"',
    );
    expect(keyOf(code)).toBe('once');
  });

  it('&& and || short-circuit', () => {
    const code = lines(
      'called := false',
      'mark := func() bool {',
      '\tcalled = true',
      '\treturn true',
      '}',
      'if false && mark() {',
      '\treturn "x"',
      '}',
      'if true || mark() {',
      '\tif called {',
      '\t\treturn "called"',
      '\t}',
      '\treturn "skipped"',
      '}',
      'return "x"',
    );
    expect(keyOf(code)).toBe('skipped');
  });

  it('follows Go precedence: ! binds tightest, then comparisons, then &&, then ||', () => {
    expect(holds('true || false && false')).toBe(true); // && before ||
    expect(holds('(true || false) && false')).toBe(false);
    expect(holds('!false && false')).toBe(false); // ! before &&
    expect(holds('!(false && false)')).toBe(true);
    expect(holds('1 < 2 == true')).toBe(true); // comparisons are left-associative, same level
    expect(holds('-utcOffsetHours == 5', { visitor: { utcOffsetHours: -5 } })).toBe(true);
  });

  it('long || chains keep their order and meaning', () => {
    const conditions = Array.from({ length: 40 }, (_, i) => `country == "C${i}"`).join(' || ');
    expect(holds(conditions, { visitor: { country: 'C39' } })).toBe(true);
    expect(holds(conditions, { visitor: { country: 'C40' } })).toBe(false);
  });

  it('variables: zero values, assignment and parallel assignment', () => {
    const code = lines(
      'var s string',
      'var n int',
      'var b bool',
      'if s == "" && n == 0 && !b {',
      '\ts = "set"',
      '}',
      'a, c := "1", "2"',
      'a, c = c, a',
      'if s == "set" && a == "2" && c == "1" {',
      '\treturn "ok"',
      '}',
      'return "bad"',
    );
    expect(keyOf(code)).toBe('ok');
  });

  it('closures see and update captured locals', () => {
    const code = lines(
      'label := "none"',
      'tag := func(v string) bool {',
      '\tlabel = v',
      '\treturn true',
      '}',
      'if tag("mobile") && label == "mobile" {',
      '\treturn "captured"',
      '}',
      'return "lost"',
    );
    expect(keyOf(code)).toBe('captured');
  });

  it('closures evaluate all arguments before binding parameters', () => {
    const code = lines(
      'pick := func(a int, b int) int {',
      '\tif a > b {',
      '\t\treturn a',
      '\t}',
      '\treturn b',
      '}',
      'if pick(1, pick(5, 3)) == 5 {',
      '\treturn "ok"',
      '}',
      'return "bad"',
    );
    expect(keyOf(code)).toBe('ok');
  });

  it('closures calling closures, nested closures and returns from nested blocks', () => {
    const code = lines(
      'isUS := func(c string) bool {',
      '\treturn c == "US"',
      '}',
      'zone := func(c string) string {',
      '\tnear := func(x string) bool {',
      '\t\treturn oneOf(x, "CA", "MX")',
      '\t}',
      '\tif isUS(c) {',
      '\t\treturn "us"',
      '\t} else if near(c) {',
      '\t\treturn "na"',
      '\t}',
      '\treturn "row"',
      '}',
      'return zone(country)',
    );
    expect(keyOf(code, { visitor: { country: 'US' } })).toBe('us');
    expect(keyOf(code, { visitor: { country: 'MX' } })).toBe('na');
    expect(keyOf(code, { visitor: { country: 'FR' } })).toBe('row');
  });

  it('negative numbers and int comparisons', () => {
    expect(holds('utcOffsetHours < -3 && -utcOffsetHours == 5', { visitor: { utcOffsetHours: -5 } })).toBe(true);
  });

  it('orders strings by code point, as Go orders by UTF-8 bytes', () => {
    expect(holds('"\\uffff" < "\\U0001F600"')).toBe(true); // UTF-16 order would say the opposite
    expect(holds('"abc" < "abd" && "ab" < "abc" && "b" > "abc" && "a" <= "a" && "a" >= "a"')).toBe(true);
  });

  it('decodes Go escapes in string literals', () => {
    expect(holds('city == "a\\tb\\x41\\u00e9\\303\\251"', { visitor: { city: 'a\tbAéé' } })).toBe(true);
    expect(holds('city == `raw\\n`', { visitor: { city: 'raw\\n' } })).toBe(true);
  });
});

describe('evaluate', () => {
  const script = compiled(lines('if country == "US" {', '\treturn "us"', '}', 'return strings.ToLower(city)'));

  it('returns the key with fallback false and a reason', () => {
    expect(evaluate(script, { now: NOW, visitor: { country: 'US' } })).toEqual({
      routeKey: 'us',
      fallback: false,
      reasonCode: 'RETURNED',
      reason: 'the script returned "us"',
    });
  });

  it('accepts source text and compiles it', () => {
    expect(evaluate('return "abc"', { now: NOW })).toMatchObject({ routeKey: 'abc', fallback: false });
  });

  it('routes an invalid script to default with the first error', () => {
    expect(evaluate('return "A"', { now: NOW })).toEqual({
      routeKey: 'default',
      fallback: true,
      reasonCode: 'INVALID_SCRIPT',
      reason: expect.stringContaining('line 1, column 8: invalid route key "A"'),
    });
  });

  it('routes a computed key that is not a route key to default', () => {
    expect(evaluate(script, { now: NOW, visitor: { city: 'New York' } })).toMatchObject({
      routeKey: 'default',
      fallback: true,
      reasonCode: 'INVALID_ROUTE_KEY',
    });
    expect(evaluate(script, { now: NOW, visitor: { city: '' } })).toMatchObject({ routeKey: 'default', reasonCode: 'INVALID_ROUTE_KEY' });
    expect(evaluate(script, { now: NOW, visitor: { city: 'Paris' } })).toMatchObject({ routeKey: 'paris', fallback: false });
  });

  it('routes a key no connection accepts to default, and always accepts default', () => {
    expect(evaluate(script, { now: NOW, visitor: { country: 'US' }, routeKeys: ['ca', 'default'] })).toMatchObject({
      routeKey: 'default',
      fallback: true,
      reasonCode: 'UNKNOWN_ROUTE_KEY',
    });
    expect(evaluate(script, { now: NOW, visitor: { country: 'US' }, routeKeys: ['us'] })).toMatchObject({ routeKey: 'us', fallback: false });
    expect(evaluate('return "default"', { now: NOW, routeKeys: ['us'] })).toMatchObject({ routeKey: 'default', fallback: false, reasonCode: 'RETURNED' });
  });

  it('needs a valid time only when the script reads the clock', () => {
    const noClock = { visitor: { country: 'US' } } as unknown as EvaluationContext;
    expect(evaluate(script, noClock)).toMatchObject({ routeKey: 'us', fallback: false });
    const clock = compiled(lines('if hour < 12 {', '\treturn "am"', '}', 'return "pm"'));
    expect(evaluate(clock, noClock)).toMatchObject({
      routeKey: 'default',
      fallback: true,
      reasonCode: 'RUNTIME_ERROR',
      reason: expect.stringContaining('time'),
    });
    expect(evaluate(clock, { now: new Date(Number.NaN) })).toMatchObject({ routeKey: 'default', reasonCode: 'RUNTIME_ERROR' });
  });

  it('never throws on a malformed context or script', () => {
    expect(evaluate(script, null as unknown as EvaluationContext)).toMatchObject({ routeKey: 'default', reasonCode: 'INVALID_CONTEXT' });
    expect(evaluate(42 as unknown as string, { now: NOW })).toMatchObject({ routeKey: 'default', reasonCode: 'INVALID_SCRIPT' });
    expect(
      evaluate(script, { now: NOW, visitor: 'US' as unknown as Record<string, string>, trackingFields: 5 as unknown as Record<string, string> }),
    ).toMatchObject({ routeKey: 'default' });
    const routeKeysNotAnArray = { now: NOW, visitor: { country: 'US' }, routeKeys: 'us' as unknown as string[] };
    expect(evaluate(script, routeKeysNotAnArray)).toMatchObject({ routeKey: 'default', reasonCode: 'UNKNOWN_ROUTE_KEY' });
  });

  it('a compiled script is reusable and keeps its route keys and warnings', () => {
    expect(script.routeKeys).toEqual(['us']);
    expect(script.warnings.map((w) => w.code)).toEqual(['NON_LITERAL_ROUTE_KEY']);
    for (let i = 0; i < 3; i++) expect(evaluate(script, { now: NOW, visitor: { country: 'US' } }).routeKey).toBe('us');
    expect(evaluate(script, { now: NOW, visitor: { city: 'Rome' } }).routeKey).toBe('rome');
  });

  it('a re-entrant evaluation of the same script does not disturb the outer one', () => {
    const reentrant = compiled(lines('c := country', 'if hasVisitorTag("x") && c == "US" {', '\treturn "outer"', '}', 'return "other"'));
    let inner = '';
    const tags = {
      *[Symbol.iterator]() {
        inner = evaluate(reentrant, { now: NOW, visitor: { country: 'FR' } }).routeKey;
        yield 'x';
      },
    };
    expect(evaluate(reentrant, { now: NOW, visitor: { country: 'US' }, visitorTags: tags }).routeKey).toBe('outer');
    expect(inner).toBe('other');
  });

  it('compile reports the validation result of an invalid script', () => {
    const result = compile('for {}');
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.result.errors.map((e) => e.code)).toContain('FORBIDDEN_LOOP');
  });
});
