import { DryRunInput, dryRunProblems, evaluateCode } from './dry-run';

const lines = (...parts: string[]): string => parts.join('\n');

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

  it('reports at most 20 problems, then counts the rest', () => {
    const problems = dryRunProblems({ visitor: {}, routeKeys: Array.from({ length: 10_000 }, () => '') });
    expect(problems).toHaveLength(21);
    expect(problems[20]).toEqual({ field: '', code: 'moreProblems', message: 'and 9981 more problems' });
  });
});
