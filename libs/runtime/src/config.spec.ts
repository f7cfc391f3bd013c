import { ConfigError, captureLogs, loadConfig } from '@funnel/platform';
import { selfSignedCertificate, tempDir } from '@funnel/testing';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { rootCertificates } from 'node:tls';
import { standaloneEdgeConfig, trackingEdgeConfig } from './tracking-edge';
import {
  bootstrapAdminFrom,
  edgeConfig,
  edgeOptionsFrom,
  httpConfig,
  natsAccessFrom,
  natsConfig,
  natsInboxConfig,
  opsConfig,
  outboundConfig,
  outboundHttpOptionsFrom,
  storeConfig,
  warnOnOutboundPrivate,
} from './config';

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

describe('NATS access configuration', () => {
  const gatewaySpec = { ...natsConfig, ...natsInboxConfig };
  const access = (env: NodeJS.ProcessEnv) => natsAccessFrom(loadConfig(gatewaySpec, { NATS_URL: 'nats://n:4222', ...env }));

  it('is anonymous by default, with the gateway inbox prefix', () => {
    expect(access({})).toEqual({ inboxPrefix: '_INBOX_gateway' });
  });

  it('takes a user and password, or a creds file, and TLS files', () => {
    const dir = tempDir('nats-access');
    try {
      const file = (name: string) => {
        writeFileSync(join(dir.path, name), 'x');
        return join(dir.path, name);
      };
      expect(access({ NATS_USER: 'gateway-1', NATS_PASSWORD: 'secret-password-123' })).toMatchObject({ user: 'gateway-1', password: 'secret-password-123' });
      const creds = file('app.creds');
      expect(access({ NATS_CREDS_FILE: creds })).toMatchObject({ credsFile: creds });
      const [ca, cert, key] = [file('ca.pem'), file('cert.pem'), file('key.pem')];
      expect(access({ NATS_TLS_CA: ca, NATS_TLS_CERT: cert, NATS_TLS_KEY: key }).tls).toEqual({ caFile: ca, certFile: cert, keyFile: key });
      expect(() => access({ NATS_CREDS_FILE: creds, NATS_USER: 'u', NATS_PASSWORD: 'secret-password-123' })).toThrow(/NATS_CREDS_FILE cannot be combined/);
    } finally {
      dir.remove();
    }
  });

  it.each([
    [{ NATS_USER: 'gateway-1' }, /NATS_PASSWORD is required/],
    [{ NATS_PASSWORD: 'secret-password-123' }, /NATS_USER is required/],
    [{ NATS_TLS_CERT: '/etc/hostname' }, /NATS_TLS_KEY is required/],
    [{ NATS_CREDS_FILE: '/no/such/file.creds' }, /NATS_CREDS_FILE must name a readable file/],
    [{ NATS_INBOX_PREFIX: 'bad prefix.>' }, /NATS_INBOX_PREFIX must be NATS subject tokens/],
  ])('refuses %j with one clear line that never shows the password', (env, message) => {
    let error: unknown;
    try {
      access(env);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toMatch(message);
    expect((error as Error).message).not.toContain('secret-password-123');
  });

  it.each(['nats://n:4222', 'n:4222', 'tls://n:4222', 'nats://u:p@n:4222', 'nats://a:4222, nats://b:4222,nats://c', '[::1]:4222', 'nats://n:4222/'])(
    'takes NATS_URL=%s',
    (value) => expect(loadConfig(natsConfig, { NATS_URL: value }).NATS_URL).toBe(value),
  );

  it.each(['nats//localhost:4222', 'http://n:4222', 'nats://', 'nats://n:port', 'nats://n:4222/path', 'nats://n:4222?x=1', ',', 'nats://a:4222,b c'])(
    'refuses NATS_URL=%s at start with one clear line',
    (value) => {
      expect(() => loadConfig(natsConfig, { NATS_URL: value })).toThrow(
        /^Invalid configuration: NATS_URL must be one or more NATS servers separated by commas, each host:port, nats:\/\/host:port or tls:\/\/host:port, got /,
      );
    },
  );

  it('refuses a malformed NATS_URL that holds credentials without echoing them', () => {
    expect(() => loadConfig(natsConfig, { NATS_URL: 'http://user:secret-password-123@n:4222' })).toThrow(
      /NATS_URL must be .* \(value hidden: it holds credentials\)$/,
    );
    expect(() => loadConfig(natsConfig, { NATS_URL: 'http://user:secret-password-123@n:4222' })).not.toThrow(/secret-password-123/);
  });

  it('binds the ops port to all interfaces unless OPS_HOST says otherwise', () => {
    expect(loadConfig(opsConfig, {}).OPS_HOST).toBe('0.0.0.0');
    expect(loadConfig(opsConfig, { OPS_HOST: '127.0.0.1' }).OPS_HOST).toBe('127.0.0.1');
  });
});

describe('HTTP configuration', () => {
  it('binds the HTTP port to loopback unless HOST says otherwise', () => {
    expect(loadConfig(httpConfig, {}).HOST).toBe('127.0.0.1');
    expect(loadConfig(httpConfig, { HOST: '0.0.0.0' }).HOST).toBe('0.0.0.0');
  });

  it('reads TRUSTED_PROXIES as addresses and CIDR ranges, none by default', () => {
    expect(loadConfig(httpConfig, {}).TRUSTED_PROXIES).toEqual([]);
    expect(loadConfig(httpConfig, { TRUSTED_PROXIES: ' 10.0.0.0/8, 192.168.1.7 ,fd00::/8,::1 ' }).TRUSTED_PROXIES).toEqual([
      '10.0.0.0/8',
      '192.168.1.7',
      'fd00::/8',
      '::1',
    ]);
  });

  it.each(['true', '10.0.0.0/33', '10.0.0/8', 'loopback', '10.0.0.1/8/1', '::1/129', '10.0.0.0/x'])(
    'refuses TRUSTED_PROXIES=%s with one clear line',
    (value) => {
      expect(() => loadConfig(httpConfig, { TRUSTED_PROXIES: value })).toThrow(
        /^Invalid configuration: TRUSTED_PROXIES must be a comma-separated list of IP addresses and CIDR ranges/,
      );
    },
  );

  it('refuses the removed TRUST_PROXY, naming what replaces it', () => {
    expect(() => loadConfig(httpConfig, { TRUST_PROXY: 'true' })).toThrow(ConfigError);
    expect(() => loadConfig(httpConfig, { TRUST_PROXY: 'true' })).toThrow(/TRUST_PROXY must be unset \(removed: .*TRUSTED_PROXIES\)/);
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

describe('outbound configuration', () => {
  it('keeps the address rule on unless OUTBOUND_ALLOW_PRIVATE is true', () => {
    expect(loadConfig(outboundConfig, {}).OUTBOUND_ALLOW_PRIVATE).toBe(false);
    expect(loadConfig(outboundConfig, { OUTBOUND_ALLOW_PRIVATE: 'true' }).OUTBOUND_ALLOW_PRIVATE).toBe(true);
    expect(loadConfig(outboundConfig, { OUTBOUND_ALLOW_PRIVATE: 'false' }).OUTBOUND_ALLOW_PRIVATE).toBe(false);
    expect(() => loadConfig(outboundConfig, { OUTBOUND_ALLOW_PRIVATE: 'maybe' })).toThrow(/OUTBOUND_ALLOW_PRIVATE must be true or false/);
  });

  it('warns at start when OUTBOUND_ALLOW_PRIVATE lifts the address rule, and only then', () => {
    const logs = captureLogs('app', 'info');
    warnOnOutboundPrivate(loadConfig(outboundConfig, {}), logs.logger);
    warnOnOutboundPrivate(loadConfig(outboundConfig, { OUTBOUND_ALLOW_PRIVATE: 'false' }), logs.logger);
    expect(logs.entries).toEqual([]);
    warnOnOutboundPrivate(loadConfig(outboundConfig, { OUTBOUND_ALLOW_PRIVATE: 'true' }), logs.logger);
    expect(logs.entries).toEqual([
      expect.objectContaining({
        level: 'warn',
        OUTBOUND_ALLOW_PRIVATE: true,
        msg: expect.stringMatching(/^OUTBOUND_ALLOW_PRIVATE=true: .*never in production/),
      }),
    ]);
  });

  it('trusts the bundled CAs only, unless OUTBOUND_CA_FILE adds PEM certificates to them', () => {
    expect(outboundHttpOptionsFrom(loadConfig(outboundConfig, {}))).toEqual({ allowPrivate: false });
    const dir = tempDir('outbound-ca');
    const file = join(dir.path, 'ca.pem');
    const { cert } = selfSignedCertificate();
    writeFileSync(file, cert);
    const options = outboundHttpOptionsFrom(loadConfig(outboundConfig, { OUTBOUND_ALLOW_PRIVATE: 'true', OUTBOUND_CA_FILE: file }));
    expect(options).toEqual({ allowPrivate: true, ca: [...rootCertificates, cert] });
    writeFileSync(file, 'not a certificate');
    expect(() => outboundHttpOptionsFrom(loadConfig(outboundConfig, { OUTBOUND_CA_FILE: file }))).toThrow(/OUTBOUND_CA_FILE must hold PEM certificates/);
    expect(() => outboundHttpOptionsFrom(loadConfig(outboundConfig, { OUTBOUND_CA_FILE: join(dir.path, 'missing.pem') }))).toThrow(
      /OUTBOUND_CA_FILE must name a readable file/,
    );
    dir.remove();
  });
});

describe('tracking edge default domain', () => {
  it('serves 127.0.0.1 links in standalone unless told otherwise, and none by default in the distributed edge', () => {
    expect(loadConfig(standaloneEdgeConfig, {}).EDGE_DEFAULT_DOMAIN).toBe('127.0.0.1');
    expect(loadConfig(standaloneEdgeConfig, { EDGE_DEFAULT_DOMAIN: 'Edge.Example.net' }).EDGE_DEFAULT_DOMAIN).toBe('edge.example.net');
    expect(loadConfig(trackingEdgeConfig, { NATS_URL: 'nats://n:4222' }).EDGE_DEFAULT_DOMAIN).toBeUndefined();
    expect(() => loadConfig(standaloneEdgeConfig, { EDGE_DEFAULT_DOMAIN: 'https://edge.example.net/' })).toThrow(/EDGE_DEFAULT_DOMAIN/);
  });
});
