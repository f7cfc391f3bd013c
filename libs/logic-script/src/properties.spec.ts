import fc from 'fast-check';
import { languageCatalog } from './catalog';
import { DIAGNOSTIC_CODES } from './diagnostics';
import { GO_CASE_TABLE } from './go/case-table.generated';
import { compile, evaluate, EvaluationContext } from './evaluator';
import { ROUTE_KEY_PATTERN } from './rules';
import { validate, ValidationResult } from './validate';

// Scripts are generated from a small grammar together with a model: a direct JavaScript reading of
// the same logic, written independently of the compiler (Date for the clock, Buffer for bytes). The
// evaluator must agree with the model on every generated script and context.

interface ModelContext {
  visitor: Record<string, unknown>;
  trackingFields?: Record<string, string>;
  dataBuffer?: Record<string, string>;
  visitorTags: string[];
  now: Date;
}

/** A run-time failure in the model: the evaluator must route to the fallback. */
class ModelFailure extends Error {}

type Model<T> = (ctx: ModelContext, locals: Map<string, unknown>) => T;

interface Gen<T> {
  code: string;
  model: Model<T>;
}

const visitorString = (ctx: ModelContext, name: string): string => {
  const value = ctx.visitor[name];
  return typeof value === 'string' ? value : '';
};

const clock = (ctx: ModelContext): Date => {
  if (Number.isNaN(ctx.now.getTime())) throw new ModelFailure('no clock');
  return ctx.now;
};

const visitorOffset = (ctx: ModelContext): number => {
  const value = ctx.visitor['utcOffsetHours'];
  return typeof value === 'number' && Number.isInteger(value) ? value : 0;
};

const checkedOffset = (offset: number): number => {
  if (!Number.isInteger(offset) || offset < -12 || offset > 14) throw new ModelFailure('offset');
  return offset;
};

const localMinuteOfDay = (ctx: ModelContext, offset: number): number => {
  const local = new Date(clock(ctx).getTime() + checkedOffset(offset) * 3_600_000);
  return local.getUTCHours() * 60 + local.getUTCMinutes();
};

const DAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];
const LITERALS = ['US', 'DE', 'mobile', '', 'fb_ads', 'x', 'Chrome', 'é', 'google.', 'ß', 'İzmir', 'ΑΣ'];
const KEYS = ['us', 'de', 'mobile', 'k_1', 'default', 'night', 'search'];
const TAGS = ['t1', 't2', 't3'];

const quote = (text: string): string => JSON.stringify(text);

// Go's strings.ToLower / ToUpper: rune by rune, from the table Go itself generated (tools/go-unicode).
const GO_LOWER = new Map<number, number>();
const GO_UPPER = new Map<number, number>();
for (let i = 0; i < GO_CASE_TABLE.length; i += 3) {
  GO_LOWER.set(GO_CASE_TABLE[i], GO_CASE_TABLE[i + 1]);
  GO_UPPER.set(GO_CASE_TABLE[i], GO_CASE_TABLE[i + 2]);
}
const goLower = (s: string): string =>
  [...s].map((c) => String.fromCodePoint(GO_LOWER.get(c.codePointAt(0) as number) ?? (c.codePointAt(0) as number))).join('');
const goUpper = (s: string): string =>
  [...s].map((c) => String.fromCodePoint(GO_UPPER.get(c.codePointAt(0) as number) ?? (c.codePointAt(0) as number))).join('');

// ---- expression generators -----------------------------------------------------------------------

const stringVariable: fc.Arbitrary<Gen<string>> = fc.constantFrom('country', 'city', 'deviceType', 'browser', 'userAgent', 'referrer').map((name) => ({
  code: name,
  model: (ctx) => (name === 'referrer' ? visitorString(ctx, 'referrer') || visitorString(ctx, 'initialReferrer') : visitorString(ctx, name)),
}));

const offsetArgument: fc.Arbitrary<Gen<number>> = fc.oneof(
  fc.integer({ min: -12, max: 14 }).map((n) => ({ code: String(n), model: () => n })),
  fc.constant({ code: 'utcOffsetHours', model: (ctx: ModelContext) => visitorOffset(ctx) }),
);

const stringAtom: fc.Arbitrary<Gen<string>> = fc.oneof(
  { arbitrary: stringVariable, weight: 4 },
  fc.constantFrom(...LITERALS).map((text) => ({ code: quote(text), model: () => text })),
  fc.constant({
    code: 'trackingField("src")',
    model: (ctx: ModelContext) => (typeof ctx.trackingFields?.['src'] === 'string' ? ctx.trackingFields['src'] : ''),
  }),
  fc.constant({ code: 'dataBuffer("plan")', model: (ctx: ModelContext) => (typeof ctx.dataBuffer?.['plan'] === 'string' ? ctx.dataBuffer['plan'] : '') }),
  offsetArgument.map((offset) => ({
    code: `localDay(${offset.code})`,
    model: (ctx: ModelContext, locals: Map<string, unknown>) => {
      const at = offset.model(ctx, locals);
      return DAYS[new Date(clock(ctx).getTime() + checkedOffset(at) * 3_600_000).getUTCDay()];
    },
  })),
);

const stringExpr: fc.Arbitrary<Gen<string>> = fc.oneof(
  { arbitrary: stringAtom, weight: 3 },
  stringAtom.map((a) => ({ code: `strings.ToLower(${a.code})`, model: (ctx: ModelContext, l: Map<string, unknown>) => goLower(a.model(ctx, l)) })),
  stringAtom.map((a) => ({ code: `strings.ToUpper(${a.code})`, model: (ctx: ModelContext, l: Map<string, unknown>) => goUpper(a.model(ctx, l)) })),
);

const intExpr: fc.Arbitrary<Gen<number>> = fc.oneof(
  fc
    .constantFrom<[string, (d: Date) => number]>(
      ['hour', (d) => d.getUTCHours()],
      ['minute', (d) => d.getUTCMinutes()],
      ['weekday', (d) => d.getUTCDay()],
      ['dayOfMonth', (d) => d.getUTCDate()],
      ['month', (d) => d.getUTCMonth() + 1],
      ['year', (d) => d.getUTCFullYear()],
    )
    .map(([name, read]) => ({ code: name, model: (ctx: ModelContext) => read(clock(ctx)) })),
  fc.constant({ code: 'utcOffsetHours', model: (ctx: ModelContext) => visitorOffset(ctx) }),
  fc.integer({ min: -20, max: 3000 }).map((n) => ({ code: String(n), model: () => n })),
  stringExpr.map((s) => ({ code: `len(${s.code})`, model: (ctx: ModelContext, l: Map<string, unknown>) => Buffer.byteLength(s.model(ctx, l), 'utf8') })),
);

const clockTime = fc
  .tuple(fc.integer({ min: 0, max: 23 }), fc.integer({ min: 0, max: 59 }))
  .map(([h, m]) => ({ text: String(h * 100 + m), minutes: h * 60 + m }));

type Comparison = '==' | '!=' | '<' | '<=' | '>' | '>=';
const comparisonOperator = fc.constantFrom<Comparison>('==', '!=', '<', '<=', '>', '>=');

function compareModel(op: Comparison, order: number): boolean {
  switch (op) {
    case '==':
      return order === 0;
    case '!=':
      return order !== 0;
    case '<':
      return order < 0;
    case '<=':
      return order <= 0;
    case '>':
      return order > 0;
    default:
      return order >= 0;
  }
}

const literalList = fc.uniqueArray(fc.constantFrom(...LITERALS), { minLength: 0, maxLength: 4 });

const boolAtom: fc.Arbitrary<Gen<boolean>> = fc.oneof(
  fc.tuple(stringExpr, comparisonOperator, stringExpr).map(([a, op, b]) => ({
    code: `${a.code} ${op} ${b.code}`,
    model: (ctx: ModelContext, l: Map<string, unknown>) => {
      const x = a.model(ctx, l);
      const y = b.model(ctx, l);
      return op === '==' ? x === y : op === '!=' ? x !== y : compareModel(op, Buffer.compare(Buffer.from(x, 'utf8'), Buffer.from(y, 'utf8')));
    },
  })),
  fc.tuple(intExpr, comparisonOperator, intExpr).map(([a, op, b]) => ({
    code: `${a.code} ${op} ${b.code}`,
    model: (ctx: ModelContext, l: Map<string, unknown>) => compareModel(op, Math.sign(a.model(ctx, l) - b.model(ctx, l))),
  })),
  fc.tuple(fc.constantFrom('oneOf', 'containsAny'), stringExpr, literalList, fc.boolean()).map(([helper, value, list, spread]) => {
    const items = list.map(quote).join(', ');
    const args = spread ? `[]string{${items}}...` : items;
    return {
      code: `${helper}(${value.code}${list.length > 0 || spread ? `, ${args}` : ''})`,
      model: (ctx: ModelContext, l: Map<string, unknown>) => {
        const v = value.model(ctx, l);
        return helper === 'oneOf' ? list.includes(v) : list.some((part) => v.includes(part));
      },
    };
  }),
  fc.tuple(fc.constantFrom('Contains', 'HasPrefix', 'HasSuffix'), stringExpr, stringAtom).map(([fn, s, part]) => ({
    code: `strings.${fn}(${s.code}, ${part.code})`,
    model: (ctx: ModelContext, l: Map<string, unknown>) => {
      const x = s.model(ctx, l);
      const p = part.model(ctx, l);
      return fn === 'Contains' ? x.includes(p) : fn === 'HasPrefix' ? x.startsWith(p) : x.endsWith(p);
    },
  })),
  fc.constantFrom(...TAGS, 'other').map((tag) => ({ code: `hasVisitorTag(${quote(tag)})`, model: (ctx: ModelContext) => ctx.visitorTags.includes(tag) })),
  fc.tuple(clockTime, clockTime, offsetArgument).map(([start, end, offset]) => ({
    code: `timeInRange(${start.text}, ${end.text}, ${offset.code})`,
    model: (ctx: ModelContext, l: Map<string, unknown>) => {
      const now = localMinuteOfDay(ctx, offset.model(ctx, l));
      return start.minutes <= end.minutes ? now >= start.minutes && now < end.minutes : now >= start.minutes || now < end.minutes;
    },
  })),
  fc.tuple(fc.boolean(), clockTime, offsetArgument).map(([after, at, offset]) => ({
    code: `${after ? 'timeAtOrAfter' : 'timeAtOrBefore'}(${at.text}, ${offset.code})`,
    model: (ctx: ModelContext, l: Map<string, unknown>) => {
      const now = localMinuteOfDay(ctx, offset.model(ctx, l));
      return after ? now >= at.minutes : now <= at.minutes;
    },
  })),
  fc.boolean().map((b) => ({ code: String(b), model: () => b })),
);

const { boolExpr } = fc.letrec<{ boolExpr: Gen<boolean> }>((tie) => ({
  boolExpr: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    { arbitrary: boolAtom, weight: 5 },
    tie('boolExpr').map((e) => ({ code: `!(${e.code})`, model: (ctx: ModelContext, l: Map<string, unknown>) => !e.model(ctx, l) })),
    fc.tuple(tie('boolExpr'), fc.constantFrom('&&', '||'), tie('boolExpr')).map(([a, op, b]) => ({
      code: `(${a.code} ${op} ${b.code})`,
      model: (ctx: ModelContext, l: Map<string, unknown>) => (op === '&&' ? a.model(ctx, l) && b.model(ctx, l) : a.model(ctx, l) || b.model(ctx, l)),
    })),
  ),
}));

// ---- statements ----------------------------------------------------------------------------------

/** A statement: its code given a unique index, and its model (a key, or undefined to fall through). */
type StatementGen = (index: number) => Gen<string | undefined>;

const key = fc.constantFrom(...KEYS);

const guardedReturn: fc.Arbitrary<StatementGen> = fc.tuple(boolExpr, key).map(([condition, k]) => () => ({
  code: `if ${condition.code} {\n\treturn ${quote(k)}\n}`,
  model: (ctx, l) => (condition.model(ctx, l) ? k : undefined),
}));

const elseIfChain: fc.Arbitrary<StatementGen> = fc.tuple(boolExpr, key, boolExpr, key).map(([c1, k1, c2, k2]) => () => ({
  code: `if ${c1.code} {\n\treturn ${quote(k1)}\n} else if ${c2.code} {\n\treturn ${quote(k2)}\n}`,
  model: (ctx, l) => (c1.model(ctx, l) ? k1 : c2.model(ctx, l) ? k2 : undefined),
}));

const switchStatement: fc.Arbitrary<StatementGen> = fc
  .tuple(stringExpr, fc.uniqueArray(fc.constantFrom(...LITERALS), { minLength: 1, maxLength: 5 }), fc.array(key, { minLength: 5, maxLength: 5 }))
  .map(
    ([tag, values, keys]) =>
      () =>
        switchOver(tag, values, keys, null),
  );

/** A switch over string literals; with a default it returns on every path, so it can only come last. */
function switchOver(tag: Gen<string>, values: string[], keys: string[], fallbackKey: string | null): Gen<string | undefined> {
  {
    const clauses = values.map((v, i) => `case ${quote(v)}:\n\treturn ${quote(keys[i])}`);
    if (fallbackKey !== null) clauses.push(`default:\n\treturn ${quote(fallbackKey)}`);
    return {
      code: `switch ${tag.code} {\n${clauses.join('\n')}\n}`,
      model: (ctx, l) => {
        const value = tag.model(ctx, l);
        const index = values.indexOf(value);
        return index >= 0 ? keys[index] : (fallbackKey ?? undefined);
      },
    };
  }
}

const localVariable: fc.Arbitrary<StatementGen> = fc
  .tuple(stringExpr, fc.constantFrom(...LITERALS), boolExpr, key)
  .map(([value, literal, condition, k]) => (index) => {
    const name = `v${index}`;
    return {
      code: `${name} := ${value.code}\nif ${name} == ${quote(literal)} || ${condition.code} {\n\treturn ${quote(k)}\n}`,
      model: (ctx, l) => {
        l.set(name, value.model(ctx, l));
        return l.get(name) === literal || condition.model(ctx, l) ? k : undefined;
      },
    };
  });

const closureCall: fc.Arbitrary<StatementGen> = fc
  .tuple(fc.uniqueArray(fc.constantFrom(...LITERALS), { minLength: 1, maxLength: 3 }), stringExpr, key)
  .map(([list, argument, k]) => (index) => {
    const name = `f${index}`;
    return {
      code: `${name} := func(p string) bool {\n\treturn oneOf(strings.ToLower(p), ${list.map(quote).join(', ')})\n}\nif ${name}(${argument.code}) {\n\treturn ${quote(k)}\n}`,
      model: (ctx, l) => (list.includes(goLower(argument.model(ctx, l))) ? k : undefined),
    };
  });

const finalReturn: fc.Arbitrary<Gen<string | undefined>> = fc.oneof(
  { arbitrary: key.map((k) => ({ code: `return ${quote(k)}`, model: () => k })), weight: 4 },
  // A computed key (a bare literal here would be an invalid route key such as "US").
  stringExpr
    .filter((s) => !s.code.startsWith('"'))
    .map((s) => ({ code: `return ${s.code}`, model: (ctx: ModelContext, l: Map<string, unknown>) => s.model(ctx, l) })),
  fc
    .tuple(stringExpr, fc.uniqueArray(fc.constantFrom(...LITERALS), { minLength: 1, maxLength: 5 }), fc.array(key, { minLength: 5, maxLength: 5 }), key)
    .map(([tag, values, keys, fallbackKey]) => switchOver(tag, values, keys, fallbackKey)),
);

interface GeneratedScript {
  code: string;
  expectedKey: (ctx: ModelContext) => string;
}

const script: fc.Arbitrary<GeneratedScript> = fc
  .tuple(fc.array(fc.oneof(guardedReturn, elseIfChain, switchStatement, localVariable, closureCall), { maxLength: 6 }), finalReturn)
  .map(([statements, last]) => {
    const parts = statements.map((make, i) => make(i));
    return {
      code: [...parts.map((p) => p.code), last.code].join('\n'),
      expectedKey: (ctx) => {
        const locals = new Map<string, unknown>();
        try {
          for (const part of parts) {
            const result = part.model(ctx, locals);
            if (result !== undefined) return ROUTE_KEY_PATTERN.test(result) ? result : 'default';
          }
          const result = last.model(ctx, locals) as string;
          return ROUTE_KEY_PATTERN.test(result) ? result : 'default';
        } catch (error) {
          if (error instanceof ModelFailure) return 'default';
          throw error;
        }
      },
    };
  });

// ---- contexts ------------------------------------------------------------------------------------

const attributeValue = fc.oneof(
  { arbitrary: fc.constantFrom(...LITERALS, 'US', 'mobile', 'https://www.google.com/'), weight: 3 },
  fc.string(),
  fc.string({ unit: 'binary' }),
);

const context: fc.Arbitrary<ModelContext> = fc.record({
  visitor: fc.record(
    {
      country: attributeValue,
      city: attributeValue,
      deviceType: attributeValue,
      browser: attributeValue,
      userAgent: attributeValue,
      referrer: attributeValue,
      initialReferrer: attributeValue,
      utcOffsetHours: fc.oneof(fc.integer({ min: -12, max: 14 }), fc.integer({ min: -40, max: 40 }), fc.double(), fc.constant(undefined)),
    },
    { requiredKeys: [] },
  ),
  trackingFields: fc.option(fc.record({ src: attributeValue }, { requiredKeys: [] }), { nil: undefined }),
  dataBuffer: fc.option(fc.record({ plan: attributeValue }, { requiredKeys: [] }), { nil: undefined }),
  visitorTags: fc.subarray(TAGS),
  // Mostly plausible instants; also the far ends of the Date range (a day inside it, so the model's own
  // Date arithmetic at an offset stays valid) and Invalid Date.
  now: fc.oneof(
    { arbitrary: fc.date({ min: new Date('1950-01-01T00:00:00Z'), max: new Date('2150-01-01T00:00:00Z'), noInvalidDate: true }), weight: 8 },
    fc.date({ min: new Date(-8.64e15 + 86_400_000), max: new Date(8.64e15 - 86_400_000), noInvalidDate: true }),
    fc.constant(new Date(Number.NaN)),
  ),
});

const asEvaluationContext = (ctx: ModelContext): EvaluationContext => ctx as unknown as EvaluationContext;

function expectWellFormed(result: ValidationResult, code: unknown): void {
  expect(typeof result.valid).toBe('boolean');
  expect(result.valid).toBe(result.errors.length === 0);
  const lineCount = typeof code === 'string' ? code.split('\n').length : 1;
  for (const diagnostic of [...result.errors, ...result.warnings]) {
    expect(Object.keys(DIAGNOSTIC_CODES)).toContain(diagnostic.code);
    expect(Number.isInteger(diagnostic.line) && diagnostic.line >= 1 && diagnostic.line <= lineCount).toBe(true);
    expect(Number.isInteger(diagnostic.column) && diagnostic.column >= 1).toBe(true);
    expect(diagnostic.message.length).toBeGreaterThan(0);
  }
  for (const k of result.routeKeys) expect(k).toMatch(ROUTE_KEY_PATTERN);
  expect(new Set(result.routeKeys).size).toBe(result.routeKeys.length);
}

// ---- properties ----------------------------------------------------------------------------------

describe('generated scripts', () => {
  it('are valid, and the evaluator agrees with the model on any context', () => {
    fc.assert(
      fc.property(script, fc.array(context, { minLength: 1, maxLength: 4 }), (generated, contexts) => {
        const compiled = compile(generated.code);
        if (!compiled.ok) throw new Error(`generated script rejected:\n${generated.code}\n${JSON.stringify(compiled.result.errors)}`);
        for (const ctx of contexts) {
          const result = evaluate(compiled.script, asEvaluationContext(ctx));
          expect(result.routeKey).toBe(generated.expectedKey(ctx));
          expect(result.routeKey === 'default' || ROUTE_KEY_PATTERN.test(result.routeKey)).toBe(true);
          expect(result.fallback).toBe(result.reasonCode !== 'RETURNED');
        }
      }),
      { numRuns: 300 },
    );
  });

  it('list their literal keys as route keys', () => {
    fc.assert(
      fc.property(script, (generated) => {
        const result = validate(generated.code);
        const returned = [...generated.code.matchAll(/return "([^"]*)"/g)].map((m) => m[1]);
        expect(result.routeKeys).toEqual([...new Set(returned)]);
      }),
    );
  });
});

describe('the validator never throws', () => {
  const tokenSoup = fc.string({
    unit: fc.constantFrom(
      'if ',
      'else ',
      'switch ',
      'case ',
      'default',
      ':',
      'return ',
      'func',
      '(',
      ')',
      '{',
      '}',
      '[',
      ']',
      '"a"',
      '`b`',
      'x',
      ':=',
      '=',
      '==',
      '&&',
      '!',
      ',',
      '...',
      '\n',
      ' ',
      'country',
      'oneOf',
      'strings.',
      'ToLower',
      '1',
      '-',
      '+',
      '//',
      '/*',
      '*/',
      'var ',
      'for ',
      'go ',
      ';',
    ),
    maxLength: 80,
  });

  it.each([
    ['ASCII-ish strings', fc.string({ maxLength: 300 })],
    ['any UTF-16 strings', fc.string({ unit: 'binary', maxLength: 300 })],
    ['token soup', tokenSoup],
  ])('on %s', (_name, arbitrary) => {
    fc.assert(
      fc.property(arbitrary, (code) => {
        expectWellFormed(validate(code), code);
      }),
      { numRuns: 400 },
    );
  });

  it('on values that are not strings', () => {
    fc.assert(
      fc.property(
        fc.anything().filter((v) => typeof v !== 'string'),
        (value) => {
          const result = validate(value);
          expect(result.valid).toBe(false);
          expect(result.errors.map((e) => e.code)).toEqual(['INVALID_INPUT']);
        },
      ),
    );
  });

  const mutation = fc.oneof(
    fc.record({ kind: fc.constant('delete' as const), at: fc.nat(), length: fc.integer({ min: 1, max: 12 }) }),
    fc.record({ kind: fc.constant('insert' as const), at: fc.nat(), text: fc.oneof(tokenSoup, fc.string({ maxLength: 4 })) }),
    fc.record({ kind: fc.constant('duplicate' as const), at: fc.nat(), length: fc.integer({ min: 1, max: 30 }) }),
  );

  function mutate(code: string, mutations: { kind: 'delete' | 'insert' | 'duplicate'; at: number; length?: number; text?: string }[]): string {
    let result = code;
    for (const m of mutations) {
      const at = result.length === 0 ? 0 : m.at % (result.length + 1);
      if (m.kind === 'delete') result = result.slice(0, at) + result.slice(at + (m.length ?? 1));
      else if (m.kind === 'insert') result = result.slice(0, at) + (m.text ?? '') + result.slice(at);
      else result = result.slice(0, at) + result.slice(at, at + (m.length ?? 1)) + result.slice(at);
    }
    return result;
  }

  const validScripts = fc.oneof(
    script.map((s) => s.code),
    fc.constantFrom(...languageCatalog.templates.map((t) => t.code)),
  );

  it('on mutated valid scripts, and whatever still validates evaluates to a route key or default', () => {
    fc.assert(
      fc.property(validScripts, fc.array(mutation, { minLength: 1, maxLength: 4 }), context, (code, mutations, ctx) => {
        const mutated = mutate(code, mutations);
        const result = validate(mutated);
        expectWellFormed(result, mutated);
        const evaluation = evaluate(mutated, asEvaluationContext(ctx));
        expect(evaluation.routeKey === 'default' || ROUTE_KEY_PATTERN.test(evaluation.routeKey)).toBe(true);
        if (!result.valid) expect(evaluation).toMatchObject({ routeKey: 'default', fallback: true, reasonCode: 'INVALID_SCRIPT' });
      }),
      { numRuns: 500 },
    );
  });
});
