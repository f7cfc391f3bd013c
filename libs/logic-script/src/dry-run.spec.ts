import { DryRunInput, MAX_DRY_RUN_PROBLEMS, dryRunProblems, evaluateCode, parseIsoDateTime, validateDryRunInput } from './dry-run';

const lines = (...parts: string[]): string => parts.join('\n');

describe('validateDryRunInput', () => {
  it('accepts a complete input', () => {
    expect(
      validateDryRunInput({
        visitor: { country: 'US', deviceType: 'mobile', utcOffsetHours: -5 },
        trackingFields: { 'sub 1': 'a', campaign: 'spring' },
        dataBuffer: { plan: 'pro' },
        visitorTags: ['t1'],
        time: '2025-03-01T18:30:00Z',
        routeKeys: ['us', 'default'],
      }),
    ).toEqual([]);
  });

  it('accepts the smallest input', () => {
    expect(validateDryRunInput({ visitor: {} })).toEqual([]);
  });

  it.each([
    [null, 'the input must be an object, got null'],
    [[], 'the input must be an object, got an array'],
    ['x', 'the input must be an object, got string'],
  ])('rejects %p as a whole', (input, problem) => {
    expect(validateDryRunInput(input)).toEqual([problem]);
  });

  it.each<[string, unknown, string]>([
    ['missing visitor', {}, 'visitor is required (an object of visitor attributes, may be empty)'],
    ['visitor not an object', { visitor: 'US' }, 'visitor must be an object, got string'],
    [
      'unknown top-level field',
      { visitor: {}, country: 'US' },
      'country is not a dry-run field; the fields are visitor, trackingFields, dataBuffer, visitorTags, time, routeKeys',
    ],
    ['unknown visitor attribute', { visitor: { Country: 'US' } }, 'visitor.Country is not a visitor attribute (did you mean country?)'],
    ['time variable set on the visitor', { visitor: { hour: 3 } }, 'visitor.hour cannot be set: it is derived from time; set time instead'],
    ['non-string attribute', { visitor: { country: 1 } }, 'visitor.country must be a string, got number'],
    ['over-long attribute', { visitor: { userAgent: 'x'.repeat(4097) } }, 'visitor.userAgent is longer than 4096 characters'],
    ['offset out of range', { visitor: { utcOffsetHours: 15 } }, 'visitor.utcOffsetHours must be a whole number from -12 to 14'],
    ['fractional offset', { visitor: { utcOffsetHours: 5.5 } }, 'visitor.utcOffsetHours must be a whole number from -12 to 14'],
    ['trackingFields not an object', { visitor: {}, trackingFields: ['a'] }, 'trackingFields must be an object of names to strings, got an array'],
    [
      'invalid tracking field name',
      { visitor: {}, trackingFields: { 'a.b': 'x' } },
      'trackingFields name "a.b" must be 1 to 64 letters, digits, underscores, spaces or hyphens',
    ],
    ['non-string data buffer value', { visitor: {}, dataBuffer: { plan: 3 } }, 'dataBuffer["plan"] must be a string, got number'],
    ['visitorTags not an array', { visitor: {}, visitorTags: 't1' }, 'visitorTags must be an array of tag ids, got string'],
    ['empty tag', { visitor: {}, visitorTags: ['t1', ''] }, 'visitorTags[1] must be a non-empty string'],
    [
      'time without a zone',
      { visitor: {}, time: '2025-03-01T18:30:00' },
      'time must be an ISO 8601 date-time with a zone, e.g. 2025-03-01T18:30:00Z or 2025-03-01T13:30:00-05:00',
    ],
    [
      'impossible date',
      { visitor: {}, time: '2025-02-30T10:00:00Z' },
      'time must be an ISO 8601 date-time with a zone, e.g. 2025-03-01T18:30:00Z or 2025-03-01T13:30:00-05:00',
    ],
    [
      'time not a string',
      { visitor: {}, time: 1700000000 },
      'time must be an ISO 8601 date-time with a zone, e.g. 2025-03-01T18:30:00Z or 2025-03-01T13:30:00-05:00',
    ],
    ['invalid route key', { visitor: {}, routeKeys: ['ok', 'Not-OK'] }, 'routeKeys[1] must match ^[a-z0-9_]{1,64}$'],
  ])('reports %s', (_title, input, problem) => {
    expect(validateDryRunInput(input)).toEqual([problem]);
  });

  it('reports every problem at once', () => {
    expect(validateDryRunInput({ visitor: { country: 1, utcOffsetHours: 99 }, time: 'now', routeKeys: 'us' })).toHaveLength(4);
  });

  it('limits the number of entries', () => {
    const many = Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`f${i}`, 'x']));
    expect(validateDryRunInput({ visitor: {}, trackingFields: many })).toEqual(['trackingFields has more than 100 entries']);
  });
});

describe('parseIsoDateTime', () => {
  it('parses zones and fractions', () => {
    expect(parseIsoDateTime('2025-03-01T13:30:00-05:00')?.toISOString()).toBe('2025-03-01T18:30:00.000Z');
    expect(parseIsoDateTime('2025-03-01T18:30Z')?.toISOString()).toBe('2025-03-01T18:30:00.000Z');
    expect(parseIsoDateTime('2024-02-29T23:59:59.123+01:00')?.toISOString()).toBe('2024-02-29T22:59:59.123Z');
  });

  it.each(['2025-13-01T00:00:00Z', '2023-02-29T00:00:00Z', '2025-03-01T24:00:00Z', '2025-03-01', 'yesterday', '2025-03-01T10:00:00+15:00'])(
    'rejects %s',
    (text) => {
      expect(parseIsoDateTime(text)).toBeNull();
    },
  );
});

describe('evaluateCode', () => {
  const code = lines(
    'if timeInRange(900, 1700, utcOffsetHours) && country == "US" {',
    '\treturn "us_open"',
    '}',
    'if hasVisitorTag("vip") {',
    '\treturn "vip"',
    '}',
    'return "default"',
  );
  const input: DryRunInput = { visitor: { country: 'US', utcOffsetHours: -5 }, time: '2025-03-03T15:00:00Z' };

  it('evaluates with the given time and visitor, and returns the validation result', () => {
    expect(evaluateCode(code, input)).toEqual({
      routeKey: 'us_open',
      fallback: false,
      reason: 'the script returned "us_open"',
      reasonCode: 'RETURNED',
      valid: true,
      routeKeys: ['us_open', 'vip', 'default'],
      errors: [],
      warnings: [],
    });
    expect(evaluateCode(code, { ...input, time: '2025-03-03T23:00:00Z' }).routeKey).toBe('default');
    expect(evaluateCode(code, { ...input, visitorTags: ['vip'], time: '2025-03-03T23:00:00Z' }).routeKey).toBe('vip');
  });

  it('uses the given clock when the input has no time', () => {
    expect(evaluateCode(code, { visitor: input.visitor }, { now: new Date('2025-03-03T15:00:00Z') }).routeKey).toBe('us_open');
    expect(evaluateCode(code, { visitor: input.visitor }, { now: new Date('2025-03-03T02:00:00Z') }).routeKey).toBe('default');
  });

  it('checks the key against the node connections', () => {
    expect(evaluateCode(code, { ...input, routeKeys: ['vip', 'default'] })).toMatchObject({
      routeKey: 'default',
      fallback: true,
      reasonCode: 'UNKNOWN_ROUTE_KEY',
    });
  });

  it('returns the validation errors of an invalid script with the fallback', () => {
    const result = evaluateCode('for {}\nreturn "x"', input);
    expect(result).toMatchObject({ routeKey: 'default', fallback: true, reasonCode: 'INVALID_SCRIPT', valid: false });
    expect(result.errors.map((e) => `${e.code}@${e.line}:${e.column}`)).toEqual(['FORBIDDEN_LOOP@1:1']);
    expect(result.reason).toContain('line 1, column 1');
  });

  it('returns warnings of a valid script', () => {
    expect(evaluateCode('return strings.ToLower(country)', input)).toMatchObject({
      routeKey: 'us',
      valid: true,
      warnings: [expect.objectContaining({ code: 'NON_LITERAL_ROUTE_KEY' })],
    });
  });

  it('does not throw on an invalid input, and says what is wrong', () => {
    const result = evaluateCode(code, { visitor: { country: 7 } } as unknown as DryRunInput);
    expect(result).toMatchObject({ routeKey: 'default', fallback: true, reasonCode: 'INVALID_CONTEXT', valid: true });
    expect(result.reason).toContain('visitor.country must be a string');
    expect(evaluateCode(42 as unknown as string, input)).toMatchObject({
      routeKey: 'default',
      valid: false,
      errors: [expect.objectContaining({ code: 'INVALID_INPUT' })],
    });
  });
});

describe('dryRunProblems', () => {
  it('names the field and the rule of each problem', () => {
    expect(dryRunProblems({ visitor: { country: 1 }, routeKeys: ['ok', ''] })).toEqual([
      { field: 'visitor.country', code: 'isString', message: 'visitor.country must be a string, got number' },
      { field: 'routeKeys[1]', code: 'routeKey', message: expect.stringMatching(/^routeKeys\[1\] must match/) },
    ]);
    expect(dryRunProblems({})).toEqual([{ field: 'visitor', code: 'required', message: expect.stringMatching(/^visitor is required/) }]);
  });

  it(`reports at most ${MAX_DRY_RUN_PROBLEMS} problems`, () => {
    expect(dryRunProblems({ visitor: {}, routeKeys: Array.from({ length: 10_000 }, () => '') })).toHaveLength(MAX_DRY_RUN_PROBLEMS);
  });
});
