import { decideMiddlewareAnswer, matchMiddlewareRoute, ruleHolds, type MiddlewareRouteLike, type MiddlewareRouteRule } from './match-answer';

const json = (body: unknown, status = 200) => ({ status, body: JSON.stringify(body) });
const holds = (rule: MiddlewareRouteRule, answer: { status: number; body: string }) => ruleHolds(rule, answer);

describe('middleware route rules', () => {
  const answer = json({ verdict: 'allow', score: 72, tier: '3', vip: true, tags: ['eu', 'mobile'], offer: { items: [{ id: 'o-1' }] }, none: null });

  it.each<[string, MiddlewareRouteRule, boolean]>([
    ['is: equal text', { field: 'body_json.verdict', operator: 'is', value: 'allow' }, true],
    ['is: other text', { field: 'body_json.verdict', operator: 'is', value: 'block' }, false],
    ['is: a number equals text reading as it', { field: 'body_json.tier', operator: 'is', value: 3 }, true],
    ['is: text equals a number written so', { field: 'body_json.score', operator: 'is', value: '72' }, true],
    ['is: a boolean', { field: 'body_json.vip', operator: 'is', value: true }, true],
    ['is: a missing field never equals', { field: 'body_json.missing', operator: 'is', value: 'x' }, false],
    ['is: an array item by index', { field: 'body_json.offer.items.0.id', operator: 'is', value: 'o-1' }, true],
    ['is: an index past the end', { field: 'body_json.offer.items.4.id', operator: 'is', value: 'o-1' }, false],
    ['isNot: other text', { field: 'body_json.verdict', operator: 'isNot', value: 'block' }, true],
    ['isNot: equal text', { field: 'body_json.verdict', operator: 'isNot', value: 'allow' }, false],
    ['isNot: a missing field', { field: 'body_json.missing', operator: 'isNot', value: 'x' }, true],
    ['contains: part of text', { field: 'body_json.verdict', operator: 'contains', value: 'llo' }, true],
    ['contains: an array item', { field: 'body_json.tags', operator: 'contains', value: 'mobile' }, true],
    ['contains: not in the array', { field: 'body_json.tags', operator: 'contains', value: 'us' }, false],
    ['contains: a number is not text', { field: 'body_json.score', operator: 'contains', value: '7' }, false],
    ['exists: present', { field: 'body_json.offer', operator: 'exists' }, true],
    ['exists: null is absent', { field: 'body_json.none', operator: 'exists' }, false],
    ['exists: missing', { field: 'body_json.nope.deeper', operator: 'exists' }, false],
    ['gt: above', { field: 'body_json.score', operator: 'gt', value: 70 }, true],
    ['gt: equal is not above', { field: 'body_json.score', operator: 'gt', value: 72 }, false],
    ['lt: numeric text', { field: 'body_json.tier', operator: 'lt', value: 5 }, true],
    ['lt: not a number', { field: 'body_json.verdict', operator: 'lt', value: 5 }, false],
    ['status_code is', { field: 'status_code', operator: 'is', value: 200 }, true],
    ['status_code gt', { field: 'status_code', operator: 'gt', value: 299 }, false],
    ['body_json itself exists', { field: 'body_json', operator: 'exists' }, true],
  ])('%s', (_what, rule, expected) => {
    expect(holds(rule, answer)).toBe(expected);
  });

  it('reads a body that is not JSON as having no fields', () => {
    const text = { status: 200, body: 'allow' };
    expect(holds({ field: 'body_json', operator: 'exists' }, text)).toBe(false);
    expect(holds({ field: 'body_json.verdict', operator: 'isNot', value: 'allow' }, text)).toBe(true);
    expect(holds({ field: 'status_code', operator: 'lt', value: 300 }, text)).toBe(true);
  });
});

describe('matchMiddlewareRoute', () => {
  const routes: MiddlewareRouteLike[] = [
    { idRoute: 'default', priority: 0, isDefault: true },
    { idRoute: 'review', priority: 20, rules: [{ field: 'body_json.score', operator: 'gt', value: 50 }] },
    {
      idRoute: 'fraud',
      priority: 10,
      rules: [
        { field: 'body_json.verdict', operator: 'is', value: 'block' },
        { field: 'body_json.score', operator: 'gt', value: 90 },
      ],
    },
    { idRoute: 'named', priority: 30 },
    { idRoute: 'down', priority: 40, rules: [{ field: 'status_code', operator: 'is', value: 503 }] },
  ];

  it('takes the first route by ascending priority whose rules all hold', () => {
    expect(matchMiddlewareRoute(routes, json({ verdict: 'block', score: 95 }))).toBe('fraud');
    expect(matchMiddlewareRoute(routes, json({ verdict: 'block', score: 60 }))).toBe('review');
    expect(matchMiddlewareRoute(routes, json({ verdict: 'allow', score: 10 }))).toBeNull();
  });

  it('takes a route without rules when a 2xx answer names it, never the default by name', () => {
    expect(matchMiddlewareRoute(routes, json({ route: 'named' }))).toBe('named');
    expect(matchMiddlewareRoute(routes, json({ route: 'named' }, 500))).toBeNull();
    expect(matchMiddlewareRoute(routes, json({ route: 'default' }))).toBeNull();
  });

  it('matches status rules on any status, and a route of body rules only on a 2xx answer', () => {
    expect(matchMiddlewareRoute(routes, { status: 503, body: 'busy' })).toBe('down');
    expect(matchMiddlewareRoute(routes, json({ verdict: 'block', score: 95 }, 500))).toBeNull();
  });
});

describe('decideMiddlewareAnswer', () => {
  const routes: MiddlewareRouteLike[] = [{ idRoute: 'vip', priority: 1, rules: [{ field: 'body_json.vip', operator: 'is', value: true }] }];

  it('answers the matched route', () => {
    expect(decideMiddlewareAnswer(routes, { kind: 'answered', answer: json({ vip: true }) })).toEqual({
      answer: { routeId: 'vip' },
      matchedRouteId: 'vip',
      defaultReason: null,
    });
  });

  it.each([
    ['a 2xx answer no route takes', { kind: 'answered' as const, answer: json({ vip: false }) }, 'noMatch'],
    ['a 500 no route takes', { kind: 'answered' as const, answer: json({ vip: true }, 500), error: 'HTTP 500' }, 'failure'],
    ['no answer in time', { kind: 'timeout' as const, error: 'timed out after 100 ms' }, 'timeout'],
    ['no connection', { kind: 'failure' as const, error: 'connection failed' }, 'failure'],
    ['too many calls waiting', { kind: 'overloaded' as const, error: 'overloaded' }, 'overloaded'],
  ])('takes the default on %s, saying why', (_what, outcome, reason) => {
    const decision = decideMiddlewareAnswer(routes, outcome);
    expect(decision.defaultReason).toBe(reason);
    expect(decision.matchedRouteId).toBeNull();
    expect('failure' in decision.answer).toBe(true);
  });
});
