import fc from 'fast-check';
import { ProgramGenerator, Random } from '../../../../tools/go-differential/generate';
import { SNIPPETS } from '../../../../tools/go-differential/snippets';
import { languageCatalog } from '../catalog';
import { compileScript as compileClosures } from '../compiler';
import { compile, CompiledScript, evaluate, EvaluationContext } from '../evaluator';
import { analyze } from '../validate';

// The generated function against the closures it replaces, on the Go differential check's random
// programs (every construct of the language), its hand-written snippets and the catalog's templates:
// the same result, reason included, for any visitor.

function both(code: string): [CompiledScript, CompiledScript] | null {
  const generated = compile(code);
  if (!generated.ok) return null;
  // The closure compiler reads a tree of its own.
  const analysis = analyze(code);
  const { routeKeys, warnings } = analysis.result;
  const closures = new CompiledScript(code, routeKeys, warnings, compileClosures(analysis.script!), analysis.slotCount);
  return [generated.script, closures];
}

const attributeValue = fc.oneof(
  { arbitrary: fc.constantFrom('US', 'DE', 'mobile', 'Mobile', '', 'İzmir', 'izmir', 'ß', 'ΑΣ', 'Chrome', 'https://www.google.com/'), weight: 4 },
  fc.string(),
  fc.constant(42),
);

const context: fc.Arbitrary<EvaluationContext> = fc.record({
  visitor: fc.record(
    {
      country: attributeValue,
      city: attributeValue,
      deviceType: attributeValue,
      browser: attributeValue,
      os: attributeValue,
      mainLanguage: attributeValue,
      trafficSourceID: attributeValue,
      referrer: attributeValue,
      initialReferrer: attributeValue,
      utcOffsetHours: fc.oneof(fc.integer({ min: -12, max: 14 }), fc.integer({ min: -40, max: 40 }), fc.double(), fc.constant(undefined)),
    },
    { requiredKeys: [] },
  ),
  trackingFields: fc.option(fc.record({ campaign: attributeValue as fc.Arbitrary<string> }, { requiredKeys: [] }), { nil: undefined }),
  dataBuffer: fc.option(fc.record({ plan: attributeValue as fc.Arbitrary<string> }, { requiredKeys: [] }), { nil: undefined }),
  visitorTags: fc.subarray(['t1', 'vip', 'other']),
  now: fc.oneof(
    { arbitrary: fc.date({ min: new Date('1950-01-01T00:00:00Z'), max: new Date('2150-01-01T00:00:00Z'), noInvalidDate: true }), weight: 8 },
    fc.constant(new Date(Number.NaN)),
  ),
});

function expectSameResults(code: string, contexts: EvaluationContext[]): boolean {
  const compiled = both(code);
  if (compiled === null) return false;
  const [generated, closures] = compiled;
  for (const ctx of contexts) {
    const expected = evaluate(closures, ctx);
    const actual = evaluate(generated, ctx);
    if (JSON.stringify(actual) !== JSON.stringify(expected)) {
      throw new Error(`${code}\n\ncontext ${JSON.stringify(ctx)}\ngenerated: ${JSON.stringify(actual)}\nclosures:  ${JSON.stringify(expected)}`);
    }
  }
  return true;
}

describe('the generated function and the closures agree', () => {
  it('on random programs of every construct', () => {
    let valid = 0;
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 2 ** 31 - 1 }), fc.array(context, { minLength: 1, maxLength: 4 }), (seed, contexts) => {
        if (expectSameResults(new ProgramGenerator(new Random(seed)).program().code, contexts)) valid++;
      }),
      { numRuns: 2000 },
    );
    // About half of the programs carry a change Go may reject; the rest must be compared.
    expect(valid).toBeGreaterThan(500);
  });

  it('on the hand-written snippets and the catalog templates', () => {
    const scripts = [...SNIPPETS, ...languageCatalog.templates.map((t) => t.code)];
    fc.assert(
      fc.property(fc.array(context, { minLength: 1, maxLength: 4 }), (contexts) => {
        for (const code of scripts) expectSameResults(code, contexts);
      }),
      { numRuns: 30 },
    );
  });
});
