import { INTEGER_VARIABLE_NAMES, readVariable, STRING_VARIABLE_NAMES, TIME_VARIABLE_NAMES, VARIABLES } from './variables';
import { VisitorContext } from './visitor-context';

const at = (iso: string): Date => new Date(iso);

describe('the visitor variables', () => {
  it('are the string attributes, then the time-derived integers and the visitor offset', () => {
    expect(STRING_VARIABLE_NAMES[0]).toBe('country');
    expect(STRING_VARIABLE_NAMES[STRING_VARIABLE_NAMES.length - 1]).toBe('trafficSourceID');
    expect(INTEGER_VARIABLE_NAMES).toEqual(['hour', 'minute', 'weekday', 'dayOfMonth', 'month', 'year', 'utcOffsetHours']);
    expect(TIME_VARIABLE_NAMES).not.toContain('utcOffsetHours');
    expect(VARIABLES).toHaveLength(STRING_VARIABLE_NAMES.length + INTEGER_VARIABLE_NAMES.length);
  });

  it('read a string attribute as it is, "" when missing or not a string', () => {
    const context = VisitorContext.of({ visitor: { city: 'Berlin', region: 7 as unknown as string }, now: at('2025-01-01T00:00:00Z') });
    expect(readVariable(context, 'city')).toBe('Berlin');
    expect(readVariable(context, 'region')).toBe('');
    expect(readVariable(context, 'country')).toBe('');
  });

  it('read referrer falling back to initialReferrer', () => {
    const context = VisitorContext.of({ visitor: { referrer: '', initialReferrer: 'https://a.example/' }, now: at('2025-01-01T00:00:00Z') });
    expect(readVariable(context, 'referrer')).toBe('https://a.example/');
  });

  it('derive the time variables from the instant in UTC, whatever the visitor offset', () => {
    const context = VisitorContext.of({ visitor: { utcOffsetHours: 5 }, now: at('2024-02-29T23:59:30Z') });
    const values = Object.fromEntries(INTEGER_VARIABLE_NAMES.map((name) => [name, readVariable(context, name)]));
    expect(values).toEqual({ hour: 23, minute: 59, weekday: 4, dayOfMonth: 29, month: 2, year: 2024, utcOffsetHours: 5 });
  });

  it('are undefined for a name that is no variable', () => {
    expect(readVariable(VisitorContext.of({ now: new Date() }), 'constructor')).toBeUndefined();
  });
});

describe('VisitorContext', () => {
  const now = at('2025-01-01T00:00:00Z');

  it('reads tracking fields and data buffer values as own string properties only', () => {
    const context = VisitorContext.of({ trackingFields: { sub1: 'a' }, dataBuffer: { plan: 'pro' }, now });
    expect(context.trackingField('sub1')).toBe('a');
    expect(context.trackingField('constructor')).toBe('');
    expect(context.dataBufferValue('plan')).toBe('pro');
    expect(context.dataBufferValue('missing')).toBe('');
  });

  it('holds the tags of an array, a set or any iterable, and none without tags', () => {
    expect(VisitorContext.of({ visitorTags: ['a'], now }).hasVisitorTag('a')).toBe(true);
    expect(VisitorContext.of({ visitorTags: new Set(['a']), now }).hasVisitorTag('a')).toBe(true);
    expect(VisitorContext.of({ visitorTags: new Map([['a', 1]]).keys(), now }).hasVisitorTag('a')).toBe(true);
    expect(VisitorContext.of({ now }).hasVisitorTag('a')).toBe(false);
  });

  it('fails to read the clock when the time is invalid', () => {
    expect(() => VisitorContext.of({ now: new Date('nonsense') }).now()).toThrow('the current time is missing or invalid');
  });
});
