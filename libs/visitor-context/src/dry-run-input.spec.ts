import { dryRunInstant, parseIsoDateTime, validateDryRunInput, visitorContextOf } from './dry-run-input';

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

describe('dry-run input problems are bounded', () => {
  it('reports at most 20 problems and counts the rest, for 10,000 unknown visitor keys', () => {
    const visitor = Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`unknownKey${i}`, 'x']));
    const problems = validateDryRunInput({ visitor });
    expect(problems).toHaveLength(21);
    expect(problems[0]).toBe('visitor.unknownKey0 is not a visitor attribute');
    expect(problems[20]).toBe('and 9980 more problems');
  });

  it('never echoes more than 64 characters of a client-chosen name', () => {
    const name = 'n'.repeat(100_000);
    const [problem] = validateDryRunInput({ visitor: { [name]: 'x' } });
    expect(problem).toBe(`visitor.${'n'.repeat(64)}… is not a visitor attribute`);
  });
});

describe('the context of a dry-run input', () => {
  it('is at the input time when it has one, else at the given clock', () => {
    expect(dryRunInstant({ visitor: {}, time: '2025-03-01T13:30:00-05:00' }, new Date(0)).toISOString()).toBe('2025-03-01T18:30:00.000Z');
    expect(dryRunInstant({ visitor: {} }, new Date('2025-01-02T03:04:05Z')).toISOString()).toBe('2025-01-02T03:04:05.000Z');
  });

  it('reads the visitor, tracking fields, data buffer and tags of the input', () => {
    const context = visitorContextOf({
      visitor: { country: 'US', utcOffsetHours: -5 },
      trackingFields: { campaign: 'spring' },
      dataBuffer: { plan: 'pro' },
      visitorTags: ['vip'],
      time: '2025-03-01T18:30:00Z',
    });
    expect(context.visitorString('country')).toBe('US');
    expect(context.visitorUtcOffsetHours()).toBe(-5);
    expect(context.trackingField('campaign')).toBe('spring');
    expect(context.dataBufferValue('plan')).toBe('pro');
    expect(context.hasVisitorTag('vip')).toBe(true);
    expect(context.hasVisitorTag('other')).toBe(false);
    expect(context.now()).toBe(Date.parse('2025-03-01T18:30:00Z'));
  });
});
