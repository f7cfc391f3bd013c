import { MiddlewareConfigDto, SECRET_PLACEHOLDER, validateBody } from '@funnel/contracts';
import type { AssetRecord } from '../asset-events';
import { headerProblems } from './http-rules';
import { KIND_RULES } from './index';

const rules = KIND_RULES.middlewareconfig;
const config = (fields: Record<string, unknown> = {}, destination: Record<string, unknown> = {}) => ({
  idMiddlewareConfig: 'AAAAAAAAAAAA',
  middlewareConfigName: 'Fraud check',
  routes: [
    { idRoute: 'fraud', priority: 1 },
    { idRoute: 'review', priority: 2 },
  ],
  destination: { url: 'https://mw.example.com/check', ...destination },
  ...fields,
});
/** DTO problems, else the kind's own; each as `field:code`. */
const problemsOf = (body: Record<string, unknown>) => {
  let dto: object;
  try {
    dto = validateBody(MiddlewareConfigDto, body);
  } catch (error) {
    return (error as { details: { field: string; code: string }[] }).details.map((d) => `${d.field}:${d.code}`);
  }
  return rules.check!({ status: 'active', ...JSON.parse(JSON.stringify(dto)) } as AssetRecord).map((p) => `${p.field}:${p.code}`);
};
const stored = (body: Record<string, unknown>) => {
  const record = { status: 'active', ...JSON.parse(JSON.stringify(validateBody(MiddlewareConfigDto, body))) } as AssetRecord;
  expect(rules.check!(record)).toEqual([]);
  return rules.normalize!(record, null);
};

describe('middleware config routes', () => {
  it('given routes without a default, when stored, then the default route is added first and the others follow by ascending priority', () => {
    const record = stored(
      config({
        routes: [
          { idRoute: 'late', priority: 200 },
          { idRoute: 'early', priority: 3, isDefault: false },
          { idRoute: 'mid', priority: 50 },
        ],
      }),
    );
    expect(record.routes).toEqual([
      { idRoute: 'default', priority: 0, isDefault: true },
      { idRoute: 'early', priority: 3, isDefault: false },
      { idRoute: 'mid', priority: 50, isDefault: false },
      { idRoute: 'late', priority: 200, isDefault: false },
    ]);
    expect(record.schemaVersion).toBe(1);
  });

  it('given no routes at all, then the config has the default route only', () => {
    expect(stored(config({ routes: undefined })).routes).toEqual([{ idRoute: 'default', priority: 0, isDefault: true }]);
    expect(stored(config({ routes: [] })).routes).toEqual([{ idRoute: 'default', priority: 0, isDefault: true }]);
  });

  it.each([
    ['marked and named', { idRoute: 'default', priority: 0, isDefault: true }],
    ['named only', { idRoute: 'default' }],
    ['marked, without priority', { idRoute: 'default', isDefault: true }],
  ])('given the default route %s, then it is kept once', (_what, route) => {
    const record = stored(config({ routes: [{ idRoute: 'a', priority: 1 }, route] }));
    expect(record.routes).toEqual([
      { idRoute: 'default', priority: 0, isDefault: true },
      { idRoute: 'a', priority: 1, isDefault: false },
    ]);
  });

  it.each([
    ['two default routes', [{ idRoute: 'default' }, { idRoute: 'default', isDefault: true }], ['routes[1].isDefault:unique']],
    ['a default route with another id', [{ idRoute: 'main', isDefault: true }], ['routes[0].idRoute:defaultRoute']],
    ['a default route with a priority', [{ idRoute: 'default', priority: 4 }], ['routes[0].priority:defaultRoute']],
    ['"default" marked as not the default', [{ idRoute: 'default', isDefault: false }], ['routes[0].isDefault:defaultRoute']],
    [
      'a repeated id',
      [
        { idRoute: 'a', priority: 1 },
        { idRoute: 'a', priority: 2 },
      ],
      ['routes[1].idRoute:unique'],
    ],
    [
      'a repeated priority',
      [
        { idRoute: 'a', priority: 7 },
        { idRoute: 'b', priority: 7 },
      ],
      ['routes[1].priority:unique'],
    ],
    ['a route without priority', [{ idRoute: 'a' }], ['routes[0].priority:required']],
    ['priority 0 for another route', [{ idRoute: 'a', priority: 0 }], ['routes[0].priority:min']],
    ['uppercase in a route key', [{ idRoute: 'Fraud', priority: 1 }], ['routes[0].idRoute:pattern']],
    ['a dash in a route key', [{ idRoute: 'a-b', priority: 1 }], ['routes[0].idRoute:pattern']],
    ['an empty route key', [{ idRoute: '', priority: 1 }], ['routes[0].idRoute:pattern']],
  ])('refuses %s', (_what, routes, expected) => expect(problemsOf(config({ routes }))).toEqual(expected));

  it.each([
    ['priority 256', { idRoute: 'a', priority: 256 }, 'routes.0.priority:max'],
    ['a fractional priority', { idRoute: 'a', priority: 1.5 }, 'routes.0.priority:isInt'],
    ['a 65-character id', { idRoute: 'a'.repeat(65), priority: 1 }, 'routes.0.idRoute:maxLength'],
    ['isDefault as text', { idRoute: 'a', priority: 1, isDefault: 'yes' }, 'routes.0.isDefault:isBoolean'],
  ])('refuses %s (shape)', (_what, route, expected) => expect(problemsOf(config({ routes: [route] }))).toEqual([expected]));

  it('accepts priorities 1 and 255 and route keys of 64 characters', () => {
    expect(
      problemsOf(
        config({
          routes: [
            { idRoute: 'a'.repeat(64), priority: 255 },
            { idRoute: 'b_2', priority: 1 },
          ],
        }),
      ),
    ).toEqual([]);
  });

  it('allows 64 routes with the default, not 65', () => {
    const others = (n: number) => Array.from({ length: n }, (_, i) => ({ idRoute: `r${i}`, priority: i + 1 }));
    expect(problemsOf(config({ routes: others(63) }))).toEqual([]);
    expect(problemsOf(config({ routes: [...others(63), { idRoute: 'default' }] }))).toEqual([]);
    expect(problemsOf(config({ routes: others(64) }))).toEqual(['routes:arrayMaxSize']);
    expect(problemsOf(config({ routes: [...others(64), { idRoute: 'default' }] }))).toEqual(['routes:arrayMaxSize']);
  });
});

describe('middleware config route rules', () => {
  const withRules = (...rules: unknown[]) => config({ routes: [{ idRoute: 'vip', priority: 1, rules }] });

  it('stores rules with their routes, in priority order, and leaves routes without rules as they were', () => {
    const record = stored(
      config({
        routes: [
          { idRoute: 'late', priority: 9 },
          {
            idRoute: 'vip',
            priority: 2,
            rules: [
              { field: 'body_json.tier', operator: 'is', value: 'gold' },
              { field: 'status_code', operator: 'lt', value: 300 },
            ],
          },
        ],
      }),
    );
    expect(record.routes).toEqual([
      { idRoute: 'default', priority: 0, isDefault: true },
      {
        idRoute: 'vip',
        priority: 2,
        isDefault: false,
        rules: [
          { field: 'body_json.tier', operator: 'is', value: 'gold' },
          { field: 'status_code', operator: 'lt', value: 300 },
        ],
      },
      { idRoute: 'late', priority: 9, isDefault: false },
    ]);
  });

  it.each([
    ['exists without a value', { field: 'body_json.offer.items.0', operator: 'exists' }],
    ['contains with text', { field: 'body_json.tags', operator: 'contains', value: 'eu' }],
    ['is with a boolean', { field: 'body_json.vip', operator: 'is', value: true }],
    ['isNot with a number', { field: 'body_json', operator: 'isNot', value: 3 }],
    ['gt with a decimal', { field: 'body_json.score', operator: 'gt', value: 0.5 }],
    ['a status rule', { field: 'status_code', operator: 'isNot', value: 204 }],
  ])('accepts %s', (_what, rule) => expect(problemsOf(withRules(rule))).toEqual([]));

  it.each([
    ['an unknown field', { field: 'header.x', operator: 'is', value: 'a' }, 'routes[0].rules[0].field:pattern'],
    ['an empty path key', { field: 'body_json..a', operator: 'is', value: 'a' }, 'routes[0].rules[0].field:pattern'],
    ['an unknown operator', { field: 'body_json.a', operator: 'matches', value: 'a' }, 'routes.0.rules.0.operator:isIn'],
    ['is without a value', { field: 'body_json.a', operator: 'is' }, 'routes[0].rules[0].value:ruleValue'],
    ['exists with a value', { field: 'body_json.a', operator: 'exists', value: true }, 'routes[0].rules[0].value:ruleValue'],
    ['gt with text', { field: 'body_json.a', operator: 'gt', value: '5' }, 'routes[0].rules[0].value:ruleValue'],
    ['an object value', { field: 'body_json.a', operator: 'is', value: { a: 1 } }, 'routes[0].rules[0].value:ruleValue'],
    ['a status that is no status', { field: 'status_code', operator: 'is', value: 42 }, 'routes[0].rules[0].value:ruleValue'],
    ['contains on the status', { field: 'status_code', operator: 'contains', value: 200 }, 'routes[0].rules[0].operator:ruleOperator'],
    ['a value over 1,024 characters', { field: 'body_json.a', operator: 'is', value: 'x'.repeat(1025) }, 'routes[0].rules[0].value:ruleValue'],
  ])('refuses %s', (_what, rule, expected) => expect(problemsOf(withRules(rule))).toEqual([expected]));

  it('refuses rules on the default route and more than 16 rules on a route', () => {
    expect(problemsOf(config({ routes: [{ idRoute: 'default', rules: [{ field: 'status_code', operator: 'is', value: 200 }] }] }))).toEqual([
      'routes[0].rules:defaultRoute',
    ]);
    const many = Array.from({ length: 17 }, () => ({ field: 'body_json.a', operator: 'exists' }));
    expect(problemsOf(withRules(...many))).toEqual(['routes.0.rules:arrayMaxSize']);
  });
});

describe('middleware config destination', () => {
  it('given only a URL, then type http, method POST, a 5000 ms timeout and no headers are stored', () => {
    expect(stored(config()).destination).toEqual({ type: 'http', method: 'POST', url: 'https://mw.example.com/check', timeoutMs: 5000, headers: {} });
  });

  it.each([
    ['method GET', { method: 'GET' }],
    ['timeouts 1 and 10000', { timeoutMs: 1 }],
    ['a 10 s timeout', { timeoutMs: 10_000 }],
    ['an http URL with a port', { url: 'http://10.0.0.5:8080/mw' }],
    ['basic auth', { basicAuth: { username: 'svc', password: 'p' } }],
    ['basic auth without password', { basicAuth: { username: 'svc' } }],
    ['an HMAC secret of 16 characters', { hmacSecret: 's'.repeat(16) }],
    ['an HMAC secret of 256 characters', { hmacSecret: 's'.repeat(256) }],
    ['the placeholders (keep)', { hmacSecret: SECRET_PLACEHOLDER, basicAuth: { username: 'svc', password: SECRET_PLACEHOLDER } }],
    ['empty secrets (remove)', { hmacSecret: '', basicAuth: { username: 'svc', password: '' } }],
    ['null secrets (remove)', { hmacSecret: null, basicAuth: { username: 'svc', password: null } }],
    ['no basic auth (null)', { basicAuth: null }],
  ])('accepts %s', (_what, destination) => expect(problemsOf(config({}, destination))).toEqual([]));

  it.each([
    ['another type', { type: 'grpc' }, 'destination.type:isIn'],
    ['method PUT', { method: 'PUT' }, 'destination.method:isIn'],
    ['a lowercase method', { method: 'post' }, 'destination.method:isIn'],
    ['timeout 0', { timeoutMs: 0 }, 'destination.timeoutMs:min'],
    ['timeout 10001', { timeoutMs: 10_001 }, 'destination.timeoutMs:max'],
    ['a fractional timeout', { timeoutMs: 2.5 }, 'destination.timeoutMs:isInt'],
    ['a missing URL', { url: undefined }, 'destination.url:required'],
    ['a relative URL', { url: '/mw' }, 'destination.url:isUrl'],
    ['a URL with credentials', { url: 'https://u:p@mw.example.com/' }, 'destination.url:isUrl'],
    ['a ws URL', { url: 'wss://mw.example.com/' }, 'destination.url:isUrl'],
    ['a URL over 4096 characters', { url: `https://mw.example.com/${'p'.repeat(4096)}` }, 'destination.url:maxLength'],
    ['an HMAC secret of 15 characters', { hmacSecret: 's'.repeat(15) }, 'destination.hmacSecret:isLength'],
    ['an HMAC secret of 257 characters', { hmacSecret: 's'.repeat(257) }, 'destination.hmacSecret:isLength'],
    ['an HMAC secret that is not text', { hmacSecret: 1234567890123456 }, 'destination.hmacSecret:isString'],
    ['basic auth without username', { basicAuth: { password: 'p' } }, 'destination.basicAuth.username:required'],
    ['a username with a colon', { basicAuth: { username: 'a:b', password: 'p' } }, 'destination.basicAuth.username:matches'],
    ['a password over 256 characters', { basicAuth: { username: 'a', password: 'p'.repeat(257) } }, 'destination.basicAuth.password:isLength'],
    ['headers as a list', { headers: ['X-A: 1'] }, 'destination.headers:isObject'],
  ])('refuses %s', (_what, destination, expected) => expect(problemsOf(config({}, destination))).toEqual([expected]));

  it('never echoes a refused secret in the error', () => {
    try {
      validateBody(MiddlewareConfigDto, config({}, { hmacSecret: 'short-secret-1' }));
      throw new Error('expected a validation failure');
    } catch (error) {
      expect(JSON.stringify({ message: (error as Error).message, details: (error as { details: unknown }).details })).not.toContain('short-secret-1');
    }
  });

  it('given basicAuth null, then no basic auth is stored; unknown destination fields are dropped', () => {
    const destination = stored(config({}, { basicAuth: null, extra: 'x' })).destination;
    expect(destination).not.toHaveProperty('basicAuth');
    expect(destination).not.toHaveProperty('extra');
  });

  it('keeps the secret fields that were sent, for the pipeline to encrypt, keep or remove', () => {
    const destination = stored(config({}, { basicAuth: { username: 'svc', password: SECRET_PLACEHOLDER }, hmacSecret: null })).destination as Record<
      string,
      unknown
    >;
    expect(destination.basicAuth).toEqual({ username: 'svc', password: SECRET_PLACEHOLDER });
    expect(destination).toHaveProperty('hmacSecret', null);
    expect(stored(config({}, { basicAuth: { username: 'svc' } })).destination).toMatchObject({ basicAuth: { username: 'svc' } });
  });

  it('slim records show the destination type and method only', () => {
    const record = stored(config({}, { method: 'GET', headers: { 'X-Key': 'k' }, hmacSecret: 's'.repeat(20) }));
    expect(rules.slim!(record)).toEqual({ destinationType: 'http', destinationMethod: 'GET' });
  });
});

describe('request headers', () => {
  const codes = (headers: unknown) => headerProblems(headers, 'h').map((p) => `${p.field}:${p.code}`);

  it('accepts up to 50 headers with token names and values of up to 1024 characters', () => {
    const fifty = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`X-H${i}`, 'v']));
    expect(codes(fifty)).toEqual([]);
    expect(codes({ "X-Odd!#$%&'*+.^_`|~": '', Accept: 'a'.repeat(1024), 'X-Tab': 'a\tb' })).toEqual([]);
  });

  it('refuses 51 headers', () => {
    expect(codes(Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`X-H${i}`, 'v'])))).toEqual(['h:maxEntries']);
  });

  it.each([
    ['a name with a space', { 'X A': 'v' }, ['h.X A:headerName']],
    ['a name with a colon', { 'X:A': 'v' }, ['h.X:A:headerName']],
    ['an empty name', { '': 'v' }, ['h.:headerName']],
    ['a non-ASCII name', { 'X-Ä': 'v' }, ['h.X-Ä:headerName']],
    ['a name of 257 characters', { ['X'.repeat(257)]: 'v' }, [`h.${'X'.repeat(64)}…:headerName`]],
    ['a name given twice in different case', { 'X-A': '1', 'x-a': '2' }, ['h.x-a:unique']],
    ['a value with CR LF', { 'X-A': 'v\r\nSet-Cookie: a=b' }, ['h.X-A:headerValue']],
    ['a value with NUL', { 'X-A': 'v\u0000' }, ['h.X-A:headerValue']],
    ['a value outside Latin-1', { 'X-A': 'v😀' }, ['h.X-A:headerValue']],
    ['a value of 1025 characters', { 'X-A': 'v'.repeat(1025) }, ['h.X-A:maxLength']],
    ['a value that is not text', { 'X-A': 5 }, ['h.X-A:isString']],
  ])('refuses %s', (_what, headers, expected) => expect(codes(headers)).toEqual(expected));
});
