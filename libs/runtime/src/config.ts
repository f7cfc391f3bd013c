import { API_KEY_PATTERN } from '@funnel/contracts';
import { join } from 'node:path';
import { Config, ConfigError, ConfigRule, INVALID_CONFIG_VALUE, LOG_LEVELS, bool, int, oneOf, port, string, url } from '@funnel/platform';
import type { GatewayHttpOptions, RateLimitOptions } from '@funnel/gateway';
import { AuthOptions, BootstrapAdmin } from '@funnel/identity-feature';

/** Variables every app reads. */
export const commonConfig = {
  LOG_LEVEL: oneOf(LOG_LEVELS, { default: 'info' }),
  RPC_TIMEOUT_MS: int({ min: 100, max: 5000, default: 4000 }),
};

/** Where services keep their data: EventStoreDB / MongoDB when given, else embedded files under DATA_DIR. */
export const storeConfig = {
  DATA_DIR: string({ default: './data' }),
  EVENTSTORE_URL: url({ optional: true, protocols: ['esdb', 'esdb+discover'] }),
  MONGO_URL: url({ optional: true, protocols: ['mongodb', 'mongodb+srv'] }),
  MONGO_DB: string({ default: 'funnel' }),
};

export const bootstrapConfig = {
  BOOTSTRAP_ADMIN_EMAIL: string({ optional: true }),
  BOOTSTRAP_ADMIN_PASSWORD: string({ optional: true }),
  BOOTSTRAP_API_KEY: string({ optional: true }),
};

export const httpConfig = {
  PORT: port({ default: 3000 }),
  HOST: string({ default: '0.0.0.0' }),
  /** Behind a proxy or ingress: take the client address from X-Forwarded-For (login throttling). */
  TRUST_PROXY: bool({ default: false }),
  API_KEY_CACHE_MS: int({ min: 0, max: 5000, default: 2000 }),
};

/** Browser origins such as `https://app.example.com`: scheme, host and port, no path; none when unset. */
function origins(): ConfigRule<string[]> {
  return {
    description: 'comma-separated origins such as https://app.example.com (scheme, host, optional port; no path) (default none)',
    read(raw) {
      if (raw === undefined) return [];
      const list = raw
        .split(',')
        .map((origin) => origin.trim())
        .filter((origin) => origin !== '');
      return list.every((origin) => URL.canParse(origin) && new URL(origin).origin === origin) ? list : INVALID_CONFIG_VALUE;
    },
  };
}

/** The gateway's edge limits: per-credential rate limit, slow-client timeouts, CORS. */
export const edgeConfig = {
  RATE_LIMIT_PER_SECOND: int({ min: 1, max: 1_000_000, default: 100 }),
  RATE_LIMIT_BURST: int({ min: 1, max: 1_000_000, default: 200 }),
  HTTP_HEADERS_TIMEOUT_MS: int({ min: 100, max: 600_000, default: 10_000 }),
  HTTP_REQUEST_TIMEOUT_MS: int({ min: 100, max: 600_000, default: 30_000 }),
  HTTP_KEEP_ALIVE_TIMEOUT_MS: int({ min: 100, max: 600_000, default: 65_000 }),
  CORS_ORIGINS: origins(),
};

export function edgeOptionsFrom(config: Config<typeof edgeConfig>): { http: GatewayHttpOptions; rateLimit: RateLimitOptions } {
  if (config.HTTP_HEADERS_TIMEOUT_MS > config.HTTP_REQUEST_TIMEOUT_MS) {
    throw new ConfigError('HTTP_HEADERS_TIMEOUT_MS', 'bound', `must be at most HTTP_REQUEST_TIMEOUT_MS (${config.HTTP_REQUEST_TIMEOUT_MS})`);
  }
  return {
    http: {
      corsOrigins: config.CORS_ORIGINS,
      timeouts: { headersMs: config.HTTP_HEADERS_TIMEOUT_MS, requestMs: config.HTTP_REQUEST_TIMEOUT_MS, keepAliveMs: config.HTTP_KEEP_ALIVE_TIMEOUT_MS },
    },
    rateLimit: { perSecond: config.RATE_LIMIT_PER_SECOND, burst: config.RATE_LIMIT_BURST },
  };
}

/** Tokens and the identity service's key file. */
export const authConfig = {
  ACCESS_TOKEN_TTL_SECONDS: int({ min: 1, max: 259200, default: 259200 }),
  REFRESH_TOKEN_TTL_SECONDS: int({ min: 60, max: 365 * 24 * 3600, default: 30 * 24 * 3600 }),
  /** Signing and encryption keys; default `<DATA_DIR>/identity-keys.json`, created when absent. */
  IDENTITY_KEYS_FILE: string({ optional: true }),
};

export function authOptionsFrom(config: Config<typeof authConfig> & { DATA_DIR: string }): AuthOptions {
  return {
    keysFile: config.IDENTITY_KEYS_FILE ?? join(config.DATA_DIR, 'identity-keys.json'),
    accessTokenTtlSeconds: config.ACCESS_TOKEN_TTL_SECONDS,
    refreshTokenTtlSeconds: config.REFRESH_TOKEN_TTL_SECONDS,
  };
}

export const natsConfig = {
  /** One server URL, or several of a cluster separated by commas. */
  NATS_URL: string(),
};

/** Health and metrics port of the NATS-only services. */
export const opsConfig = {
  OPS_PORT: port({ default: 9464 }),
};

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** The bootstrap admin: all three variables or none; checked like any other configuration. */
export function bootstrapAdminFrom(config: {
  BOOTSTRAP_ADMIN_EMAIL?: string;
  BOOTSTRAP_ADMIN_PASSWORD?: string;
  BOOTSTRAP_API_KEY?: string;
}): BootstrapAdmin | undefined {
  const { BOOTSTRAP_ADMIN_EMAIL: email, BOOTSTRAP_ADMIN_PASSWORD: password, BOOTSTRAP_API_KEY: apiKey } = config;
  if (email === undefined && password === undefined && apiKey === undefined) return undefined;
  const missing = (['BOOTSTRAP_ADMIN_EMAIL', 'BOOTSTRAP_ADMIN_PASSWORD', 'BOOTSTRAP_API_KEY'] as const).find((name) => config[name] === undefined);
  if (missing) throw new ConfigError(missing, 'set', 'is required when any BOOTSTRAP_* variable is set');
  if (!EMAIL.test(email!)) throw new ConfigError('BOOTSTRAP_ADMIN_EMAIL', 'e-mail', `must be an e-mail address, got ${JSON.stringify(email)}`);
  if (password!.length < 8) throw new ConfigError('BOOTSTRAP_ADMIN_PASSWORD', 'length', 'must be at least 8 characters (value hidden)');
  if (!API_KEY_PATTERN.test(apiKey!))
    throw new ConfigError('BOOTSTRAP_API_KEY', 'format', 'must be 16..128 printable characters without spaces (value hidden)');
  return { email: email!, password: password!, apiKey: apiKey! };
}
