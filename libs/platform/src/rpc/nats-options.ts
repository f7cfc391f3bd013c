import { readFileSync } from 'node:fs';
import { type NatsOptions, Transport } from '@nestjs/microservices';
import { credsAuthenticator, usernamePasswordAuthenticator } from 'nats';

type NatsConnectionOptions = NonNullable<NatsOptions['options']>;

export type NatsTransportOptions = NatsOptions & { transport: Transport.NATS; options: NatsConnectionOptions };

/**
 * Connection settings shared by callers and services:
 * - reconnect forever: with a finite count the connection closes for good after an outage and
 *   ClientNats keeps failing every request, even once NATS is back;
 * - a short connect timeout and reconnect wait, so an outage is noticed and recovered within seconds;
 * - no waitOnFirstConnect: a caller started while NATS is down fails each request at once (503)
 *   and connects on the first request after NATS is back;
 * - no async traces: nats.js otherwise builds two Error objects (stack captures) for every
 *   request() it makes, which JetStream publishes and KV puts are (the edge's session put and hit
 *   publish); measured here 53-80 -> 33-38 µs CPU per request/reply pair. Its errors keep their codes.
 */
const CONNECTION_DEFAULTS: NatsConnectionOptions = {
  maxReconnectAttempts: -1,
  noAsyncTraces: true,
  reconnectTimeWait: 1000,
  timeout: 2000,
  pingInterval: 10_000,
  maxPingOut: 2,
};

/** Options for `new ClientNats(...)` / `ClientProxyFactory.create(...)` / `ClientsModule` on the caller side. */
export function natsClientOptions(url: string, overrides: NatsConnectionOptions = {}): NatsTransportOptions {
  return { transport: Transport.NATS, options: { servers: splitServers(url), ...CONNECTION_DEFAULTS, ...overrides } };
}

/**
 * Options for a service's `createMicroservice(...)`: every instance of the service joins `queueGroup`,
 * so each request is handled by exactly one instance. Unsubscribes before closing so a shutdown
 * stops taking requests while in-flight ones finish.
 */
export function natsServerOptions(url: string, queueGroup: string, overrides: NatsConnectionOptions = {}): NatsTransportOptions {
  return {
    transport: Transport.NATS,
    options: {
      servers: splitServers(url),
      queue: queueGroup,
      gracefulShutdown: true,
      gracePeriod: 2000,
      ...CONNECTION_DEFAULTS,
      ...overrides,
    },
  };
}

/**
 * Who an app is to NATS, and how the connection is encrypted. At most one of `credsFile` and
 * `user`/`password`; without either the connection is anonymous (which a secured server refuses).
 */
export interface NatsAccess {
  /** A `.creds` file (user JWT and nkey seed); read again on every (re)connect, so a replaced file needs no restart. */
  credsFile?: string;
  user?: string;
  password?: string;
  /** TLS with these PEM files (a CA to trust, a client certificate and key); any of them turns TLS on. */
  tls?: { caFile?: string; certFile?: string; keyFile?: string };
  /** Prefix of the app's reply inboxes, so its permissions can allow `<prefix>.>` only (nats.js default `_INBOX`). */
  inboxPrefix?: string;
}

/**
 * The connection options for `access`, to pass as the `overrides` of natsClientOptions /
 * natsServerOptions. The password goes into an authenticator, not into a plain option, so it
 * shows up in no options object that might be printed.
 */
export function natsAccessOptions(access: NatsAccess = {}): NatsConnectionOptions {
  const options: NatsConnectionOptions = {};
  const { credsFile, user, password, tls, inboxPrefix } = access;
  if (credsFile !== undefined) options.authenticator = credsAuthenticator(() => readFileSync(credsFile));
  else if (user !== undefined) options.authenticator = usernamePasswordAuthenticator(user, password);
  if (tls && (tls.caFile || tls.certFile || tls.keyFile)) {
    options.tls = Object.fromEntries(Object.entries(tls).filter(([, file]) => file !== undefined));
  }
  if (inboxPrefix !== undefined) options.inboxPrefix = inboxPrefix;
  return options;
}

/** NATS_URL may list several servers of a cluster, comma-separated. */
function splitServers(url: string): string[] {
  return url
    .split(',')
    .map((server) => server.trim())
    .filter((server) => server.length > 0);
}
