import { HELPERS, VARIABLES } from './builtins';
import { languageCatalog } from './catalog';
import { DIAGNOSTIC_CODES } from './diagnostics';
import { evaluate } from './evaluator';
import { FALLBACK_ROUTE_KEY, MAX_CODE_BYTES, ROUTE_KEY_PATTERN } from './rules';
import { validate } from './validate';

describe('languageCatalog', () => {
  it.each(languageCatalog.templates.map((t) => [t.name, t.code]))('template "%s" validates without errors or warnings', (_name, code) => {
    const result = validate(code);
    expect(result.errors).toEqual([]);
    expect(result.warnings).toEqual([]);
    expect(result.routeKeys.length).toBeGreaterThan(0);
  });

  it('has templates for every kind of routing the spec names', () => {
    const names = languageCatalog.templates.map((t) => t.name.toLowerCase());
    for (const topic of ['country', 'device type', 'time of day', 'weekday', 'tracking field', 'data buffer', 'visitor tag', 'referrer']) {
      expect(names.some((n) => n.includes(topic))).toBe(true);
    }
    for (const template of languageCatalog.templates) {
      expect(template.description.length).toBeGreaterThan(10);
    }
  });

  it('templates route sample visitors to their own keys', () => {
    const now = new Date('2025-03-08T23:30:00Z'); // a Saturday night in UTC
    const context = {
      now,
      visitor: { country: 'DE', deviceType: 'Mobile', referrer: 'https://www.google.com/', trafficSourceID: 'organic', utcOffsetHours: 1 },
      trackingFields: { campaign: 'Retarget_spring' },
      dataBuffer: { plan: 'pro' },
      visitorTags: ['buyers'],
    };
    const keys = Object.fromEntries(languageCatalog.templates.map((t) => [t.name, evaluate(t.code, context).routeKey]));
    expect(keys).toEqual({
      'By country': 'dach',
      'By device type': 'mobile',
      'By time of day': 'night',
      'By weekday': 'weekend',
      'By tracking field': 'retargeting',
      'By data buffer': 'premium_checkout',
      'By visitor tag': 'returning_buyer',
      'By referrer': 'search',
      'Organic traffic': 'organic',
      'Closure for a repeated test': 'mobile',
    });
  });

  it('is plain JSON', () => {
    expect(JSON.parse(JSON.stringify(languageCatalog))).toEqual(languageCatalog);
  });

  it('cannot be changed by a consumer', () => {
    expect(Object.isFrozen(languageCatalog)).toBe(true);
    expect(Object.isFrozen(languageCatalog.variables[0])).toBe(true);
  });

  it('states the rules of the spec', () => {
    expect(languageCatalog.maxCodeBytes).toBe(MAX_CODE_BYTES);
    expect(languageCatalog.maxCodeBytes).toBe(10240);
    expect(languageCatalog.fallbackRouteKey).toBe('default');
    expect(languageCatalog.routeKeyRule.pattern).toBe('^[a-z0-9_]{1,64}$');
    expect(languageCatalog.nameRule.pattern).toBe('^[A-Za-z0-9_ -]{1,64}$');
    expect(languageCatalog.nameRule.appliesTo).toEqual(['trackingField', 'dataBuffer']);
    expect(languageCatalog.operators.map((o) => o.operator)).toEqual(expect.arrayContaining(['==', '!=', '<', '>', '<=', '>=', '&&', '||', '!']));
    expect(FALLBACK_ROUTE_KEY).toMatch(ROUTE_KEY_PATTERN);
  });

  it('lists exactly the variables and helpers the checker and evaluator use', () => {
    expect(languageCatalog.variables.map((v) => v.name)).toEqual(VARIABLES.map((v) => v.name));
    expect(languageCatalog.helpers.map((h) => h.name)).toEqual(HELPERS.map((h) => h.name));
    const spec = [
      'country',
      'city',
      'region',
      'continent',
      'timezone',
      'deviceType',
      'brand',
      'model',
      'os',
      'osVersion',
      'browser',
      'browserVersion',
      'mainLanguage',
      'browserLanguage',
      'ip',
      'isp',
      'connectionType',
      'mobileCarrier',
      'userAgent',
      'referrer',
      'initialReferrer',
      'currentURL',
      'trackingDomain',
      'trafficSourceID',
      'hour',
      'minute',
      'weekday',
      'dayOfMonth',
      'month',
      'year',
      'utcOffsetHours',
    ];
    expect(languageCatalog.variables.map((v) => v.name).sort()).toEqual([...spec].sort());
    expect(languageCatalog.variables.filter((v) => v.type === 'int').map((v) => v.name)).toEqual([
      'hour',
      'minute',
      'weekday',
      'dayOfMonth',
      'month',
      'year',
      'utcOffsetHours',
    ]);
  });

  it('gives helpers Go signatures, variadic included', () => {
    const signature = (name: string) => languageCatalog.helpers.find((h) => h.name === name)?.signature;
    expect(signature('oneOf')).toBe('oneOf(value string, candidates ...string) bool');
    expect(signature('containsAny')).toBe('containsAny(value string, substrings ...string) bool');
    expect(signature('timeInRange')).toBe('timeInRange(startHHMM int, endHHMM int, utcOffsetHours int) bool');
    expect(signature('len')).toBe('len(value string) int');
    expect(signature('localDay')).toBe('localDay(utcOffsetHours int) string');
    expect(signature('strings.HasPrefix')).toBe('strings.HasPrefix(s string, prefix string) bool');
  });

  it('every helper example is a valid condition or value', () => {
    for (const helper of languageCatalog.helpers) {
      const condition =
        helper.returns === 'bool'
          ? helper.example
          : helper.example.includes('==')
            ? helper.example
            : `${helper.example} != ${helper.returns === 'int' ? '0' : '""'}`;
      expect(validate(`if ${condition} {\n\treturn "a"\n}\nreturn "b"`).errors).toEqual([]);
    }
  });

  it("states Go's rule, the constructs it brings and where the language departs from Go on purpose", () => {
    expect(languageCatalog.syntax.rule).toMatch(
      /a snippet that Go compiles .* is valid unless the forbidden list, the route-key rule or the 10240-byte limit excludes it/,
    );
    const allowed = languageCatalog.syntax.allowed.join('\n');
    for (const construct of [
      'const ( ... )',
      'iota',
      'country := strings.ToLower(country)',
      'var f func(string) bool',
      'func() bool { ... }()',
      'break',
      'fallthrough',
      'string(n)',
      '0x1F',
      '0b101',
      '1_000',
      '64-bit',
      'first return wins',
      'UTF-8 bytes',
      'simple case mappings',
    ]) {
      expect(allowed).toContain(construct);
    }
    expect(languageCatalog.syntax.differencesFromGo.map((d) => d.code)).toContain('INVALID_UTF8_LITERAL');
    for (const difference of languageCatalog.syntax.differencesFromGo) expect(Object.keys(DIAGNOSTIC_CODES)).toContain(difference.code);
  });

  it('documents every diagnostic code and every forbidden construct', () => {
    expect(languageCatalog.diagnostics.map((d) => d.code)).toEqual(Object.keys(DIAGNOSTIC_CODES));
    const forbidden = languageCatalog.syntax.forbidden.map((f) => f.code);
    for (const code of [
      'FORBIDDEN_IMPORT',
      'FORBIDDEN_PACKAGE_CLAUSE',
      'FORBIDDEN_LOOP',
      'FORBIDDEN_GOROUTINE',
      'FORBIDDEN_MAP',
      'FORBIDDEN_INDEXING',
      'FORBIDDEN_POINTER',
      'FORBIDDEN_PACKAGE',
      'FORBIDDEN_METHOD_CALL',
      'FORBIDDEN_DEFER',
      'FORBIDDEN_SELECT',
      'FORBIDDEN_APPEND',
      'FORBIDDEN_MAKE',
      'FORBIDDEN_NEW',
      'FORBIDDEN_PANIC',
      'FORBIDDEN_PRINT',
      'FORBIDDEN_PRINTLN',
      'FORBIDDEN_RECOVER',
      'FORBIDDEN_DELETE',
      'FORBIDDEN_COPY',
    ]) {
      expect(forbidden).toContain(code);
    }
  });
});
