// The tracking edge in each mode: distributed (its own process, NATS as user tracking-edge) and the
// module of standalone mode (in-process snapshot, embedded sessions, reporting's inbox for hits).
import { join } from 'node:path';
import { connect } from 'nats';
import {
  type Config,
  DEFAULT_TRACKING_EDGE_INBOX_PREFIX,
  type InProcessServiceClient,
  type Logger,
  NatsServiceClient,
  OutboundHttp,
  PinoNestLogger,
  type ServiceClient,
  type Registry,
  createLogger,
  createMetricsRegistry,
  loadConfig,
  natsAccessOptions,
  natsClientOptions,
  port,
  string,
  trustedProxiesRule,
} from '@funnel/platform';
import type { EventStore } from '@funnel/eventstore';
import type { AssetRegistry } from '@funnel/assets-domain';
import { InProcessHitPoster, ThreadedInboxPoster } from '@funnel/reporting-feature';
import {
  EDGE_SNAPSHOT_CONFIG,
  EdgeSnapshot,
  EventStoreAssetEventFeed,
  NatsAssetEventFeed,
  SESSION_STORE_FILE,
  TrackingEdge,
  VisitorResolver,
  edgeHitsConfig,
  edgeRoutesConfig,
  domainRule,
  busPostbackRelay,
  edgeRoutesOptionsFrom,
  inboxHitSink,
  jetStreamHitSink,
  openSessionStore,
  sessionConfig,
  visitorConfig,
  visitorResolverOptionsFrom,
  EdgeMiddleware,
  type HitInboxPoster,
  ServiceMiddlewareSecrets,
  edgeMiddlewareConfig,
  edgeMiddlewareLimitsFrom,
} from '@funnel/edge-feature';
import { commonConfig, natsAccessFrom, natsConfig, outboundConfig, outboundHttpOptionsFrom, warnOnOutboundPrivate } from './config';
import { dataDirFile } from './data-dir';
import { REPORTING_FILE, type PostedHitsIngest } from './reporting-config';
import type { RunningApp } from './standalone';

/** What the edge reads in both modes: visitor context, sessions, hits, snapshot and routes. */
export const edgePartsConfig = {
  ...visitorConfig,
  ...sessionConfig,
  ...edgeHitsConfig,
  ...EDGE_SNAPSHOT_CONFIG,
  ...edgeRoutesConfig,
  ...edgeMiddlewareConfig,
  ...outboundConfig,
};

/** The middleware calls of either mode: the SSRF-guarded client (a connect bound of 10 s, the longest config timeout), secrets over the service bus. */
function edgeMiddlewareOf(
  config: Config<typeof edgePartsConfig>,
  client: ServiceClient,
  registry: Registry,
  rpcTimeoutMs?: number,
): { middleware: EdgeMiddleware; http: OutboundHttp } {
  const http = new OutboundHttp({ ...outboundHttpOptionsFrom(config), timeoutMs: 10_000 });
  const middleware = new EdgeMiddleware({
    http,
    secrets: new ServiceMiddlewareSecrets(client, rpcTimeoutMs),
    ...edgeMiddlewareLimitsFrom(config),
    registry,
  });
  return { middleware, http };
}

/** Standalone mode serves the visitor routes on a port of their own beside the API. */
export const standaloneEdgeConfig = {
  ...edgePartsConfig,
  /** On one machine the links live on 127.0.0.1: `http://127.0.0.1:<EDGE_PORT>/a/<accountId>/fts/<token>`. */
  EDGE_DEFAULT_DOMAIN: domainRule('127.0.0.1'),
  /** The visitor routes' port (0 picks a free one: see the started app's `edgePort`). */
  EDGE_PORT: port({ default: 3001 }),
  /** The interface it binds; default HOST's. */
  EDGE_HOST: string({ optional: true }),
};

/** apps/tracking-edge: NATS as user tracking-edge, the visitor routes on PORT. */
export const trackingEdgeConfig = {
  ...commonConfig,
  ...natsConfig,
  NATS_INBOX_PREFIX: string({ default: DEFAULT_TRACKING_EDGE_INBOX_PREFIX }),
  PORT: port({ default: 3001 }),
  /** Loopback by default, as the gateway; the image and the manifests set 0.0.0.0. */
  HOST: string({ default: '127.0.0.1' }),
  /** The proxies in front (ingress, load balancer): the visitor's address is the rightmost X-Forwarded-For entry that is not one of them. */
  TRUSTED_PROXIES: trustedProxiesRule,
  ...edgePartsConfig,
};
export type TrackingEdgeConfig = Config<typeof trackingEdgeConfig>;

export interface RunningTrackingEdge extends RunningApp {
  edge: TrackingEdge;
}

/**
 * Distributed mode's tracking edge: the snapshot over NATS (`assets.internal.edgesnapshot`,
 * `billing.internal.domains`, the asset events on `assets.events.>` on a connection of its own),
 * sessions in the JetStream KV bucket EDGE_SESSIONS, hits published to the stream HITS; the visitor
 * routes, probes and metrics on PORT. Not ready until the snapshot is loaded.
 */
export async function startTrackingEdge(env: NodeJS.ProcessEnv = process.env): Promise<RunningTrackingEdge> {
  const config = loadConfig(trackingEdgeConfig, env);
  const routes = edgeRoutesOptionsFrom(config);
  const access = natsAccessFrom(config);
  const logger = createLogger('tracking-edge', config.LOG_LEVEL);
  const registry = createMetricsRegistry({ defaultLabels: { app: 'tracking-edge' } });
  const visitors = await VisitorResolver.open(visitorResolverOptionsFrom(config));
  const natsOptions = (name: string) => ({ ...natsClientOptions(config.NATS_URL, natsAccessOptions(access)).options, name });
  const client = new NatsServiceClient(config.NATS_URL, { timeoutMs: config.RPC_TIMEOUT_MS, logger, access, maxMessageBytes: config.RPC_MAX_MESSAGE_BYTES });
  client.warmUp();
  const connection = await connect(natsOptions('tracking-edge'));
  warnOnOutboundPrivate(config, logger);
  const { middleware, http } = edgeMiddlewareOf(config, client, registry, config.RPC_TIMEOUT_MS);
  const release = async () => {
    await http.close();
    await client.close();
    if (!connection.isClosed()) await connection.drain();
  };
  try {
    const sessions = await openSessionStore({ mode: 'kv', connection, ttlMs: config.SESSION_TTL });
    const edge = await TrackingEdge.start(
      {
        snapshot: new EdgeSnapshot({
          client,
          feed: new NatsAssetEventFeed(() => connect(natsOptions('tracking-edge-asset-events'))),
          pageSize: config.EDGE_SNAPSHOT_PAGE_SIZE,
          domainsRefreshMs: config.EDGE_DOMAINS_REFRESH_MS,
          logger: new PinoNestLogger(logger),
        }),
        sessions,
        hits: jetStreamHitSink(connection, config),
        postbacks: busPostbackRelay(client),
        visitors,
        middleware,
        registry,
        routes,
        trustedProxies: config.TRUSTED_PROXIES,
        readiness: [{ name: 'nats', check: () => !connection.isClosed() && client.connected }],
        onClose: release,
        logger: new PinoNestLogger(logger),
      },
      { port: config.PORT, host: config.HOST },
    );
    logger.info({ port: edge.port, url: edge.url }, `tracking-edge listening on ${edge.url}`);
    return { port: edge.port, edge, close: () => edge.close() };
  } catch (error) {
    await release();
    throw error;
  }
}

export interface StandaloneEdgeInput {
  config: Config<typeof standaloneEdgeConfig> & { DATA_DIR: string; HOST: string; TRUSTED_PROXIES: string[] };
  /** The in-process client (reaches `assets.internal.edgesnapshot` and `billing.internal.domains`). */
  client: InProcessServiceClient;
  eventStore: EventStore;
  assetRegistry: AssetRegistry;
  registry: Registry;
  logger: Logger;
  /**
   * The ingest of the warehouse embedded in this process (reporting's `postedHits`): the edge's hits
   * go to it directly, to the inbox when it does not take them in time. Absent: to reporting's inbox.
   */
  postedHits?: PostedHitsIngest;
}

/**
 * Standalone mode's edge: the snapshot over the in-process bus, following the event log itself;
 * sessions in DATA_DIR/edge-sessions.sqlite; hits handed to the embedded warehouse's ingest in this
 * process (`input.postedHits`, InProcessHitPoster) or, with ClickHouse, or when the warehouse does
 * not store them in time, committed to reporting's inbox in DATA_DIR/reporting.sqlite (which this
 * process's reporting drains into the warehouse). Either is durable before a redirect is answered.
 * Resolves once listening and loaded. Close it before the stores and reporting close.
 */
export async function startStandaloneEdge(input: StandaloneEdgeInput): Promise<TrackingEdge> {
  const { config, logger } = input;
  const routes = edgeRoutesOptionsFrom(config);
  const visitors = await VisitorResolver.open(visitorResolverOptionsFrom(config));
  const sessions = await openSessionStore({
    mode: 'embedded',
    filename: dataDirFile(config.DATA_DIR, SESSION_STORE_FILE),
    ttlMs: config.SESSION_TTL,
    sweepIntervalMs: config.SESSION_SWEEP_INTERVAL,
  });
  // Batches committed to the inbox from a writer thread (the event loop only packs them): all of them
  // without the warehouse in the process, else those it does not store in time.
  const threaded = new ThreadedInboxPoster(join(config.DATA_DIR, REPORTING_FILE));
  const inbox: HitInboxPoster = input.postedHits
    ? new InProcessHitPoster(input.postedHits.ingest, {
        fallback: threaded,
        fallbackOnly: input.postedHits.inboxOnly,
        fallbackWaiting: input.postedHits.inboxWaiting,
        onError: (error) =>
          logger.warn({ err: error }, 'the warehouse did not store hits of the tracking edge (the inbox took them, or they were refused as invalid)'),
      })
    : threaded;
  const nestLogger = new PinoNestLogger(logger);
  const { middleware, http } = edgeMiddlewareOf(config, input.client, input.registry);
  let edge: TrackingEdge;
  try {
    edge = await TrackingEdge.start(
      {
        snapshot: new EdgeSnapshot({
          client: input.client,
          feed: new EventStoreAssetEventFeed(input.eventStore, input.assetRegistry),
          pageSize: config.EDGE_SNAPSHOT_PAGE_SIZE,
          domainsRefreshMs: config.EDGE_DOMAINS_REFRESH_MS,
          logger: nestLogger,
        }),
        sessions,
        hits: inboxHitSink(inbox, config),
        postbacks: busPostbackRelay(input.client),
        visitors,
        middleware,
        registry: input.registry,
        routes,
        trustedProxies: config.TRUSTED_PROXIES,
        onClose: async () => {
          await threaded.close();
          await http.close();
        },
        logger: nestLogger,
      },
      { port: config.EDGE_PORT, host: config.EDGE_HOST ?? config.HOST },
    );
  } catch (error) {
    await sessions.close();
    await threaded.close();
    await http.close();
    throw error;
  }
  await edge.whenReady();
  logger.info({ edgePort: edge.port, url: edge.url }, `tracking edge (visitor links) listening on ${edge.url}`);
  return edge;
}
