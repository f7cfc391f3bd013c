import { type NatsOptions, Transport } from '@nestjs/microservices';

type NatsConnectionOptions = NonNullable<NatsOptions['options']>;

export type NatsTransportOptions = NatsOptions & { transport: Transport.NATS; options: NatsConnectionOptions };

/**
 * Connection settings shared by callers and services:
 * - reconnect forever: with a finite count the connection closes for good after an outage and
 *   ClientNats keeps failing every request, even once NATS is back;
 * - a short connect timeout and reconnect wait, so an outage is noticed and recovered within seconds;
 * - no waitOnFirstConnect: a caller started while NATS is down fails each request at once (503)
 *   and connects on the first request after NATS is back.
 */
const CONNECTION_DEFAULTS: NatsConnectionOptions = {
  maxReconnectAttempts: -1,
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

/** NATS_URL may list several servers of a cluster, comma-separated. */
function splitServers(url: string): string[] {
  return url
    .split(',')
    .map((server) => server.trim())
    .filter((server) => server.length > 0);
}
