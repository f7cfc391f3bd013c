import { API_KEY_PATTERN } from '@funnel/contracts';
import { accessSync, constants, readFileSync } from 'node:fs';
import { rootCertificates } from 'node:tls';
import {
  Config,
  ConfigError,
  bool,
  ConfigRule,
  DEFAULT_GATEWAY_INBOX_PREFIX,
  DEFAULT_SCRIPTS_INBOX_PREFIX,
  DEFAULT_REPORTING_INBOX_PREFIX,
  INVALID_CONFIG_VALUE,
  LOG_LEVELS,
  type Logger,
  NatsAccess,
  OutboundHttpOptions,
  int,
  oneOf,
  port,
  string,
  trustedProxiesRule,
  url,
} from '@funnel/platform';
import type { GatewayHttpOptions, RateLimitOptions } from '@funnel/gateway';
import { dataDirFile } from './data-dir';
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

/** A variable that no longer exists: any value stops the process with what to set instead. */
function removed(instead: string): ConfigRule<undefined> {
  return { description: `unset (removed: ${instead})`, read: (raw) => (raw === undefined ? undefined : INVALID_CONFIG_VALUE) };
}

export const httpConfig = {
  PORT: port({ default: 3000 }),
  /**
   * The interface the HTTP port binds: loopback by default, so a first `npm start` is reachable from
   * this machine only; the Docker image and the Kubernetes manifests set 0.0.0.0.
   */
  HOST: string({ default: '127.0.0.1' }),
  /**
   * The proxies in front of the gateway (ingress, load balancer): the client address is the rightmost
   * X-Forwarded-For entry that is not one of them. Login throttling and credential limits count by it.
   */
  TRUSTED_PROXIES: trustedProxiesRule,
  /** It trusted the leftmost, client-chosen X-Forwarded-For entry. */
  TRUST_PROXY: removed("list your proxies' addresses or CIDR ranges in TRUSTED_PROXIES"),
  API_KEY_CACHE_MS: int({ min: 0, max: 5000, default: 2000 }),
  /** Failed API-key or token attempts from one client address that block it (per gateway replica) ... */
  CREDENTIAL_FAILURE_LIMIT: int({ min: 1, max: 1_000_000, default: 50 }),
  /** ... within this many seconds of the first; the block lasts as long. */
  CREDENTIAL_FAILURE_WINDOW_SECONDS: int({ min: 1, max: 86_400, default: 300 }),
  /** Failed attempts from all addresses together that block API keys not seen valid lately (per gateway replica), in the same window. */
  CREDENTIAL_FAILURE_GLOBAL_LIMIT: int({ min: 1, max: 10_000_000, default: 1000 }),
};

/** The access-token lifetime: identity issues tokens for it; the gateway and identity refuse longer-lived ones. */
export const accessTokenConfig = {
  ACCESS_TOKEN_TTL_SECONDS: int({ min: 1, max: 259200, default: 259200 }),
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
  ...accessTokenConfig,
  REFRESH_TOKEN_TTL_SECONDS: int({ min: 60, max: 365 * 24 * 3600, default: 30 * 24 * 3600 }),
  /** Signing and encryption keys; default `<DATA_DIR>/identity-keys.json`, created when absent. */
  IDENTITY_KEYS_FILE: string({ optional: true }),
};

export function authOptionsFrom(config: Config<typeof authConfig> & { DATA_DIR: string }): AuthOptions {
  return {
    keysFile: config.IDENTITY_KEYS_FILE ?? dataDirFile(config.DATA_DIR, 'identity-keys.json'),
    accessTokenTtlSeconds: config.ACCESS_TOKEN_TTL_SECONDS,
    refreshTokenTtlSeconds: config.REFRESH_TOKEN_TTL_SECONDS,
  };
}

/** The gateway's view of the HTTP settings: credential limits and the token lifetime it enforces. */
export function gatewayOptionsFrom(config: Config<typeof httpConfig> & { ACCESS_TOKEN_TTL_SECONDS: number }) {
  return {
    apiKeyCacheMs: config.API_KEY_CACHE_MS,
    accessTokenTtlSeconds: config.ACCESS_TOKEN_TTL_SECONDS,
    credentialFailures: {
      limit: config.CREDENTIAL_FAILURE_LIMIT,
      windowMs: config.CREDENTIAL_FAILURE_WINDOW_SECONDS * 1000,
      globalLimit: config.CREDENTIAL_FAILURE_GLOBAL_LIMIT,
    },
  };
}

const NATS_SCHEMES = ['nats:', 'tls:'];

/** One NATS server as nats.js takes it: `[nats://|tls://][user:password@]host[:port]`, nothing after the port. */
function isNatsServer(entry: string): boolean {
  const withScheme = /^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(entry) ? entry : `nats://${entry}`;
  if (!URL.canParse(withScheme)) return false;
  const url = new URL(withScheme);
  return NATS_SCHEMES.includes(url.protocol) && url.hostname !== '' && (url.pathname === '' || url.pathname === '/') && url.search === '' && url.hash === '';
}

const NATS_URL_DESCRIPTION = 'one or more NATS servers separated by commas, each host:port, nats://host:port or tls://host:port';

/**
 * NATS_URL: one server, or several of a cluster separated by commas. Checked at start like every other
 * setting (a malformed value would otherwise show only as endless reconnect attempts); a refused value
 * that holds credentials (`user:password@`) is not echoed.
 */
export function natsUrl(options: { optional: true }): ConfigRule<string | undefined>;
export function natsUrl(): ConfigRule<string>;
export function natsUrl(options: { optional?: boolean } = {}): ConfigRule<string | undefined> {
  return {
    description: NATS_URL_DESCRIPTION,
    read(raw) {
      if (raw === undefined) return options.optional ? undefined : INVALID_CONFIG_VALUE;
      const servers = raw
        .split(',')
        .map((server) => server.trim())
        .filter((server) => server !== '');
      if (servers.length > 0 && servers.every(isNatsServer)) return raw;
      if (raw.includes('@')) throw new ConfigError('NATS_URL', NATS_URL_DESCRIPTION, `must be ${NATS_URL_DESCRIPTION} (value hidden: it holds credentials)`);
      return INVALID_CONFIG_VALUE;
    },
  };
}

export const natsConfig = {
  NATS_URL: natsUrl(),
  /** The largest request or reply carried over NATS (split into chunks under the server's max payload): 64 MiB. */
  RPC_MAX_MESSAGE_BYTES: int({ min: 65_536, max: 1024 * 1024 * 1024, default: 64 * 1024 * 1024 }),
  /** The app's NATS identity: a `.creds` file (JWT + nkey seed), or a user and password; none = anonymous. */
  NATS_CREDS_FILE: string({ optional: true }),
  NATS_USER: string({ optional: true }),
  NATS_PASSWORD: string({ optional: true }),
  /** TLS to NATS: a CA file to trust, and a client certificate and key (PEM files). */
  NATS_TLS_CA: string({ optional: true }),
  NATS_TLS_CERT: string({ optional: true }),
  NATS_TLS_KEY: string({ optional: true }),
};

/** The gateway's reply inboxes are `<prefix>.<id>`: its NATS permissions allow subscribing to `<prefix>.>` only. */
export const natsInboxConfig = {
  NATS_INBOX_PREFIX: string({ default: DEFAULT_GATEWAY_INBOX_PREFIX }),
};

/** scripts-service reads logic scripts from assets-service: its replies come on `<prefix>.<id>` (its NATS user may subscribe to `<prefix>.>` only). */
export const scriptsInboxConfig = {
  NATS_INBOX_PREFIX: string({ default: DEFAULT_SCRIPTS_INBOX_PREFIX }),
};

/** reporting-service reads traffic sources from assets-service and pulls its JetStream jobs: replies on `<prefix>.<id>`. */
export const reportingInboxConfig = {
  NATS_INBOX_PREFIX: string({ default: DEFAULT_REPORTING_INBOX_PREFIX }),
};

const SUBJECT_PREFIX = /^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/;

/** The NATS identity and TLS files of `natsConfig`, checked together (the password is never echoed). */
export function natsAccessFrom(config: Config<typeof natsConfig> & { NATS_INBOX_PREFIX?: string }): NatsAccess {
  const { NATS_CREDS_FILE: credsFile, NATS_USER: user, NATS_PASSWORD: password, NATS_INBOX_PREFIX: inboxPrefix } = config;
  if (credsFile !== undefined && (user !== undefined || password !== undefined)) {
    throw new ConfigError('NATS_CREDS_FILE', 'alone', 'cannot be combined with NATS_USER / NATS_PASSWORD: set one or the other');
  }
  if ((user === undefined) !== (password === undefined)) {
    throw new ConfigError(user === undefined ? 'NATS_USER' : 'NATS_PASSWORD', 'set', 'is required when NATS_USER or NATS_PASSWORD is set');
  }
  if ((config.NATS_TLS_CERT === undefined) !== (config.NATS_TLS_KEY === undefined)) {
    throw new ConfigError(
      config.NATS_TLS_CERT === undefined ? 'NATS_TLS_CERT' : 'NATS_TLS_KEY',
      'set',
      'is required when NATS_TLS_CERT or NATS_TLS_KEY is set',
    );
  }
  for (const variable of ['NATS_CREDS_FILE', 'NATS_TLS_CA', 'NATS_TLS_CERT', 'NATS_TLS_KEY'] as const) {
    const file = config[variable];
    if (file !== undefined) mustBeReadable(variable, file);
  }
  if (inboxPrefix !== undefined && !SUBJECT_PREFIX.test(inboxPrefix)) {
    throw new ConfigError(
      'NATS_INBOX_PREFIX',
      'subject',
      `must be NATS subject tokens (letters, digits, _ and -, separated by dots), got ${JSON.stringify(inboxPrefix)}`,
    );
  }
  const tls = { caFile: config.NATS_TLS_CA, certFile: config.NATS_TLS_CERT, keyFile: config.NATS_TLS_KEY };
  return {
    ...(credsFile !== undefined ? { credsFile } : {}),
    ...(user !== undefined ? { user, password } : {}),
    ...(tls.caFile || tls.certFile ? { tls } : {}),
    ...(inboxPrefix !== undefined ? { inboxPrefix } : {}),
  };
}

function mustBeReadable(variable: string, file: string): void {
  try {
    accessSync(file, constants.R_OK);
  } catch {
    throw new ConfigError(variable, 'readable file', `must name a readable file, got ${JSON.stringify(file)}`);
  }
}

/** Requests the service makes to addresses users give it (webhook deliveries): see OutboundHttp. */
export const outboundConfig = {
  /** Lifts the rule that outgoing requests go to public addresses only: for tests and development only, never in production. */
  OUTBOUND_ALLOW_PRIVATE: bool({ default: false }),
  /** Extra CA certificates (PEM file) trusted for outgoing TLS besides the bundled ones: receivers behind a private CA. */
  OUTBOUND_CA_FILE: string({ optional: true }),
};

/** The outgoing client's options: the address rule, and Node's bundled CAs plus OUTBOUND_CA_FILE's. */
export function outboundHttpOptionsFrom(config: Config<typeof outboundConfig>): OutboundHttpOptions {
  const file = config.OUTBOUND_CA_FILE;
  if (file === undefined) return { allowPrivate: config.OUTBOUND_ALLOW_PRIVATE };
  mustBeReadable('OUTBOUND_CA_FILE', file);
  const pem = readFileSync(file, 'utf8');
  if (!pem.includes('-----BEGIN CERTIFICATE-----')) throw new ConfigError('OUTBOUND_CA_FILE', 'PEM', `must hold PEM certificates, got ${JSON.stringify(file)}`);
  return { allowPrivate: config.OUTBOUND_ALLOW_PRIVATE, ca: [...rootCertificates, pem] };
}

/**
 * A warning at start when OUTBOUND_ALLOW_PRIVATE lifts the address rule (for apps whose configuration
 * has it): webhook and domain-check requests may then reach this host and its private network.
 */
export function warnOnOutboundPrivate(config: object, logger: Pick<Logger, 'warn'>): void {
  if ((config as Partial<Config<typeof outboundConfig>>).OUTBOUND_ALLOW_PRIVATE !== true) return;
  logger.warn(
    { OUTBOUND_ALLOW_PRIVATE: true },
    'OUTBOUND_ALLOW_PRIVATE=true: outgoing requests to user-supplied addresses may reach loopback and private networks; for tests and development only, never in production',
  );
}

/** Health and metrics port of the NATS-only services. */
export const opsConfig = {
  OPS_PORT: port({ default: 9464 }),
  /** All interfaces by default (probes and Prometheus come from outside the pod); dev-cluster uses 127.0.0.1. */
  OPS_HOST: string({ default: '0.0.0.0' }),
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

/** The key file that encrypts assets' write-only secrets (webhook and middleware credentials). */
export const assetSecretsConfig = {
  /** Default `<DATA_DIR>/asset-secrets.json`, created (0600) when absent; the same file on every assets replica. */
  ASSET_SECRETS_FILE: string({ optional: true }),
};

export function assetSecretsFileFrom(config: { ASSET_SECRETS_FILE?: string; DATA_DIR: string }): string {
  return config.ASSET_SECRETS_FILE ?? dataDirFile(config.DATA_DIR, 'asset-secrets.json');
}
