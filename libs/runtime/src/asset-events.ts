import { connect, type ConnectionOptions } from 'nats';
import { Gauge, type Registry } from 'prom-client';
import { ASSET_KINDS } from '@funnel/contracts';
import type { EventStore } from '@funnel/eventstore';
import { AssetRegistry } from '@funnel/assets-domain';
import { AssetEventRelay } from '@funnel/assets-feature';
import { PROJECTION_LAG_LIMIT } from '@funnel/projections';
import {
  ConfigError,
  type ConfigRule,
  DEFAULT_ASSETS_INBOX_PREFIX,
  duration,
  INVALID_CONFIG_VALUE,
  JETSTREAM_READER_NAME,
  type Logger,
  type NatsAccess,
  natsAccessOptions,
  string,
} from '@funnel/platform';

/** ASSET_EVENTS_READERS: comma-separated reader names (letters, digits, _ and -), each once; none when unset. */
const readerNames: ConfigRule<string[]> = {
  description: 'comma-separated reader names of letters, digits, _ and - (up to 64 each, each once), e.g. events-reader,search-indexer (default none)',
  read(raw) {
    const names = (raw ?? '')
      .split(',')
      .map((name) => name.trim())
      .filter((name) => name !== '');
    return names.every((name) => JETSTREAM_READER_NAME.test(name)) && new Set(names).size === names.length ? names : INVALID_CONFIG_VALUE;
  },
};

/**
 * The asset event stream (ASSET_EVENTS): how long it keeps events, how long it drops an event id it
 * has seen, and its readers: for each, the relay creates a durable consumer delivering to
 * `_INBOX_events.<reader>`, the only subject that reader's NATS user may receive on.
 */
export const assetEventsConfig = {
  ASSET_EVENTS_MAX_AGE: duration({ default: '7d', min: '1m', max: '3650d' }),
  ASSET_EVENTS_DUPLICATE_WINDOW: duration({ default: '2m', min: '1s', max: '7d' }),
  ASSET_EVENTS_READERS: readerNames,
};

/** The assets service's reply inboxes (JetStream answers and publish acknowledgements): `<prefix>.>` in its NATS permissions. */
export const assetsInboxConfig = {
  NATS_INBOX_PREFIX: string({ default: DEFAULT_ASSETS_INBOX_PREFIX }),
};

export function assetEventsOptionsFrom(config: { ASSET_EVENTS_MAX_AGE: number; ASSET_EVENTS_DUPLICATE_WINDOW: number; ASSET_EVENTS_READERS: string[] }) {
  if (config.ASSET_EVENTS_DUPLICATE_WINDOW > config.ASSET_EVENTS_MAX_AGE) {
    throw new ConfigError(
      'ASSET_EVENTS_DUPLICATE_WINDOW',
      'bound',
      'must be at most ASSET_EVENTS_MAX_AGE (the stream cannot drop copies of events it no longer keeps)',
    );
  }
  return { maxAgeMs: config.ASSET_EVENTS_MAX_AGE, duplicateWindowMs: config.ASSET_EVENTS_DUPLICATE_WINDOW, readers: config.ASSET_EVENTS_READERS };
}

export interface AssetEventRelaySettings {
  eventStore: EventStore;
  natsUrl: string;
  access: NatsAccess;
  maxAgeMs: number;
  duplicateWindowMs: number;
  /** ASSET_EVENTS_READERS: the readers whose durable consumers the relay creates. */
  readers: readonly string[];
  logger: Logger;
}

/** Starts the relay of the asset events to JetStream on a NATS connection of its own (see AssetEventRelay). */
export function startAssetEventRelay(settings: AssetEventRelaySettings): AssetEventRelay {
  const { logger } = settings;
  const options = {
    servers: settings.natsUrl
      .split(',')
      .map((server) => server.trim())
      .filter((server) => server !== ''),
    name: 'asset-event-relay',
    maxReconnectAttempts: -1,
    reconnectTimeWait: 1000,
    timeout: 2000,
    ...natsAccessOptions(settings.access),
  } as ConnectionOptions;
  const relay = new AssetEventRelay({
    eventStore: settings.eventStore,
    registry: new AssetRegistry(ASSET_KINDS),
    connect: () => connect(options),
    inboxPrefix: settings.access.inboxPrefix,
    maxAgeMs: settings.maxAgeMs,
    duplicateWindowMs: settings.duplicateWindowMs,
    readers: settings.readers,
    logger: {
      log: (message: string) => logger.info(message),
      warn: (message: string) => logger.warn(message),
      error: (message: string) => logger.error(message),
    },
  });
  relay.start();
  return relay;
}

/**
 * `asset_events_relay_active` (1 on the replica whose relay holds the lease, 0 on standbys) and
 * `asset_events_relay_lag_events` (on the active one: asset events in the log not yet acknowledged
 * by JetStream, at most 10,000), counted when scraped.
 */
export function registerAssetEventRelayMetrics(registry: Registry, relay: AssetEventRelay, eventStore: EventStore): void {
  const prefixes = new AssetRegistry(ASSET_KINDS).streamPrefixes();
  new Gauge({
    name: 'asset_events_relay_active',
    help: 'Whether this replica relays the asset events to JetStream (1) or stands by (0)',
    registers: [registry],
    collect() {
      this.set(relay.isActive ? 1 : 0);
    },
  });
  new Gauge({
    name: 'asset_events_relay_lag_events',
    help: `Asset events in the log that JetStream has not acknowledged yet, on the active relay (at most ${PROJECTION_LAG_LIMIT})`,
    registers: [registry],
    async collect() {
      this.reset();
      const checkpoint = relay.checkpoint;
      if (checkpoint) this.set(await eventStore.countEvents({ after: checkpoint, streamNamePrefixes: prefixes, limit: PROJECTION_LAG_LIMIT }));
    },
  });
}
