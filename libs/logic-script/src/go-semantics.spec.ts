import fc from 'fast-check';
import { evaluate, EvaluationContext } from './evaluator';
import { validate } from './validate';

// Issue 15: a snippet that Go compiles (with the spec's variables and helpers) is valid unless the
// spec's Forbidden list or its route-key and size rules exclude it, and it evaluates as Go runs it.
// Every expectation below was checked against Go 1.19 with the spec's prelude (tools/go-differential).

const lines = (...parts: string[]): string => parts.join('\n');

/** The fixed visitor every evaluation here uses: a Monday, 14:30 UTC, in 2024. */
const CONTEXT: EvaluationContext = {
  visitor: { country: 'US', city: 'İzmir', deviceType: 'Mobile', browser: 'Chrome', utcOffsetHours: 3 },
  trackingFields: { campaign: 'Spring' },
  now: new Date('2024-05-06T14:30:00Z'),
};

interface Valid {
  /** The key the script returns for CONTEXT. */
  key: string;
  routeKeys?: string[];
  warnings?: string[];
}

const at = (d: { code: string; line: number; column: number }): string => `${d.code}@${d.line}:${d.column}`;

/** Validates and evaluates a script that must be valid; returns what a test compares. */
function run(code: string): Valid & { routeKeys: string[]; warnings: string[]; errors: string[] } {
  const validation = validate(code);
  const result = evaluate(code, CONTEXT);
  return { key: result.routeKey, routeKeys: validation.routeKeys, warnings: validation.warnings.map(at), errors: validation.errors.map(at) };
}

function expectValid(code: string, expected: Valid): void {
  const outcome = run(code);
  expect(outcome.errors).toEqual([]);
  expect(outcome.key).toBe(expected.key);
  if (expected.routeKeys) expect(outcome.routeKeys).toEqual(expected.routeKeys);
  expect(outcome.warnings).toEqual(expected.warnings ?? []);
}

function errorsOf(code: string): string[] {
  return validate(code).errors.map(at);
}

/** `if <condition> { return "yes" }; return "no"` evaluated for CONTEXT. */
function holds(condition: string, ...before: string[]): boolean {
  const outcome = run(lines(...before, `if ${condition} {`, '\treturn "yes"', '}', 'return "no"'));
  expect(outcome.errors).toEqual([]);
  return outcome.key === 'yes';
}

describe('1. code after a return: a warning, and the first return wins', () => {
  it('accepts a return after a return, answering the first', () => {
    expectValid(lines('return "a"', 'return "b"'), { key: 'a', routeKeys: ['a'], warnings: ['UNREACHABLE_CODE@2:1'] });
  });

  it('accepts a return after an if/else that returns on both branches', () => {
    const code = lines('if hour < 12 {', '\treturn "am"', '} else {', '\treturn "pm"', '}', 'return "default"');
    expectValid(code, { key: 'pm', routeKeys: ['am', 'pm'], warnings: ['UNREACHABLE_CODE@6:1'] });
  });

  it('warns once per run of unreachable statements, and in closures too', () => {
    const code = lines('f := func() bool {', '\treturn true', '\treturn false', '}', 'if f() {', '\treturn "a"', '}', 'return "b"', 'return "c"', 'return "d"');
    expectValid(code, { key: 'a', routeKeys: ['a', 'b'], warnings: ['UNREACHABLE_CODE@3:2', 'UNREACHABLE_CODE@9:1'] });
  });

  it('warns about code after a break', () => {
    const code = lines('switch country {', 'case "US":', '\tbreak', '\treturn "never"', '}', 'return "after"');
    expectValid(code, { key: 'after', routeKeys: ['after'], warnings: ['UNREACHABLE_CODE@4:2'] });
  });

  it('still checks unreachable code as Go does', () => {
    expect(errorsOf(lines('return "a"', 'return 5'))).toEqual(['TYPE_MISMATCH@2:8']);
    expect(errorsOf(lines('return "a"', 'return "B"'))).toEqual(['INVALID_ROUTE_KEY@2:8']);
    expect(errorsOf(lines('return "a"', 'x := 1'))).toEqual(['UNUSED_VARIABLE@2:1', 'MISSING_RETURN@2:6']);
  });
});

describe('2. integer literals: hex, octal, binary and digit separators', () => {
  it.each([
    ['0x0E', 14],
    ['0X0e', 14],
    ['0o16', 14],
    ['0O16', 14],
    ['016', 14],
    ['0b1110', 14],
    ['0B1110', 14],
    ['0_16', 14],
    ['0x_0E', 14],
    ['1_4', 14],
    ['0', 0],
    ['00', 0],
  ])('%s is %d', (literal, value) => {
    expect(holds(`${literal} == ${value}`)).toBe(true);
    expect(run(lines(`if hour == ${literal} {`, '\treturn "yes"', '}', 'return "no"')).key).toBe(value === 14 ? 'yes' : 'no');
  });

  it.each(['0x', '0b', '0o', '0b12', '0o8', '08', '0_9', '1__0', '1_', '0x_', '0x1_', '0_x1', '1.5', '1e3', '0x1p3', '1i', '0x1i', '12ab'])(
    '%s is not an integer literal',
    (literal) => {
      expect(errorsOf(lines(`if hour == ${literal} {`, '\treturn "a"', '}', 'return "b"'))).toEqual(['UNSUPPORTED_NUMBER@1:12']);
    },
  );

  it('says why a literal is malformed', () => {
    const message = (literal: string): string => validate(`x := ${literal}\n_ = x\nreturn "a"`).errors[0].message;
    expect(message('08')).toContain("invalid digit '8' in octal literal");
    expect(message('0b12')).toContain("invalid digit '2' in binary literal");
    expect(message('0x')).toContain('hexadecimal literal has no digits');
    expect(message('1__0')).toContain("'_' must separate successive digits");
  });

  it('warns that an HHMM time with a leading 0 is octal', () => {
    const code = lines('if timeAtOrAfter(0700, 0) {', '\treturn "a"', '}', 'return "b"');
    expectValid(code, { key: 'a', warnings: ['OCTAL_CLOCK_TIME@1:18'] });
    expect(validate(code).warnings[0].message).toContain('448 (04:48)');
  });
});

describe('3. int is 64 bits, compared exactly', () => {
  it('accepts integers above 2^53 and compares them exactly', () => {
    expectValid(lines('if year < 9007199254740993 {', '\treturn "a"', '}', 'return "b"'), { key: 'a', routeKeys: ['a', 'b'] });
    expect(holds('x != y && x > y && y < x && x >= 9007199254740993 && !(x <= y)', 'x := 9007199254740993', 'y := 9007199254740992')).toBe(true);
    expect(holds('x == 9223372036854775807 && -x < x', 'x := 9223372036854775807')).toBe(true);
  });

  it('switches on large integers exactly', () => {
    const code = lines(
      'x := 9007199254740993',
      'switch x {',
      'case 9007199254740992:',
      '\treturn "below"',
      'case 9007199254740993:',
      '\treturn "exact"',
      '}',
      'return "none"',
    );
    expectValid(code, { key: 'exact' });
  });

  it('accepts the smallest int, -9223372036854775808, and wraps its negation at run time as Go does', () => {
    expect(holds('-x == x', 'x := -9223372036854775808')).toBe(true);
    expect(holds('-(-9223372036854775807) == 9223372036854775807')).toBe(true);
  });

  it('rejects a constant that overflows int where it is used as an int', () => {
    expect(errorsOf(lines('if year < 9223372036854775808 {', '\treturn "a"', '}', 'return "b"'))).toEqual(['INTEGER_OUT_OF_RANGE@1:11']);
    expect(errorsOf(lines('x := -9223372036854775809', '_ = x', 'return "a"'))).toEqual(['INTEGER_OUT_OF_RANGE@1:6']);
    expect(errorsOf(lines('if timeAtOrAfter(99999999999999999999, 0) {', '\treturn "a"', '}', 'return "b"'))).toEqual(['INTEGER_OUT_OF_RANGE@1:18']);
  });

  it('keeps untyped constants exact until they are used as an int, as Go does', () => {
    expectValid(lines('const big = 9223372036854775808', 'if big > 1 {', '\treturn "constant"', '}', 'return "b"'), { key: 'constant' });
  });

  it('checks helper rules on large values without failing', () => {
    expect(errorsOf(lines('if timeAtOrAfter(9007199254740993, 0) {', '\treturn "a"', '}', 'return "b"'))).toEqual(['INVALID_CLOCK_TIME@1:18']);
    const code = lines('t := 9007199254740993', 'if timeAtOrAfter(t, 0) {', '\treturn "a"', '}', 'return "b"');
    const result = evaluate(code, CONTEXT);
    expect(result).toMatchObject({ routeKey: 'default', reasonCode: 'RUNTIME_ERROR' });
    expect(result.reason).toContain('9007199254740993 is not an HHMM clock time');
  });
});

describe("4. strings: Go's rune-by-rune case mapping, len in UTF-8 bytes", () => {
  it('maps case as Go does where JavaScript differs', () => {
    expect(holds('strings.ToUpper("ß") == "ß"')).toBe(true);
    expect(holds('strings.ToLower("İzmir") == "izmir"')).toBe(true);
    expect(holds('strings.ToLower(city) == "izmir"')).toBe(true); // city is "İzmir"
    expect(holds('strings.ToLower("ΑΣ") == "ασ"')).toBe(true);
    expect(holds('strings.ToUpper("ﬁx") == "ﬁX"')).toBe(true);
  });

  it('counts len in UTF-8 bytes', () => {
    expect(holds('len("é") == 2 && len(city) == 6 && len("😀") == 4 && len("") == 0')).toBe(true);
  });
});

describe('5. string literals must be valid UTF-8 (a documented difference from Go)', () => {
  it.each([
    [String.raw`"\xff"`, 'INVALID_UTF8_LITERAL@1:12'],
    [String.raw`"\377"`, 'INVALID_UTF8_LITERAL@1:12'],
    [String.raw`"a\xc3"`, 'INVALID_UTF8_LITERAL@1:13'],
    [String.raw`"\xc3\x28"`, 'INVALID_UTF8_LITERAL@1:12'],
    [String.raw`"é\xa9"`, 'INVALID_UTF8_LITERAL@1:13'],
    [String.raw`"\xed\xa0\x80"`, 'INVALID_UTF8_LITERAL@1:12'], // an encoded surrogate
    [String.raw`"\xc0\xaf"`, 'INVALID_UTF8_LITERAL@1:12'], // an overlong encoding
  ])('rejects %s with its position', (literal, error) => {
    expect(errorsOf(lines(`if city < ${literal} {`, '\treturn "a"', '}', 'return "b"'))).toEqual([error]);
  });

  it('explains the rule in the message', () => {
    expect(validate(lines(String.raw`x := "\xff"`, '_ = x', 'return "a"')).errors[0].message).toContain('not valid UTF-8');
  });

  it('accepts byte escapes that spell whole UTF-8 characters', () => {
    expect(holds(String.raw`"\xc3\xa9" == "é" && "\303\251" == "\u00e9" && len("\xe2\x82\xac") == 3`)).toBe(true);
  });

  it('rejects a lone surrogate in a literal', () => {
    expect(errorsOf(lines('if city == "a\uD800" {', '\treturn "a"', '}', 'return "b"'))).toEqual(['INVALID_UTF8_LITERAL@1:14']);
    expect(errorsOf(lines('if city == `\uDC00` {', '\treturn "a"', '}', 'return "b"'))).toEqual(['INVALID_UTF8_LITERAL@1:12']);
  });
});

describe('const declarations', () => {
  it('accepts untyped and typed constants', () => {
    expect(holds('country == us && n == 14 && on', 'const us = "US"', 'const n int = 14', 'const on bool = true')).toBe(true);
    expect(holds('hour == n', 'const n = 0x0E')).toBe(true);
  });

  it('numbers a group with iota and repeats omitted values', () => {
    const code = lines('const (', '\tsunday = iota', '\tmonday', '\ttuesday', ')', 'if weekday == monday {', '\treturn "monday"', '}', 'return "other"');
    expectValid(code, { key: 'monday', routeKeys: ['monday', 'other'] });
    expect(holds('a == "x" && b == "x" && c == 2', 'const (', '\ta = "x"', '\tb', '\tc = iota', ')')).toBe(true);
  });

  it('folds constant expressions: comparisons, !, len of a constant string, conversions', () => {
    expect(holds('small && !big && n == 3 && s == "A"', 'const small = 1 < 2', 'const big = !small', 'const n = len("abc")', 'const s = string(65)')).toBe(
      true,
    );
  });

  it('does not ask for constants to be used, and lets them be shadowed', () => {
    expectValid(lines('const unused = 1', 'const c = "a"', 'if hour > 1 {', '\tc := "b"', '\treturn c', '}', 'return c'), {
      key: 'b',
      routeKeys: ['a'], // a constant is a key known in advance
      warnings: ['NON_LITERAL_ROUTE_KEY@5:9'],
    });
  });

  it('uses constants as switch cases, and finds duplicates among them', () => {
    expect(holds('hit', 'const us = "US"', 'hit := false', 'switch country {', 'case us:', '\thit = true', '}')).toBe(true);
    expect(errorsOf(lines('const us = "US"', 'switch country {', 'case us, "US":', '\treturn "a"', '}', 'return "b"'))).toEqual(['DUPLICATE_CASE@3:10']);
  });

  it('rejects what Go rejects', () => {
    expect(errorsOf(lines('const c = trackingField("a")', 'return "a"'))).toEqual(['NOT_CONSTANT@1:11']);
    expect(errorsOf(lines('const l = []string{"a"}', 'return "a"'))).toEqual(['NOT_CONSTANT@1:11']);
    expect(errorsOf(lines('const c int = "a"', 'return "a"'))).toEqual(['TYPE_MISMATCH@1:15']);
    expect(errorsOf(lines('const a, b = 1, 2, 3', 'return "a"'))).toEqual(['MISSING_CONSTANT_VALUE@1:20']);
    expect(errorsOf(lines('const c = 1', 'const c = 2', 'return "a"'))).toEqual(['REDECLARED@2:7']);
  });
});

describe('shadowing a predeclared name with a local', () => {
  it('lets a local shadow a predeclared variable', () => {
    const code = lines('country := strings.ToLower(country)', 'if country == "us" {', '\treturn "us"', '}', 'return "other"');
    expectValid(code, { key: 'us', routeKeys: ['us', 'other'] });
  });

  it('shadows only in the local scope', () => {
    expect(holds('country == "US"', 'if true {', '\tcountry := "x"', '\t_ = country', '}')).toBe(true);
  });

  it('lets parameters and locals take the names of variables and helpers', () => {
    expect(holds('f(city)', 'f := func(country string) bool {', '\treturn country == "İzmir"', '}')).toBe(true);
    expect(holds('len == 3', 'len := 3')).toBe(true);
    expect(holds('make(1)', 'make := func(n int) bool {', '\treturn n == 1', '}')).toBe(true);
    expect(holds('oneOf("x")', 'oneOf := func(s string) bool {', '\treturn s == "x"', '}')).toBe(true);
  });

  it('lets a predeclared variable be assigned, as a Go package variable', () => {
    const code = lines(
      'read := func() string {',
      '\treturn country',
      '}',
      'country = "DE"',
      'if read() == "DE" && country == "DE" {',
      '\treturn "assigned"',
      '}',
      'return "b"',
    );
    expectValid(code, { key: 'assigned' });
    expect(holds('country == "US"', 'if hour > 20 {', '\tcountry = "DE"', '}')).toBe(true);
  });
});

describe('variables of func type', () => {
  it('accepts var f func(...) followed by the assignment of a closure', () => {
    const code = lines(
      'var f func(string) bool',
      'f = func(s string) bool {',
      '\treturn s == "US"',
      '}',
      'if f(country) {',
      '\treturn "us"',
      '}',
      'return "other"',
    );
    expectValid(code, { key: 'us', routeKeys: ['us', 'other'] });
  });

  it('calling a nil func fails at run time, as it panics in Go', () => {
    const code = lines('var f func() bool', 'if f() {', '\treturn "a"', '}', 'return "b"');
    expect(validate(code).valid).toBe(true);
    expect(evaluate(code, CONTEXT)).toMatchObject({ routeKey: 'default', fallback: true, reasonCode: 'RUNTIME_ERROR' });
  });

  it('compares func values with nil, and copies and reassigns them', () => {
    expect(holds('f == nil && !(nil != f)', 'var f func() bool')).toBe(true);
    const swap = lines('yes := func() bool {', '\treturn true', '}', 'no := func() bool {', '\treturn false', '}', 'f := yes', 'f = no', 'g := f', 'f = yes');
    expect(holds('f() && !g() && yes() && !no()', swap)).toBe(true);
    expect(holds('f != nil', 'f := func() bool {', '\treturn true', '}', 'f = nil', 'f = func() bool {', '\treturn false', '}')).toBe(true);
  });

  it('accepts closures with unnamed parameters', () => {
    expect(holds('f("a", 1)', 'f := func(string, int) bool {', '\treturn true', '}')).toBe(true);
  });

  it('gives each call its own variables, also for a closure that outlives the call', () => {
    const code = lines(
      'var first func() int',
      'var second func() int',
      'remember := func(v int) bool {',
      '\tx := v',
      '\tif first == nil {',
      '\t\tfirst = func() int {',
      '\t\t\treturn x',
      '\t\t}',
      '\t} else {',
      '\t\tsecond = func() int {',
      '\t\t\treturn x',
      '\t\t}',
      '\t}',
      '\treturn true',
      '}',
      'remember(1)',
      'remember(2)',
      'if first() == 1 && second() == 2 {',
      '\treturn "own"',
      '}',
      'return "shared"',
    );
    expectValid(code, { key: 'own' });
  });

  it('rejects recursion through func values', () => {
    expect(errorsOf(lines('var f func() bool', 'f = func() bool {', '\treturn f()', '}', 'if f() {', '\treturn "a"', '}', 'return "b"'))).toEqual([
      'RECURSION_NOT_ALLOWED@3:9',
    ]);
  });
});

describe('calling a closure literal where it is written', () => {
  it('accepts func() T { ... }() with and without arguments', () => {
    expectValid(lines('if func() bool { return country == "US" }() {', '\treturn "us"', '}', 'return "other"'), { key: 'us', routeKeys: ['us', 'other'] });
    expect(holds('func(s string) bool { return s == "Chrome" }(browser)')).toBe(true);
    expect(holds('ok', 'ok := func(h int) bool {', '\treturn h > 12', '}(hour)')).toBe(true);
  });

  it('rejects a literal called with the wrong arguments', () => {
    expect(errorsOf(lines('if func(s string) bool { return true }(1) {', '\treturn "a"', '}', 'return "b"'))).toEqual(['TYPE_MISMATCH@1:40']);
  });
});

describe('break inside a switch case', () => {
  it('leaves the switch, and the statements after it run', () => {
    const code = lines(
      'switch country {',
      'case "US":',
      '\tif hour > 12 {',
      '\t\tbreak',
      '\t}',
      '\treturn "morning"',
      'case "CA":',
      '\treturn "ca"',
      '}',
      'return "after"',
    );
    expectValid(code, { key: 'after', routeKeys: ['morning', 'ca', 'after'] });
  });

  it('leaves only the innermost switch', () => {
    const code = lines('switch {', 'case hour > 1:', '\tswitch country {', '\tcase "US":', '\t\tbreak', '\t}', '\treturn "outer"', '}', 'return "after"');
    expectValid(code, { key: 'outer' });
  });

  it('in a closure, leaves the closure switch', () => {
    const code = lines(
      'f := func() int {',
      '\tswitch {',
      '\tcase true:',
      '\t\tbreak',
      '\t}',
      '\treturn 1',
      '}',
      'if f() == 1 {',
      '\treturn "a"',
      '}',
      'return "b"',
    );
    expectValid(code, { key: 'a' });
  });
});

describe('fallthrough', () => {
  it('runs the next case', () => {
    const code = lines('switch country {', 'case "US":', '\tfallthrough', 'case "CA":', '\treturn "na"', '}', 'return "row"');
    expectValid(code, { key: 'na', routeKeys: ['na', 'row'] });
    expect(
      holds('n == 3', 'n := 0', 'switch {', 'case true:', '\tn = 1', '\tfallthrough', 'case false:', '\tn = 2', '\tfallthrough', 'default:', '\tn = 3', '}'),
    ).toBe(true);
    expect(holds('n == 2', 'n := 0', 'switch country {', 'case "US":', '\tfallthrough', 'case "CA":', '\tn = 2', '\tbreak', 'default:', '\tn = 3', '}')).toBe(
      true,
    );
  });
});

describe('conversions between the language types', () => {
  it('converts an int to the string of one rune, with a warning as go vet gives', () => {
    const code = lines('r := 65', 'if string(r) == "A" {', '\treturn "a"', '}', 'return "b"');
    expectValid(code, { key: 'a', warnings: ['STRING_FROM_INT@2:4'] });
    expect(holds('string(-1) == "\\uFFFD" && string(0xD800) == "\\uFFFD" && string(9223372036854775808) == "\\uFFFD"')).toBe(true);
    expect(holds('string(128512) == "😀"')).toBe(true);
  });

  it('accepts identity conversions', () => {
    expectValid(lines('if string(country) == "US" && int(hour) == 14 && bool(true) {', '\treturn "a"', '}', 'return "b"'), { key: 'a' });
  });

  it('rejects conversions Go rejects', () => {
    expect(errorsOf(lines('if int("5") == 5 {', '\treturn "a"', '}', 'return "b"'))).toEqual(['INVALID_CONVERSION@1:8']);
    expect(errorsOf(lines('if string(true) == "" {', '\treturn "a"', '}', 'return "b"'))).toEqual(['INVALID_CONVERSION@1:11']);
    expect(errorsOf(lines('if bool(1) {', '\treturn "a"', '}', 'return "b"'))).toEqual(['INVALID_CONVERSION@1:9']);
    expect(errorsOf(lines('if int(9223372036854775808) == 1 {', '\treturn "a"', '}', 'return "b"'))).toEqual(['INTEGER_OUT_OF_RANGE@1:8']);
    expect(errorsOf(lines('string(hour)', 'return "a"'))).toEqual(['UNUSED_EXPRESSION@1:1']);
  });
});

describe('len of a []string and nil lists', () => {
  it('counts elements, and a list declared without a value is nil', () => {
    expect(holds('len(l) == 2 && len(empty) == 0 && empty == nil && l != nil', 'l := []string{"a", "b"}', 'var empty []string')).toBe(true);
    expect(holds('l != nil', 'l := []string{}')).toBe(true);
  });
});

describe('integers: properties', () => {
  const INT64 = fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n });
  const interesting = fc.oneof(
    INT64,
    fc.bigInt({ min: -(2n ** 54n), max: 2n ** 54n }),
    fc.constantFrom(0n, 2n ** 53n - 1n, 2n ** 53n, 2n ** 53n + 1n, -(2n ** 63n), 2n ** 63n - 1n),
  );

  /** Go source for n in a random base, with _ between some digits. */
  const literal = (n: bigint, base: number, separate: boolean): string => {
    const magnitude = n < 0n ? -n : n;
    const prefix = { 2: '0b', 8: '0o', 10: '', 16: '0x' }[base] as string;
    let digits = magnitude.toString(base);
    if (separate && digits.length > 1) digits = `${digits[0]}_${digits.slice(1)}`;
    return `${n < 0n ? '-' : ''}${prefix}${digits}`;
  };

  it('reads every int64 in every base as its value, and compares any two exactly', () => {
    fc.assert(
      fc.property(interesting, interesting, fc.constantFrom(2, 8, 10, 16), fc.boolean(), (a, b, base, separate) => {
        const code = lines(
          `x := ${literal(a, base, separate)}`,
          `y := ${literal(b, 10, false)}`,
          `if x == ${a} && (x < y) == ${a < b} && (x > y) == ${a > b} && (x == y) == ${a === b} && (x <= y) == ${a <= b} {`,
          '\treturn "exact"',
          '}',
          'return "inexact"',
        );
        expect(evaluate(code, CONTEXT).routeKey).toBe('exact');
      }),
      { numRuns: 300 },
    );
  });

  it('rejects exactly the constants outside int64', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }), (n) => {
        const fits = n >= -(2n ** 63n) && n < 2n ** 63n;
        expect(errorsOf(lines(`x := ${n}`, '_ = x', 'return "a"'))).toEqual(fits ? [] : ['INTEGER_OUT_OF_RANGE@1:6']);
      }),
      { numRuns: 300 },
    );
  });
});
