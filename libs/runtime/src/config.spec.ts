import { ConfigError, loadConfig } from '@funnel/platform';
import { bootstrapAdminFrom, edgeConfig, edgeOptionsFrom, storeConfig } from './config';

describe('bootstrap admin configuration', () => {
  const good = { BOOTSTRAP_ADMIN_EMAIL: 'a@b.co', BOOTSTRAP_ADMIN_PASSWORD: 'long enough', BOOTSTRAP_API_KEY: 'k'.repeat(16) };
  it('is optional as a whole', () => expect(bootstrapAdminFrom({})).toBeUndefined());
  it('takes all three', () => expect(bootstrapAdminFrom(good)).toEqual({ email: 'a@b.co', password: 'long enough', apiKey: 'k'.repeat(16) }));
  it.each([
    [{ ...good, BOOTSTRAP_API_KEY: undefined }, /BOOTSTRAP_API_KEY is required/],
    [{ ...good, BOOTSTRAP_ADMIN_EMAIL: 'nope' }, /BOOTSTRAP_ADMIN_EMAIL must be an e-mail/],
    [{ ...good, BOOTSTRAP_API_KEY: 'short' }, /BOOTSTRAP_API_KEY must be 16..128/],
    [{ ...good, BOOTSTRAP_API_KEY: 'x'.repeat(129) }, /BOOTSTRAP_API_KEY/],
    [{ ...good, BOOTSTRAP_ADMIN_PASSWORD: 'short' }, /BOOTSTRAP_ADMIN_PASSWORD/],
  ])('refuses %j with one clear line', (config, message) => {
    let error: unknown;
    try {
      bootstrapAdminFrom(config);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toMatch(message);
    expect((error as Error).message).not.toContain('\n');
    expect((error as Error).message).not.toContain('short');
  });
});

describe('store configuration', () => {
  it('accepts esdb and mongodb URLs and refuses others', () => {
    expect(loadConfig(storeConfig, { EVENTSTORE_URL: 'esdb://localhost:2113?tls=false', MONGO_URL: 'mongodb://m:27017' }).MONGO_URL).toBe('mongodb://m:27017');
    expect(() => loadConfig(storeConfig, { MONGO_URL: 'http://m' })).toThrow(/MONGO_URL/);
    expect(loadConfig(storeConfig, {}).DATA_DIR).toBe('./data');
  });
});

describe('edge configuration', () => {
  it('defaults to 100 requests/s in bursts of 200, 10/30/65 s timeouts, and no CORS origin', () => {
    expect(edgeOptionsFrom(loadConfig(edgeConfig, {}))).toEqual({
      http: { corsOrigins: [], timeouts: { headersMs: 10_000, requestMs: 30_000, keepAliveMs: 65_000 } },
      rateLimit: { perSecond: 100, burst: 200 },
    });
  });

  it('reads a comma-separated origin list and refuses anything that is not an origin', () => {
    expect(loadConfig(edgeConfig, { CORS_ORIGINS: 'https://app.example.com, http://localhost:5173' }).CORS_ORIGINS).toEqual([
      'https://app.example.com',
      'http://localhost:5173',
    ]);
    for (const bad of ['*', 'app.example.com', 'https://app.example.com/', 'https://app.example.com/path']) {
      expect(() => loadConfig(edgeConfig, { CORS_ORIGINS: bad })).toThrow(/CORS_ORIGINS must be comma-separated origins/);
    }
  });

  it('refuses a headers timeout longer than the request timeout', () => {
    const config = loadConfig(edgeConfig, { HTTP_HEADERS_TIMEOUT_MS: '40000' });
    expect(() => edgeOptionsFrom(config)).toThrow('Invalid configuration: HTTP_HEADERS_TIMEOUT_MS must be at most HTTP_REQUEST_TIMEOUT_MS (30000)');
  });
});
