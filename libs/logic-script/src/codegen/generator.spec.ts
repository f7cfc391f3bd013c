import fc from 'fast-check';
import { ProgramGenerator, Random } from '../../../../tools/go-differential/generate';
import { compile, evaluate, EvaluationContext } from '../evaluator';
import { analyze } from '../validate';
import { compileScript } from './index';

const lines = (...parts: string[]): string => parts.join('\n');

function sourceOf(code: string): string {
  const analysis = analyze(code);
  expect(analysis.result.errors).toEqual([]);
  return compileScript(analysis.script!).source;
}

const NOW = new Date('2024-05-06T14:30:00Z');

describe('generated code', () => {
  // Names a generated function uses itself (env, k0, l0, t0, h0), names JavaScript treats specially, and
  // text that would end a string literal or a comment, or run in a template, if it were written as it is.
  const CONSTANTS = ['a b', '`${process.exit(1)}`', '"); process.exit(1); ("', '\u2028*/', 'ΑΣ', 'quoted', 'greek', 'none'];
  const HOSTILE = lines(
    '// */ process.exit(1) /*',
    'env := trackingField("a b")',
    'k0, l0, t0 := "`${process.exit(1)}`", `"); process.exit(1); ("`, "\\u2028*/"',
    'constructor := func(arguments string, eval string) bool {',
    '\treturn arguments == eval',
    '}',
    'h0 := func(__proto__ string) bool {',
    '\treturn constructor(__proto__, k0) || constructor(__proto__, l0) || constructor(__proto__, t0)',
    '}',
    'ünïcodeName := strings.ToUpper(env)',
    'if h0(env) {',
    '\treturn "quoted"',
    '}',
    'if ünïcodeName == "ΑΣ" {',
    '\treturn "greek"',
    '}',
    'return "none"',
  );

  it('holds no text of the script but its string constants, each as a JSON string literal', () => {
    let rest = sourceOf(HOSTILE);
    for (const constant of CONSTANTS) rest = rest.split(JSON.stringify(constant)).join('');
    for (const text of ['constructor', 'arguments', 'eval', '__proto__', 'ünïcodeName', 'process', '*/', '${', '\u2028', '"a b"']) {
      expect(rest).not.toContain(text);
    }
  });

  it('evaluates such a script as written', () => {
    const script = compile(HOSTILE);
    if (!script.ok) throw new Error(JSON.stringify(script.result.errors));
    const keyFor = (field: string): string => evaluate(script.script, { trackingFields: { 'a b': field }, now: NOW }).routeKey;
    expect(keyFor('`${process.exit(1)}`')).toBe('quoted');
    expect(keyFor('"); process.exit(1); ("')).toBe('quoted');
    expect(keyFor('\u2028*/')).toBe('quoted');
    expect(keyFor('ασ')).toBe('greek');
    expect(keyFor('constructor')).toBe('none');
  });

  it('writes a closure that uses nothing around it once, and one that does where it is made', () => {
    const source = sourceOf(
      lines(
        'lower := func(s string) string {',
        '\treturn strings.ToLower(s)',
        '}',
        'prefix := "fb"',
        'isAd := func(s string) bool {',
        '\treturn strings.HasPrefix(lower(s), prefix)',
        '}',
        'if isAd(trackingField("source")) {',
        '\treturn "ad"',
        '}',
        'return "organic"',
      ),
    );
    expect(source).toMatch(/^function h0\(env, l\d+\) \{/m); // lower: outside the script function
    expect(source).toMatch(/return function script\(env\) \{.*\(\(l\d+\) => \{/); // isAd: reads prefix, so made per evaluation
  });
});

const attributeValue = fc.oneof(fc.constantFrom('US', 'DE', 'mobile', 'Mobile', '', 'İzmir', 'ß', 'ΑΣ', 'Chrome'), fc.string(), fc.constant(42));

const context: fc.Arbitrary<EvaluationContext> = fc.record({
  visitor: fc.record(
    {
      country: attributeValue,
      city: attributeValue,
      deviceType: attributeValue,
      browser: attributeValue,
      referrer: attributeValue,
      utcOffsetHours: fc.oneof(fc.integer({ min: -12, max: 14 }), fc.integer({ min: -40, max: 40 }), fc.constant(undefined)),
    },
    { requiredKeys: [] },
  ) as fc.Arbitrary<EvaluationContext['visitor']>,
  trackingFields: fc.option(fc.record({ campaign: fc.string() }, { requiredKeys: [] }), { nil: undefined }),
  visitorTags: fc.subarray(['t1', 'vip']),
  now: fc.oneof({ arbitrary: fc.date({ noInvalidDate: true }), weight: 8 }, fc.constant(new Date(Number.NaN))),
});

describe('every program of the Go differential generator', () => {
  // Every construct of the language (closures, func variables, nil funcs, switch with break and
  // fallthrough, parallel assignment, assigned predeclared variables, 64-bit ints): a valid program
  // compiles to a function the JavaScript engine accepts, and an evaluation ends in a key or in one of
  // the language's own failures, never in an error of the generated code.
  it('compiles when valid and never fails for a reason of the generated code', () => {
    let compiled = 0;
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 2 ** 31 - 1 }), fc.array(context, { minLength: 1, maxLength: 3 }), (seed, contexts) => {
        const { code } = new ProgramGenerator(new Random(seed)).program();
        if (!analyze(code).result.valid) return;
        const script = compile(code);
        if (!script.ok) throw new Error(`${code}\n${JSON.stringify(script.result.errors)}`);
        compiled++;
        for (const ctx of contexts) {
          const result = evaluate(script.script, ctx);
          expect(result.reason).not.toMatch(/unexpectedly/);
          expect(['RETURNED', 'RUNTIME_ERROR', 'INVALID_ROUTE_KEY']).toContain(result.reasonCode);
        }
      }),
      { numRuns: 600 },
    );
    expect(compiled).toBeGreaterThan(150); // about half the programs carry a change Go rejects
    // An undeclared name the generated code assigns would throw in strict mode; jest's sandbox makes it
    // a global instead, so none may appear.
    expect(Object.keys(globalThis).filter((name) => /^[hklt]\d+$/.test(name))).toEqual([]);
  });
});
