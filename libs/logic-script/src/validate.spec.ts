import { DIAGNOSTIC_CODES } from './diagnostics';
import { MAX_CODE_BYTES } from './rules';
import { validate } from './validate';

/** `CODE@line:column` for every error, in report order. */
function errorsOf(code: string): string[] {
  return validate(code).errors.map((e) => `${e.code}@${e.line}:${e.column}`);
}

function warningsOf(code: string): string[] {
  return validate(code).warnings.map((e) => `${e.code}@${e.line}:${e.column}`);
}

const lines = (...parts: string[]): string => parts.join('\n');

// ---- scripts the language accepts --------------------------------------------------------------

const ACCEPTED: [title: string, code: string][] = [
  ['a single return', 'return "default"'],
  ['a parenthesized return', 'return ("us")'],
  ['a raw-string route key', 'return `us`'],
  ['if / else', lines('if country == "US" {', '\treturn "us"', '} else {', '\treturn "other"', '}')],
  [
    'else if chains',
    lines(
      'if country == "US" {',
      '\treturn "us"',
      '} else if country == "CA" {',
      '\treturn "ca"',
      '} else if city == "" {',
      '\treturn "unknown"',
      '}',
      'return "row"',
    ),
  ],
  ['if with an init statement', lines('if d := strings.ToLower(deviceType); d == "mobile" {', '\treturn "mobile"', '}', 'return "desktop"')],
  [
    'init variables are visible in else branches',
    lines('if c := country; c == "US" {', '\treturn "us"', '} else if c == "CA" {', '\treturn "ca"', '}', 'return "x"'),
  ],
  ['switch with case lists', lines('switch country {', 'case "US", "CA":', '\treturn "na"', 'case "DE":', '\treturn "de"', 'default:', '\treturn "row"', '}')],
  ['tagless switch', lines('switch {', 'case hour < 12:', '\treturn "morning"', 'case hour < 18:', '\treturn "afternoon"', '}', 'return "evening"')],
  ['switch with init and tag', lines('switch c := strings.ToUpper(country); c {', 'case "US":', '\treturn "us"', '}', 'return "x"')],
  ['switch on an int', lines('switch weekday {', 'case 0, 6:', '\treturn "weekend"', '}', 'return "weekday"')],
  ['switch on a bool', lines('switch hasVisitorTag("vip") {', 'case true:', '\treturn "vip"', '}', 'return "regular"')],
  [
    'default in the middle of a switch',
    lines('switch country {', 'case "US":', '\treturn "us"', 'default:', '\treturn "row"', 'case "CA":', '\treturn "ca"', '}'),
  ],
  [
    'switch with default returning everywhere needs no final return',
    lines('switch country {', 'case "US":', '\treturn "us"', 'default:', '\treturn "row"', '}'),
  ],
  ['if/else returning on both sides needs no final return', lines('if hour < 12 {', '\treturn "am"', '} else {', '\treturn "pm"', '}')],
  ['empty case clause', lines('switch country {', 'case "XX":', 'case "US":', '\treturn "us"', '}', 'return "x"')],
  ['empty tagless switch', lines('switch {', '}', 'return "x"')],
  ['var with type and value', lines('var c string = country', 'if c == "US" {', '\treturn "us"', '}', 'return "x"')],
  ['var with zero value', lines('var n int', 'if n == 0 {', '\treturn "zero"', '}', 'return "x"')],
  ['var with inferred type', lines('var d = deviceType', 'if d == "mobile" {', '\treturn "m"', '}', 'return "x"')],
  ['grouped var declaration', lines('var (', '\ta = country', '\tb string = city', ')', 'if a == b {', '\treturn "same"', '}', 'return "x"')],
  ['multiple := names', lines('a, b := country, city', 'if a == b {', '\treturn "same"', '}', 'return "x"')],
  [':= redeclaring one name with a new one', lines('a := country', 'a, b := city, region', 'if a == b {', '\treturn "same"', '}', 'return "x"')],
  ['assignment to a local', lines('key := "a"', 'if country == "US" {', '\tkey = "b"', '}', 'if key == "b" {', '\treturn "b"', '}', 'return "a"')],
  ['parallel assignment', lines('a, b := "x", "y"', 'a, b = b, a', 'if a == "y" && b == "x" {', '\treturn "swapped"', '}', 'return "x"')],
  [
    'closure returning bool',
    lines('isMobile := func(d string) bool {', '\treturn oneOf(d, "mobile", "tablet")', '}', 'if isMobile(deviceType) {', '\treturn "m"', '}', 'return "d"'),
  ],
  ['closure with an int parameter', lines('isLate := func(h int) bool {', '\treturn h >= 22', '}', 'if isLate(hour) {', '\treturn "late"', '}', 'return "x"')],
  [
    'closure returning int',
    lines(
      'bucket := func(h int) int {',
      '\tif h < 12 {',
      '\t\treturn 0',
      '\t}',
      '\treturn 1',
      '}',
      'if bucket(hour) == 0 {',
      '\treturn "am"',
      '}',
      'return "pm"',
    ),
  ],
  [
    'grouped closure parameters',
    lines('same := func(a, b string) bool {', '\treturn a == b', '}', 'if same(country, region) {', '\treturn "s"', '}', 'return "x"'),
  ],
  [
    'closure assigning a captured local',
    lines(
      'seen := false',
      'mark := func(v string) bool {',
      '\tseen = true',
      '\treturn v != ""',
      '}',
      'if mark(city) && seen {',
      '\treturn "city"',
      '}',
      'return "x"',
    ),
  ],
  [
    'closure calling an earlier closure',
    lines(
      'isUS := func(c string) bool {',
      '\treturn c == "US"',
      '}',
      'isNA := func(c string) bool {',
      '\treturn isUS(c) || c == "CA"',
      '}',
      'if isNA(country) {',
      '\treturn "na"',
      '}',
      'return "x"',
    ),
  ],
  [
    'closure declared inside a closure',
    lines(
      'outer := func(c string) bool {',
      '\tinner := func(x string) bool {',
      '\t\treturn x == "US"',
      '\t}',
      '\treturn inner(c)',
      '}',
      'if outer(country) {',
      '\treturn "us"',
      '}',
      'return "x"',
    ),
  ],
  [
    'closure whose switch returns everywhere',
    lines(
      'kind := func(d string) string {',
      '\tswitch d {',
      '\tcase "mobile":',
      '\t\treturn "m"',
      '\tdefault:',
      '\t\treturn "o"',
      '\t}',
      '}',
      'if kind(deviceType) == "m" {',
      '\treturn "m"',
      '}',
      'return "o"',
    ),
  ],
  [
    'closure with an unused parameter',
    lines('always := func(_ string, x int) bool {', '\treturn true', '}', 'if always("a", 1) {', '\treturn "a"', '}', 'return "b"'),
  ],
  [
    'closure called as a statement',
    lines('hits := 0', 'count := func() bool {', '\thits = 1', '\treturn true', '}', 'count()', 'if hits == 1 {', '\treturn "counted"', '}', 'return "x"'),
  ],
  ['string list spread into oneOf', lines('markets := []string{"US", "CA"}', 'if oneOf(country, markets...) {', '\treturn "na"', '}', 'return "x"')],
  [
    'string list spread into containsAny',
    lines('bots := []string{"bot", "crawler"}', 'if containsAny(strings.ToLower(userAgent), bots...) {', '\treturn "bot"', '}', 'return "human"'),
  ],
  ['inline list spread', lines('if oneOf(country, []string{"US", "CA"}...) {', '\treturn "na"', '}', 'return "x"')],
  [
    'multi-line list with trailing comma',
    lines('markets := []string{', '\t"US",', '\t"CA",', '}', 'if oneOf(country, markets...) {', '\treturn "na"', '}', 'return "x"'),
  ],
  ['multi-line call with trailing comma', lines('if oneOf(country,', '\t"US",', '\t"CA",', ') {', '\treturn "na"', '}', 'return "x"')],
  ['oneOf with no candidates', lines('if oneOf(country) {', '\treturn "never"', '}', 'return "x"')],
  ['typed list variable', lines('var markets []string = []string{"US"}', 'if oneOf(country, markets...) {', '\treturn "us"', '}', 'return "x"')],
  ['list of computed strings', lines('if oneOf(country, strings.ToUpper(region), city) {', '\treturn "odd"', '}', 'return "x"')],
  ['Go string escapes', lines(String.raw`if userAgent == "a\tb\"c\\d\x41\u00e9\U0001F600\101\a\b\f\n\r\v" {`, '\treturn "odd"', '}', 'return "x"')],
  [
    'line and block comments',
    lines(
      '// leading comment',
      '/* block',
      '   comment */',
      'if country == /* inline */ "US" { // trailing',
      '\treturn "us" /* after */',
      '}',
      'return "x" // end',
    ),
  ],
  ['negative offset', lines('if timeInRange(900, 1700, -5) {', '\treturn "open"', '}', 'return "closed"')],
  ['offset boundaries -12 and 14', lines('if timeAtOrAfter(0, -12) && timeAtOrBefore(2359, 14) {', '\treturn "always"', '}', 'return "x"')],
  ['offset from the visitor', lines('if timeInRange(2200, 600, utcOffsetHours) {', '\treturn "night"', '}', 'return "day"')],
  ['negation and precedence', lines('if !hasVisitorTag("a") || country == "US" && city != "" {', '\treturn "a"', '}', 'return "b"')],
  ['parenthesized condition', lines('if (country == "US") && (hour >= 9) {', '\treturn "a"', '}', 'return "b"')],
  ['string ordering', lines('if browserVersion >= "120" && osVersion < "17" {', '\treturn "a"', '}', 'return "b"')],
  ['all int comparisons', lines('if hour < 1 || hour <= 2 || hour > 3 || hour >= 4 || hour == 5 || hour != 6 {', '\treturn "a"', '}', 'return "b"')],
  ['bool equality', lines('if hasVisitorTag("a") == hasVisitorTag("b") {', '\treturn "a"', '}', 'return "b"')],
  ['len of a string', lines('if len(trackingField("sub1")) == 0 {', '\treturn "empty"', '}', 'return "x"')],
  [
    'every strings helper',
    lines(
      'if strings.Contains(userAgent, "Mobi") && strings.HasPrefix(currentURL, "https") && strings.HasSuffix(trackingDomain, ".com") && strings.ToLower(os) == strings.ToUpper(os) {',
      '\treturn "a"',
      '}',
      'return "b"',
    ),
  ],
  ['localDay', lines('if localDay(utcOffsetHours) == "sunday" {', '\treturn "sunday"', '}', 'return "x"')],
  ['field names with spaces and hyphens', lines('if dataBuffer("my field-1") == "x" && trackingField("sub_2") == "y" {', '\treturn "a"', '}', 'return "b"')],
  [
    'every int variable',
    lines(
      'if hour == 1 || minute == 2 || weekday == 3 || dayOfMonth == 4 || month == 5 || year == 2025 || utcOffsetHours == -5 {',
      '\treturn "a"',
      '}',
      'return "b"',
    ),
  ],
  ['explicit semicolons', 'if country == "US" { return "us" }; return "x"'],
  ['a nested block statement', lines('{', '\tx := country', '\tif x == "US" {', '\t\treturn "us"', '\t}', '}', 'return "x"')],
  ['unicode identifiers', lines('straße := city', 'if straße == "Berlin" {', '\treturn "berlin"', '}', 'return "x"')],
  ['empty statements', ';;\nreturn "x";;'],
  ['CRLF line endings', 'if country == "US" {\r\n\treturn "us"\r\n}\r\nreturn "x"\r\n'],
  ['a byte-order mark', '\ufeffreturn "x"'],
  ['blank identifier assignment', lines('x := country', '_ = x', 'var _ = city', 'return "x"')],
  ['integer with separators', lines('if year < 10_000 {', '\treturn "a"', '}', 'return "b"')],
  ['negated int variable', lines('if -utcOffsetHours > 3 {', '\treturn "west"', '}', 'return "x"')],
  [
    'every string variable',
    lines(
      'if oneOf("x", country, city, region, continent, timezone, deviceType, brand, model, os, osVersion, browser, browserVersion, mainLanguage, browserLanguage) {',
      '\treturn "a"',
      '}',
      'if oneOf("x", ip, isp, connectionType, mobileCarrier, userAgent, referrer, initialReferrer, currentURL, trackingDomain, trafficSourceID) {',
      '\treturn "b"',
      '}',
      'return "c"',
    ),
  ],
];

describe('validate: accepted scripts', () => {
  it.each(ACCEPTED)('%s', (_title, code) => {
    const result = validate(code);
    expect(result.errors).toEqual([]);
    expect(result.valid).toBe(true);
  });
});

// ---- scripts the language rejects, with every error's code and position ------------------------

const REJECTED: [title: string, code: string, errors: string[]][] = [
  // lexical
  ['invalid character', 'return "a" #', ['INVALID_CHARACTER@1:12']],
  ['non-breaking space', 'return\u00a0"a"', ['INVALID_CHARACTER@1:7']],
  ['curly quotes', 'return \u201ca\u201d', ['INVALID_CHARACTER@1:8', 'UNDEFINED@1:9', 'INVALID_CHARACTER@1:10']],
  ['unterminated string', 'return "abc', ['UNTERMINATED_STRING@1:8']],
  ['string broken by a newline', lines('x := "abc', '"', 'return "a"'), ['UNTERMINATED_STRING@1:6', 'UNTERMINATED_STRING@2:1']],
  ['unterminated raw string', 'return `abc', ['UNTERMINATED_STRING@1:8']],
  ['unknown escape', String.raw`return "a\qb"`, ['INVALID_ESCAPE@1:10']],
  ['bad hex escape', String.raw`return "\xZ1"`, ['INVALID_ESCAPE@1:9']],
  ['surrogate \\u escape', String.raw`if city == "\uD800" { return "a" }` + '\nreturn "b"', ['INVALID_ESCAPE@1:13']],
  ['octal escape above 255', String.raw`if city == "\400" { return "a" }` + '\nreturn "b"', ['INVALID_ESCAPE@1:13']],
  ['unterminated block comment', 'return "a" /* x', ['UNTERMINATED_COMMENT@1:12']],
  ['float literal', lines('if hour > 1.5 {', '\treturn "a"', '}', 'return "b"'), ['UNSUPPORTED_NUMBER@1:11']],
  ['hex literal without digits', lines('if hour == 0x {', '\treturn "a"', '}', 'return "b"'), ['UNSUPPORTED_NUMBER@1:12']],
  ['invalid digit in a binary literal', lines('if hour == 0b102 {', '\treturn "a"', '}', 'return "b"'), ['UNSUPPORTED_NUMBER@1:12']],
  ['hex float literal', lines('if hour == 0x1p4 {', '\treturn "a"', '}', 'return "b"'), ['UNSUPPORTED_NUMBER@1:12']],
  ['leading zero (octal in Go)', lines('if timeAtOrAfter(0900, 0) {', '\treturn "a"', '}', 'return "b"'), ['UNSUPPORTED_NUMBER@1:18']],
  ['imaginary literal', lines('if hour == 1i {', '\treturn "a"', '}', 'return "b"'), ['UNSUPPORTED_NUMBER@1:12']],
  ['exponent literal', lines('if year < 1e4 {', '\treturn "a"', '}', 'return "b"'), ['UNSUPPORTED_NUMBER@1:11']],
  ['misplaced underscore', lines('if year < 1__0 {', '\treturn "a"', '}', 'return "b"'), ['UNSUPPORTED_NUMBER@1:11']],
  ['rune literal', lines("if country == 'U' {", '\treturn "a"', '}', 'return "b"'), ['UNSUPPORTED_RUNE_LITERAL@1:15']],
  ['integer too large', lines('if year == 99999999999999999999 {', '\treturn "a"', '}', 'return "b"'), ['INTEGER_OUT_OF_RANGE@1:12']],
  ['byte escape that is not UTF-8', lines('if city == "\\xff" {', '\treturn "a"', '}', 'return "b"'), ['INVALID_UTF8_LITERAL@1:13']],

  // syntax
  ['if without braces', 'if country == "US" return "a"', ['SYNTAX_ERROR@1:20']],
  ['opening brace on the next line', lines('if country == "US"', '{', '\treturn "a"', '}', 'return "b"'), ['SYNTAX_ERROR@1:19']],
  ['else on a new line', lines('if country == "US" {', '\treturn "a"', '}', 'else {', '\treturn "b"', '}'), ['ELSE_ON_NEW_LINE@4:1']],
  ['missing comma before a newline in a call', lines('if oneOf(country,', '\t"US"', ') {', '\treturn "a"', '}', 'return "b"'), ['SYNTAX_ERROR@2:6']],
  ['missing comma before a newline in a list', lines('l := []string{', '\t"US"', '}', 'return "b"'), ['SYNTAX_ERROR@2:6']],
  ['stray closing brace', lines('return "a"', '}'), ['SYNTAX_ERROR@2:1']],
  ['missing closing brace', lines('if country == "US" {', '\treturn "a"'), ['SYNTAX_ERROR@2:12']],
  ['else without if', lines('else {', '}', 'return "a"'), ['SYNTAX_ERROR@1:1']],
  ['case outside switch', lines('case "US":', 'return "a"'), ['SYNTAX_ERROR@1:1']],
  ['unclosed parenthesis', lines('if (country == "US" {', '\treturn "a"', '}', 'return "b"'), ['SYNTAX_ERROR@1:21']],
  ['missing expression', lines('x :=', 'return "a"'), ['SYNTAX_ERROR@2:1']],
  ['two values after return', 'return "a" "b"', ['SYNTAX_ERROR@1:12']],
  ['two statements on one line', lines('x := country y := city', 'return "a"'), ['SYNTAX_ERROR@1:14']],
  ['non-name left of :=', lines('a.b := 1', 'return "a"'), ['SYNTAX_ERROR@1:1']],
  ['missing if condition', lines('if {', '}', 'return "a"'), ['SYNTAX_ERROR@1:4']],
  ['statement before the first case', lines('switch country {', 'x := 1', 'case "US":', '\treturn "us"', '}', 'return "a"'), ['SYNTAX_ERROR@2:1']],
  ['keyed list element', lines('l := []string{"a": "b"}', 'return "a"'), ['SYNTAX_ERROR@1:18']],
  ['label', lines('top:', 'return "a"'), ['UNSUPPORTED_BRANCH@1:1']],
  ['nesting too deep', `if ${'('.repeat(150)}true${')'.repeat(150)} {\n\treturn "a"\n}\nreturn "b"`, ['NESTING_TOO_DEEP@1:104']],
  ['... before the final argument', lines('l := []string{"a"}', 'if oneOf(country, l..., "b") {', '\treturn "a"', '}', 'return "b"'), ['INVALID_SPREAD@2:19']],

  // forbidden constructs of the spec, one code each
  ['import', lines('import "fmt"', 'return "a"'), ['FORBIDDEN_IMPORT@1:1']],
  ['import group', lines('import (', '\t"fmt"', '\t"os"', ')', 'return "a"'), ['FORBIDDEN_IMPORT@1:1']],
  ['package clause', lines('package main', 'return "a"'), ['FORBIDDEN_PACKAGE_CLAUSE@1:1']],
  ['for loop with a three-part header', lines('for i := 0; i < 3; i++ {', '\treturn "x"', '}', 'return "a"'), ['FORBIDDEN_LOOP@1:1']],
  ['range loop', lines('for _, c := range []string{"US"} {', '\tif c == country {', '\t\treturn "x"', '\t}', '}', 'return "a"'), ['FORBIDDEN_LOOP@1:1']],
  ['endless loop', lines('for {', '}', 'return "a"'), ['FORBIDDEN_LOOP@1:1']],
  ['goroutine', lines('go func() {}()', 'return "a"'), ['FORBIDDEN_GOROUTINE@1:1']],
  ['channel send', lines('ch <- 1', 'return "a"'), ['FORBIDDEN_CHANNEL@1:4']],
  ['channel type', lines('var c chan int', '_ = c', 'return "a"'), ['FORBIDDEN_CHANNEL@1:7']],
  ['map type', lines('var m map[string]string', '_ = m', 'return "a"'), ['FORBIDDEN_MAP@1:7']],
  ['map literal', lines('m := map[string]string{"US": "us"}', '_ = m', 'return "a"'), ['FORBIDDEN_MAP@1:6']],
  ['indexing', lines('if userAgent[0] == "M" {', '\treturn "a"', '}', 'return "b"'), ['FORBIDDEN_INDEXING@1:13']],
  ['map-style parameter access', lines('if params["sub1"] == "x" {', '\treturn "a"', '}', 'return "b"'), ['UNDEFINED@1:4', 'FORBIDDEN_INDEXING@1:10']],
  ['slicing', lines('if userAgent[0:4] == "Mozi" {', '\treturn "a"', '}', 'return "b"'), ['FORBIDDEN_INDEXING@1:13']],
  ['pointers', lines('x := country', 'p := &x', 'if *p == "" {', '\treturn "a"', '}', 'return "b"'), ['FORBIDDEN_POINTER@2:6', 'FORBIDDEN_POINTER@3:4']],
  ['pointer type', lines('var p *string', '_ = p', 'return "a"'), ['FORBIDDEN_POINTER@1:7']],
  ['package fmt', lines('fmt.Println(country)', 'return "a"'), ['FORBIDDEN_PACKAGE@1:1']],
  ['package time', lines('if time.Now().Hour() > 12 {', '\treturn "a"', '}', 'return "b"'), ['FORBIDDEN_PACKAGE@1:4']],
  ['package strconv', lines('if strconv.Itoa(hour) == "1" {', '\treturn "a"', '}', 'return "b"'), ['FORBIDDEN_PACKAGE@1:4']],
  [
    'os is the operating-system variable, so os.Getenv is a method call',
    lines('if os.Getenv("X") == "" {', '\treturn "a"', '}', 'return "b"'),
    ['FORBIDDEN_METHOD_CALL@1:7'],
  ],
  ['package regexp', lines('if regexp.MustCompile("x").MatchString(city) {', '\treturn "a"', '}', 'return "b"'), ['FORBIDDEN_PACKAGE@1:4']],
  ['method call', lines('if country.ToLower() == "us" {', '\treturn "a"', '}', 'return "b"'), ['FORBIDDEN_METHOD_CALL@1:12']],
  ['method call on a local', lines('c := city', 'if c.HasPrefix("B") {', '\treturn "a"', '}', 'return "b"'), ['FORBIDDEN_METHOD_CALL@2:6']],
  ['defer', lines('defer println("x")', 'return "a"'), ['FORBIDDEN_DEFER@1:1']],
  ['select', lines('select {', '}', 'return "a"'), ['FORBIDDEN_SELECT@1:1']],
  ['append', lines('l := []string{"a"}', 'l = append(l, "b")', 'if oneOf(country, l...) {', '\treturn "a"', '}', 'return "b"'), ['FORBIDDEN_APPEND@2:5']],
  ['make', lines('l := make([]string, 2)', '_ = l', 'return "a"'), ['FORBIDDEN_MAKE@1:6']],
  ['new', lines('p := new(string)', '_ = p', 'return "a"'), ['FORBIDDEN_NEW@1:6']],
  ['panic', lines('if country == "" {', '\tpanic("no country")', '}', 'return "a"'), ['FORBIDDEN_PANIC@2:2']],
  ['print', lines('print(country)', 'return "a"'), ['FORBIDDEN_PRINT@1:1']],
  ['println', lines('println(country)', 'return "a"'), ['FORBIDDEN_PRINTLN@1:1']],
  ['recover', lines('recover()', 'return "a"'), ['FORBIDDEN_RECOVER@1:1']],
  ['delete', lines('delete(m, "a")', 'return "a"'), ['FORBIDDEN_DELETE@1:1', 'UNDEFINED@1:8']],
  ['copy', lines('a := []string{"x"}', 'b := []string{"y"}', 'copy(b, a)', 'return "a"'), ['FORBIDDEN_COPY@3:1']],

  // Go outside the language
  ['string concatenation', lines('key := "us_" + "mobile"', 'return key'), ['UNSUPPORTED_ARITHMETIC@1:14']],
  ['integer addition', lines('if hour + 1 > 12 {', '\treturn "a"', '}', 'return "b"'), ['UNSUPPORTED_ARITHMETIC@1:9']],
  ['subtraction', lines('if hour - utcOffsetHours > 12 {', '\treturn "a"', '}', 'return "b"'), ['UNSUPPORTED_ARITHMETIC@1:9']],
  [
    'multiplication and modulo',
    lines('if hour * 60 % 7 == 0 {', '\treturn "a"', '}', 'return "b"'),
    ['UNSUPPORTED_ARITHMETIC@1:9', 'UNSUPPORTED_ARITHMETIC@1:14'],
  ],
  ['compound assignment', lines('key := "a"', 'key += "b"', 'return key'), ['UNSUPPORTED_ARITHMETIC@2:5']],
  ['increment', lines('n := 0', 'n++', 'if n == 1 {', '\treturn "a"', '}', 'return "b"'), ['UNSUPPORTED_ARITHMETIC@2:2']],
  ['unary plus', lines('if hour == +1 {', '\treturn "a"', '}', 'return "b"'), ['UNSUPPORTED_ARITHMETIC@1:12']],
  ['bitwise complement', lines('if ^hour == 1 {', '\treturn "a"', '}', 'return "b"'), ['UNSUPPORTED_ARITHMETIC@1:4']],
  [
    'function declaration',
    lines('func isMobile(d string) bool {', '\treturn d == "mobile"', '}', 'if isMobile(deviceType) {', '\treturn "m"', '}', 'return "d"'),
    ['UNSUPPORTED_FUNCTION_DECLARATION@1:1'],
  ],
  [
    'a whole Go program',
    lines('func main() {', '\tif country == "US" {', '\t\treturn "us"', '\t}', '\treturn "x"', '}'),
    ['UNSUPPORTED_FUNCTION_DECLARATION@1:1'],
  ],
  ['break outside a switch', lines('if hour > 1 {', '\tbreak', '}', 'return "a"'), ['UNSUPPORTED_BRANCH@2:2']],
  ['break with a label', lines('switch country {', 'case "US":', '\tbreak top', '}', 'return "a"'), ['UNSUPPORTED_BRANCH@3:8']],
  ['continue', lines('continue', 'return "a"'), ['UNSUPPORTED_BRANCH@1:1']],
  ['goto', lines('goto end', 'return "a"'), ['UNSUPPORTED_BRANCH@1:1']],
  [
    'fallthrough in the final case',
    lines('switch country {', 'case "US":', '\treturn "us"', 'case "CA":', '\tfallthrough', '}', 'return "a"'),
    ['UNSUPPORTED_BRANCH@5:2'],
  ],
  [
    'fallthrough not ending its case',
    lines('switch country {', 'case "US":', '\tif hour > 1 {', '\t\tfallthrough', '\t}', 'case "CA":', '\treturn "na"', '}', 'return "a"'),
    ['UNSUPPORTED_BRANCH@4:3'],
  ],
  ['const of a variable', lines('const us = country', 'if us == "US" {', '\treturn "us"', '}', 'return "a"'), ['NOT_CONSTANT@1:12']],
  ['const without a value', lines('const us', 'return "a"'), ['SYNTAX_ERROR@1:9']],
  ['const with more names than values', lines('const a, b = 1', 'return "a"'), ['MISSING_CONSTANT_VALUE@1:10']],
  ['assignment to a constant', lines('const a = 1', 'a = 2', 'return "a"'), ['INVALID_ASSIGNMENT@2:1']],
  ['typed const that overflows', lines('const big int = 9223372036854775808', 'return "a"'), ['INTEGER_OUT_OF_RANGE@1:17']],
  ['iota outside a const declaration', lines('if iota == 0 {', '\treturn "a"', '}', 'return "b"'), ['UNSUPPORTED_BUILTIN@1:4']],
  ['type declaration', lines('type key string', 'return "a"'), ['UNSUPPORTED_TYPE_DECLARATION@1:1']],
  ['float64 variable', lines('var x float64', '_ = x', 'return "a"'), ['UNSUPPORTED_TYPE@1:7']],
  ['[]int variable', lines('var x []int', '_ = x', 'return "a"'), ['UNSUPPORTED_TYPE@1:7']],
  ['struct type', lines('var x struct{ a int }', '_ = x', 'return "a"'), ['UNSUPPORTED_TYPE@1:7']],
  ['conversion Go does not allow', lines('if int("5") == 5 {', '\treturn "a"', '}', 'return "b"'), ['INVALID_CONVERSION@1:8']],
  ['conversion to a type outside the language', lines('if rune(hour) == 1 {', '\treturn "a"', '}', 'return "b"'), ['UNSUPPORTED_CONVERSION@1:4']],
  ['cap', lines('if cap(country) == 1 {', '\treturn "a"', '}', 'return "b"'), ['UNSUPPORTED_BUILTIN@1:4']],
  ['max', lines('if max(hour, 3) == 3 {', '\treturn "a"', '}', 'return "b"'), ['UNSUPPORTED_BUILTIN@1:4']],
  ['nil', lines('if country == nil {', '\treturn "a"', '}', 'return "b"'), ['UNSUPPORTED_NIL@1:15']],
  ['nil without a type', lines('x := nil', '_ = x', 'return "a"'), ['UNSUPPORTED_NIL@1:6']],
  ['type assertion', lines('x := country', 'if x.(string) == "US" {', '\treturn "a"', '}', 'return "b"'), ['UNSUPPORTED_TYPE_ASSERTION@2:6']],
  ['strings.Split', lines('if strings.Split(city, ",") == "" {', '\treturn "a"', '}', 'return "b"'), ['UNSUPPORTED_STRINGS_FUNCTION@1:12']],
  ['strings.EqualFold', lines('if strings.EqualFold(city, "x") {', '\treturn "a"', '}', 'return "b"'), ['UNSUPPORTED_STRINGS_FUNCTION@1:12']],
  ['field access', lines('if country.Length == 2 {', '\treturn "a"', '}', 'return "b"'), ['UNSUPPORTED_SELECTOR@1:12']],
  ['[]int literal', lines('l := []int{1}', '_ = l', 'return "a"'), ['UNSUPPORTED_COMPOSITE_LITERAL@1:6']],
  ['array literal', lines('l := [2]string{"a", "b"}', '_ = l', 'return "a"'), ['UNSUPPORTED_COMPOSITE_LITERAL@1:6']],
  ['func type with a list parameter', lines('var f func([]string) bool', '_ = f', 'return "a"'), ['INVALID_CLOSURE_SIGNATURE@1:12']],

  // names and scopes
  ['undefined name with a suggestion', lines('if Country == "US" {', '\treturn "a"', '}', 'return "b"'), ['UNDEFINED@1:4']],
  ['undefined helper', lines('if isMobile(deviceType) {', '\treturn "a"', '}', 'return "b"'), ['UNDEFINED@1:4']],
  ['use before declaration', lines('if x == "a" {', '\treturn "a"', '}', 'x := city', '_ = x', 'return "b"'), ['UNDEFINED@1:4']],
  ['redeclared', lines('x := country', 'var x string', '_ = x', 'return "a"'), ['REDECLARED@2:5']],
  ['no new variables', lines('x := country', 'x := city', '_ = x', 'return "a"'), ['NO_NEW_VARIABLES@2:1']],
  ['calling a local that shadows a helper', lines('len := 1', 'if len("a") == 1 {', '\treturn "a"', '}', 'return "b"'), ['NOT_A_FUNCTION@2:4']],
  ['a type name shadowed by a local', lines('string := "x"', 'var y string = string', '_ = y', 'return "a"'), ['NOT_A_TYPE@2:7']],
  ['assignment to a helper', lines('oneOf = 1', 'return "a"'), ['INVALID_ASSIGNMENT@1:1']],
  ['unused variable', lines('x := country', 'return "a"'), ['UNUSED_VARIABLE@1:1']],
  ['variable only assigned', lines('x := country', 'x = city', 'return "a"'), ['UNUSED_VARIABLE@1:1']],
  ['unused if-init variable', lines('if x := country; city == "" {', '\treturn "a"', '}', 'return "b"'), ['UNUSED_VARIABLE@1:4']],
  ['unused variable in a block', lines('if city == "" {', '\ty := 1', '\treturn "a"', '}', 'return "b"'), ['UNUSED_VARIABLE@2:2']],
  ['closure never called', lines('f := func() bool {', '\treturn true', '}', 'return "a"'), ['UNUSED_VARIABLE@1:1']],
  [
    'unused variable inside a closure',
    lines('f := func() bool {', '\tz := 1', '\treturn true', '}', 'if f() {', '\treturn "a"', '}', 'return "b"'),
    ['UNUSED_VARIABLE@2:2'],
  ],
  ['blank identifier as a value', lines('if _ == "" {', '\treturn "a"', '}', 'return "b"'), ['INVALID_BLANK_USE@1:4']],
  ['assignment to a constant', lines('true = false', 'return "a"'), ['INVALID_ASSIGNMENT@1:1']],
  ['assignment to a call', lines('trackingField("a") = "b"', 'return "a"'), ['INVALID_ASSIGNMENT@1:1']],
  ['assignment count mismatch', lines('a, b := country', '_, _ = a, b', 'return "a"'), ['ASSIGNMENT_COUNT_MISMATCH@1:1']],

  // types
  ['comparing string and int', lines('if country == 5 {', '\treturn "a"', '}', 'return "b"'), ['TYPE_MISMATCH@1:4']],
  ['typed var with a wrong value', lines('var x int = "a"', '_ = x', 'return "a"'), ['TYPE_MISMATCH@1:13']],
  ['assigning a different type', lines('x := 1', 'x = "a"', '_ = x', 'return "a"'), ['TYPE_MISMATCH@2:5']],
  ['wrong argument type', lines('if trackingField(5) == "" {', '\treturn "a"', '}', 'return "b"'), ['TYPE_MISMATCH@1:18']],
  ['returning an int', 'return 5', ['TYPE_MISMATCH@1:8']],
  ['returning a bool', 'return true', ['TYPE_MISMATCH@1:8']],
  [
    'closure returning the wrong type',
    lines('f := func() bool {', '\treturn "yes"', '}', 'if f() {', '\treturn "a"', '}', 'return "b"'),
    ['TYPE_MISMATCH@2:9'],
  ],
  ['case of the wrong type', lines('switch country {', 'case 1:', '\treturn "a"', '}', 'return "b"'), ['TYPE_MISMATCH@2:6']],
  ['list passed without ...', lines('l := []string{"US"}', 'if oneOf(country, l) {', '\treturn "a"', '}', 'return "b"'), ['TYPE_MISMATCH@2:19']],
  [
    'closure argument of the wrong type',
    lines('f := func(h int) bool {', '\treturn h > 1', '}', 'if f(country) {', '\treturn "a"', '}', 'return "b"'),
    ['TYPE_MISMATCH@4:6'],
  ],
  ['list element of the wrong type', lines('l := []string{"a", 1}', 'if oneOf(country, l...) {', '\treturn "a"', '}', 'return "b"'), ['TYPE_MISMATCH@1:20']],
  ['string condition', lines('if country {', '\treturn "a"', '}', 'return "b"'), ['NON_BOOLEAN_CONDITION@1:4']],
  ['string case in a tagless switch', lines('switch {', 'case country:', '\treturn "a"', '}', 'return "b"'), ['NON_BOOLEAN_CONDITION@2:6']],
  ['! on a string', lines('if !country {', '\treturn "a"', '}', 'return "b"'), ['INVALID_OPERATION@1:4']],
  ['minus on a string', lines('if -country == "" {', '\treturn "a"', '}', 'return "b"'), ['INVALID_OPERATION@1:4']],
  ['ordering bools', lines('if hasVisitorTag("a") < hasVisitorTag("b") {', '\treturn "a"', '}', 'return "b"'), ['INVALID_OPERATION@1:4']],
  ['&& on strings', lines('if country && city {', '\treturn "a"', '}', 'return "b"'), ['INVALID_OPERATION@1:4']],
  ['comparing lists', lines('a := []string{"x"}', 'if a == a {', '\treturn "a"', '}', 'return "b"'), ['INVALID_OPERATION@2:4']],
  ['calling a variable', lines('if country() == "" {', '\treturn "a"', '}', 'return "b"'), ['NOT_A_FUNCTION@1:4']],
  ['calling a local', lines('x := city', 'if x() {', '\treturn "a"', '}', 'return "b"'), ['NOT_A_FUNCTION@2:4']],
  ['too few arguments', lines('if timeInRange(900, 1700) {', '\treturn "a"', '}', 'return "b"'), ['WRONG_ARGUMENT_COUNT@1:25']],
  ['too many arguments', lines('if strings.Contains(city, "a", "b") {', '\treturn "a"', '}', 'return "b"'), ['WRONG_ARGUMENT_COUNT@1:32']],
  [
    'closure argument count',
    lines('f := func(a string) bool {', '\treturn a == ""', '}', 'if f() {', '\treturn "a"', '}', 'return "b"'),
    ['WRONG_ARGUMENT_COUNT@4:6'],
  ],
  ['oneOf without a value', lines('if oneOf() {', '\treturn "a"', '}', 'return "b"'), ['WRONG_ARGUMENT_COUNT@1:10']],
  [
    'spread into a non-variadic helper',
    lines('l := []string{"a"}', 'if strings.Contains(city, l...) {', '\treturn "a"', '}', 'return "b"'),
    ['INVALID_SPREAD@2:27'],
  ],
  ['spread of a string', lines('if oneOf(country, city...) {', '\treturn "a"', '}', 'return "b"'), ['INVALID_SPREAD@1:19']],
  ['helper used as a value', lines('f := len', '_ = f', 'return "a"'), ['INVALID_FUNCTION_VALUE@1:6']],
  ['strings function used as a value', lines('f := strings.ToLower', '_ = f', 'return "a"'), ['INVALID_FUNCTION_VALUE@1:6']],
  ['comparing two closures', lines('f := func() bool {', '\treturn true', '}', 'if f == f {', '\treturn "a"', '}', 'return "b"'), ['INVALID_CLOSURE_USE@4:4']],
  [
    'assigning a closure of another type',
    lines('f := func() bool {', '\treturn true', '}', 'f = func() int {', '\treturn 1', '}', 'if f() {', '\treturn "a"', '}', 'return "b"'),
    ['TYPE_MISMATCH@4:5'],
  ],
  ['closure returned as the key', lines('f := func() bool {', '\treturn true', '}', 'return f'), ['TYPE_MISMATCH@4:8']],
  ['closure without a result', lines('f := func() {', '}', 'f()', 'return "a"'), ['INVALID_CLOSURE_SIGNATURE@1:6']],
  [
    'closure with two results',
    lines('f := func() (bool, int) {', '\treturn true, 1', '}', 'f()', 'return "a"'),
    ['INVALID_CLOSURE_SIGNATURE@1:6', 'RETURN_COUNT_MISMATCH@2:15'],
  ],
  [
    'closure with a list parameter',
    lines('f := func(l []string) bool {', '\treturn true', '}', 'if f([]string{}) {', '\treturn "a"', '}', 'return "b"'),
    ['INVALID_CLOSURE_SIGNATURE@1:13'],
  ],

  [
    'variadic closure',
    lines('f := func(v ...string) bool {', '\treturn true', '}', 'if f("a") {', '\treturn "a"', '}', 'return "b"'),
    ['INVALID_CLOSURE_SIGNATURE@1:13'],
  ],
  ['closure returning a list', lines('f := func() []string {', '\treturn []string{}', '}', 'f()', 'return "a"'), ['INVALID_CLOSURE_SIGNATURE@1:13']],
  ['direct recursion', lines('f := func(n int) bool {', '\treturn f(n)', '}', 'if f(1) {', '\treturn "a"', '}', 'return "b"'), ['RECURSION_NOT_ALLOWED@2:9']],
  [
    'mutual recursion',
    lines('a := func() bool {', '\treturn b()', '}', 'b := func() bool {', '\treturn a()', '}', 'if a() {', '\treturn "x"', '}', 'return "y"'),
    ['RECURSION_NOT_ALLOWED@2:9'],
  ],
  [
    'recursion through a func variable',
    lines('var f func(n int) bool', 'f = func(n int) bool {', '\treturn f(n)', '}', 'if f(1) {', '\treturn "a"', '}', 'return "b"'),
    ['RECURSION_NOT_ALLOWED@3:9'],
  ],
  [
    'recursion through a copied func value',
    lines('var g func() bool', 'f := func() bool {', '\treturn g()', '}', 'h := f', 'g = h', 'if g() {', '\treturn "a"', '}', 'return "b"'),
    ['RECURSION_NOT_ALLOWED@3:9'],
  ],
  [
    'recursion from a nested closure',
    lines('f := func() bool {', '\tg := func() bool {', '\t\treturn f()', '\t}', '\treturn g()', '}', 'if f() {', '\treturn "x"', '}', 'return "y"'),
    ['RECURSION_NOT_ALLOWED@3:10'],
  ],
  ['comparison as a statement', lines('country == "US"', 'return "a"'), ['UNUSED_EXPRESSION@1:1']],
  ['len as a statement', lines('len(country)', 'return "a"'), ['UNUSED_EXPRESSION@1:1']],
  ['duplicate case', lines('switch country {', 'case "US", "CA":', '\treturn "a"', 'case "US":', '\treturn "b"', '}', 'return "c"'), ['DUPLICATE_CASE@4:6']],
  ['duplicate int case', lines('switch weekday {', 'case 0, 0:', '\treturn "a"', '}', 'return "c"'), ['DUPLICATE_CASE@2:9']],
  ['duplicate default', lines('switch country {', 'default:', '\treturn "a"', 'default:', '\treturn "b"', '}'), ['DUPLICATE_DEFAULT@4:1']],
  ['bare return', 'return', ['RETURN_COUNT_MISMATCH@1:1']],
  ['two return values', 'return "a", "b"', ['RETURN_COUNT_MISMATCH@1:13']],
  ['missing return', lines('if country == "US" {', '\treturn "us"', '}'), ['MISSING_RETURN@3:1']],
  ['empty script', '', ['MISSING_RETURN@1:1']],
  ['only comments', '// nothing here\n', ['MISSING_RETURN@1:1']],
  ['switch without default is not terminating', lines('switch country {', 'case "US":', '\treturn "a"', '}'), ['MISSING_RETURN@4:1']],
  [
    'missing return in a closure',
    lines('f := func(d string) bool {', '\tif d == "" {', '\t\treturn true', '\t}', '}', 'if f(city) {', '\treturn "a"', '}', 'return "b"'),
    ['MISSING_RETURN@5:1'],
  ],
  ['code after return that does not end in a return', lines('return "a"', 'x := 1', '_ = x'), ['MISSING_RETURN@3:5']],
  ['switch left by a break is not terminating', lines('switch country {', 'case "US":', '\tbreak', 'default:', '\treturn "row"', '}'), ['MISSING_RETURN@6:1']],

  // literal rules
  ['uppercase route key', 'return "US"', ['INVALID_ROUTE_KEY@1:8']],
  ['route key with a hyphen', 'return "us-mobile"', ['INVALID_ROUTE_KEY@1:8']],
  ['empty route key', 'return ""', ['INVALID_ROUTE_KEY@1:8']],
  ['route key of 65 characters', `return "${'a'.repeat(65)}"`, ['INVALID_ROUTE_KEY@1:8']],
  ['route key in a nested branch', lines('if hour < 12 {', '\treturn "Morning"', '}', 'return "x"'), ['INVALID_ROUTE_KEY@2:9']],
  ['field name with a dot', lines('if trackingField("utm.source") == "" {', '\treturn "a"', '}', 'return "b"'), ['INVALID_FIELD_NAME@1:18']],
  ['empty field name', lines('if dataBuffer("") == "" {', '\treturn "a"', '}', 'return "b"'), ['INVALID_FIELD_NAME@1:15']],
  ['field name of 65 characters', lines(`if dataBuffer("${'x'.repeat(65)}") == "" {`, '\treturn "a"', '}', 'return "b"'), ['INVALID_FIELD_NAME@1:15']],
  ['clock time 2400', lines('if timeAtOrAfter(2400, 0) {', '\treturn "a"', '}', 'return "b"'), ['INVALID_CLOCK_TIME@1:18']],
  ['clock time with 60 minutes', lines('if timeInRange(900, 1260, 0) {', '\treturn "a"', '}', 'return "b"'), ['INVALID_CLOCK_TIME@1:21']],
  ['negative clock time', lines('if timeAtOrBefore(-5, 0) {', '\treturn "a"', '}', 'return "b"'), ['INVALID_CLOCK_TIME@1:19']],
  ['offset 15', lines('if localDay(15) == "monday" {', '\treturn "a"', '}', 'return "b"'), ['INVALID_UTC_OFFSET@1:13']],
  ['offset -13', lines('if timeInRange(0, 600, -13) {', '\treturn "a"', '}', 'return "b"'), ['INVALID_UTC_OFFSET@1:24']],
  [
    'several errors in one pass',
    lines('x := 1', 'if country == 5 {', '\treturn "A"', '}', 'for {}', 'return "ok"'),
    ['TYPE_MISMATCH@2:4', 'INVALID_ROUTE_KEY@3:9', 'FORBIDDEN_LOOP@5:1'],
  ],
];

describe('validate: rejected scripts', () => {
  it.each(REJECTED)('%s', (_title, code, expected) => {
    const result = validate(code);
    expect(result.valid).toBe(false);
    expect(errorsOf(code)).toEqual(expected);
  });
});

describe('validate: warnings', () => {
  it('warns about a computed route key and accepts the script', () => {
    const code = lines('key := strings.ToLower(country)', 'return key');
    expect(validate(code).valid).toBe(true);
    expect(warningsOf(code)).toEqual(['NON_LITERAL_ROUTE_KEY@2:8']);
  });

  it('warns about a closure result returned as the key', () => {
    const code = lines('pick := func(c string) string {', '\tif c == "US" {', '\t\treturn "us"', '\t}', '\treturn "row"', '}', 'return pick(country)');
    const result = validate(code);
    expect(result.valid).toBe(true);
    expect(warningsOf(code)).toEqual(['NON_LITERAL_ROUTE_KEY@7:8']);
    // Keys returned inside closures are not the script's own route keys.
    expect(result.routeKeys).toEqual([]);
  });

  it('warns about a helper called as a statement', () => {
    const code = lines('hasVisitorTag("a")', 'return "a"');
    expect(validate(code).valid).toBe(true);
    expect(warningsOf(code)).toEqual(['UNUSED_RESULT@1:1']);
  });

  it('gives no warnings for literal keys', () => {
    expect(validate('return "a"').warnings).toEqual([]);
  });
});

describe('validate: route keys', () => {
  it('lists literal keys in source order without duplicates', () => {
    const code = lines(
      'if hour < 12 {',
      '\treturn "b"',
      '}',
      'switch country {',
      'case "US":',
      '\treturn "a"',
      'case "CA":',
      '\treturn "b"',
      '}',
      'return ("c")',
    );
    expect(validate(code).routeKeys).toEqual(['b', 'a', 'c']);
  });

  it('leaves out invalid keys and computed ones', () => {
    expect(validate(lines('if hour < 1 {', '\treturn "Bad"', '}', 'if hour < 2 {', '\treturn city', '}', 'return "ok"')).routeKeys).toEqual(['ok']);
  });
});

describe('validate: messages', () => {
  const messageOf = (code: string): string => validate(code).errors[0]?.message ?? '';

  it('tells the author what to write instead of indexing', () => {
    expect(messageOf(lines('if params["sub1"] == "" {', '\treturn "a"', '}', 'return "b"'))).toEqual(expect.any(String));
    expect(
      validate(lines('if params["sub1"] == "" {', '\treturn "a"', '}', 'return "b"')).errors.find((e) => e.code === 'FORBIDDEN_INDEXING')?.message,
    ).toContain('trackingField("sub1")');
    expect(messageOf(lines('if userAgent[0] == "M" {', '\treturn "a"', '}', 'return "b"'))).toContain('trackingField("x")');
  });

  it('says arithmetic and string concatenation are not part of the language', () => {
    expect(messageOf(lines('k := "a" + "b"', 'return k'))).toMatch(/arithmetic and string concatenation are not part of the language/);
  });

  it('suggests the right spelling of a variable', () => {
    expect(messageOf(lines('if Country == "US" {', '\treturn "a"', '}', 'return "b"'))).toContain('did you mean country?');
    expect(messageOf(lines('if devicetype == "x" {', '\treturn "a"', '}', 'return "b"'))).toContain('did you mean deviceType?');
  });

  it('suggests the strings helper for a method call', () => {
    expect(messageOf(lines('if country.HasPrefix("U") {', '\treturn "a"', '}', 'return "b"'))).toContain('strings.HasPrefix(country, ...)');
  });

  it('explains the leading zero of an HHMM time', () => {
    expect(messageOf(lines('if timeAtOrAfter(0900, 0) {', '\treturn "a"', '}', 'return "b"'))).toContain('write 900');
  });

  it('names both closures of a mutual recursion', () => {
    expect(
      messageOf(lines('a := func() bool {', '\treturn b()', '}', 'b := func() bool {', '\treturn a()', '}', 'if a() {', '\treturn "x"', '}', 'return "y"')),
    ).toContain('a and b call each other');
  });

  it('gives every forbidden construct advice on what to write instead', () => {
    const forbidden = REJECTED.filter(([, , errors]) => errors.some((e) => e.startsWith('FORBIDDEN_')));
    for (const [, code] of forbidden) {
      const error = validate(code).errors.find((e) => e.code.startsWith('FORBIDDEN_'));
      expect(error?.message).toMatch(/: \S/); // "<what> is not allowed: <instead>"
    }
  });
});

describe('validate: input handling', () => {
  it.each([[undefined], [null], [42], [{ code: 'return "a"' }], [['return "a"']], [Symbol('x')]])('rejects non-string input %p without throwing', (input) => {
    const result = validate(input);
    expect(result).toEqual({ valid: false, routeKeys: [], errors: [expect.objectContaining({ code: 'INVALID_INPUT', line: 1, column: 1 })], warnings: [] });
  });

  it('accepts code of exactly the maximum size and rejects one byte more', () => {
    const base = 'return "a"\n';
    const exact = base + '/'.repeat(2) + 'x'.repeat(MAX_CODE_BYTES - base.length - 2);
    expect(Buffer.byteLength(exact)).toBe(MAX_CODE_BYTES);
    expect(validate(exact).valid).toBe(true);
    expect(errorsOf(`${exact}x`)).toEqual(['CODE_TOO_LARGE@1:1']);
  });

  it('counts the size in UTF-8 bytes, not characters', () => {
    const comment = '// ' + 'é'.repeat(5200); // 5200 characters, 10400 bytes
    expect(errorsOf(`return "a"\n${comment}`)).toEqual(['CODE_TOO_LARGE@1:1']);
  });

  it('reports columns of later lines and after tabs', () => {
    expect(errorsOf('x := 1\n\t\treturn "A"')).toEqual(['UNUSED_VARIABLE@1:1', 'INVALID_ROUTE_KEY@2:10']);
  });

  it('sorts diagnostics by position', () => {
    const errors = validate(lines('return "A"', 'x := "B" + 1')).errors;
    const positions = errors.map((e) => e.line * 1000 + e.column);
    expect(positions).toEqual([...positions].sort((a, b) => a - b));
  });

  it('uses only documented codes', () => {
    const all = [...ACCEPTED.map(([, c]) => c), ...REJECTED.map(([, c]) => c)].flatMap((c) => [...validate(c).errors, ...validate(c).warnings]);
    for (const diagnostic of all) expect(Object.keys(DIAGNOSTIC_CODES)).toContain(diagnostic.code);
  });
});

it('the snippet table has at least 150 entries', () => {
  expect(ACCEPTED.length + REJECTED.length).toBeGreaterThanOrEqual(150);
});
