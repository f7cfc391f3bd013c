import { type AddressInfo, isIPv6 } from 'node:net';
import { INestApplicationContext, Module } from '@nestjs/common';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import {
  Config,
  InProcessBus,
  InProcessServiceClient,
  InProcessServer,
  PinoNestLogger,
  RpcMetrics,
  createLogger,
  createMetricsRegistry,
  loadConfig,
  measureRequestHandlers,
  OutboundHttp,
} from '@funnel/platform';
import { ASSET_REGISTRY, AssetSecretBox, AssetsFeatureModule, AssetsHealth, assetKindActions } from '@funnel/assets-feature';
import type { AssetRegistry } from '@funnel/assets-domain';
import { IdentityFeatureModule, IdentityHealth } from '@funnel/identity-feature';
import { ScriptsFeatureModule } from '@funnel/scripts-feature';
import { BillingFeatureModule, BillingHealth } from '@funnel/billing-feature';
import { ReportingFeatureModule } from '@funnel/reporting-feature';
import { ReportingQueriesModule } from '@funnel/reporting-queries-feature';
import { IntegrationsFeatureModule, IntegrationsHealth } from '@funnel/integrations-feature';
import { GatewayModule, createGatewayApp } from '@funnel/gateway';
import { registerProjectionLagMetric } from '@funnel/projections';
import {
  authConfig,
  authOptionsFrom,
  bootstrapAdminFrom,
  bootstrapConfig,
  commonConfig,
  edgeConfig,
  edgeOptionsFrom,
  gatewayOptionsFrom,
  httpConfig,
  storeConfig,
  assetSecretsConfig,
  assetSecretsFileFrom,
  outboundConfig,
  outboundHttpOptionsFrom,
  natsAccessFrom,
  natsConfig,
  natsUrl,
  warnOnOutboundPrivate,
} from './config';
import { openStores, storageReadinessCheck } from './stores';
import { assetEventsConfig, assetEventsOptionsFrom, assetsInboxConfig, registerAssetEventRelayMetrics, startAssetEventRelay } from './asset-events';
import { billingConfig, billingOptionsFrom } from './billing-config';
import { integrationsConfig, integrationsOptionsFrom } from './integrations-config';
import {
  ReportingTesting,
  checkReportingConfig,
  embeddedReportingParts,
  reportingConfig,
  reportingFeatureOptions,
  reportingQueriesOptions,
  integrationJobsOf,
} from './reporting-config';
import { standaloneEdgeConfig, startStandaloneEdge } from './tracking-edge';

export const standaloneConfig = {
  ...commonConfig,
  ...httpConfig,
  ...edgeConfig,
  ...storeConfig,
  ...assetSecretsConfig,
  ...outboundConfig,
  ...bootstrapConfig,
  ...authConfig,
  ...billingConfig,
  // With NATS_URL, the asset events go to JetStream as in distributed mode; nothing else uses NATS here.
  ...natsConfig,
  NATS_URL: natsUrl({ optional: true }),
  ...assetsInboxConfig,
  ...assetEventsConfig,
  ...reportingConfig,
  ...integrationsConfig,
  // The tracking edge's visitor routes on EDGE_PORT (EDGE_CHECK_TOKEN is billing's too: one value).
  ...standaloneEdgeConfig,
};
export type StandaloneConfig = Config<typeof standaloneConfig>;

/** Where an HTTP server listens, as the start log names it: `http://127.0.0.1:3000` (IPv6 in brackets). */
export function listeningAddress(server: { address(): unknown }): { host: string; port: number; url: string } {
  const { address, port } = server.address() as AddressInfo;
  return { host: address, port, url: `http://${isIPv6(address) ? `[${address}]` : address}:${port}` };
}

export interface RunningApp {
  /** The HTTP port (gateway apps) or ops port (services). */
  port: number;
  /** The Nest application context (for tools and tests that need a provider). */
  context?: INestApplicationContext;
  /** Standalone: a client of the in-process bus, for internal subjects (`reporting.hits.*`) from tools and tests. */
  internal?: InProcessServiceClient;
  /** Standalone: the tracking edge's port (the visitor links: EDGE_PORT, or the one picked for 0). */
  edgePort?: number;
  close(): Promise<void>;
}

/**
 * Standalone mode: the gateway and every service module in one process, talking through the
 * in-process transport with the same subjects as over NATS, on SQLite and embedded read models.
 */
export async function startStandalone(
  env: NodeJS.ProcessEnv = process.env,
  testing: { reporting?: ReportingTesting } = {},
): Promise<RunningApp & { app: NestFastifyApplication }> {
  const config = loadConfig(standaloneConfig, env);
  checkReportingConfig(config);
  const bootstrapAdmin = bootstrapAdminFrom(config);
  const edge = edgeOptionsFrom(config);
  const logger = createLogger('standalone', config.LOG_LEVEL);
  warnOnOutboundPrivate(config, logger);
  const billing = billingOptionsFrom(config);
  const assetEvents = assetEventsOptionsFrom(config);
  const natsAccess = config.NATS_URL === undefined ? undefined : natsAccessFrom({ ...config, NATS_URL: config.NATS_URL });
  const stores = await openStores(config, logger);
  const bus = new InProcessBus({ copyPayloads: false });
  const metrics = createMetricsRegistry({ defaultLabels: { app: 'standalone' } });
  // The gateway's calls (client) and the services' handlers (server) are both measured, as in distributed mode.
  const client = new InProcessServiceClient(bus, { timeoutMs: config.RPC_TIMEOUT_MS, logger, metrics: new RpcMetrics(metrics, 'client') });
  registerProjectionLagMetric(metrics, stores.eventStore);
  // The readiness checks ask the app's modules, which exist only once the app is created.
  const started: { app?: NestFastifyApplication } = {};
  const secrets = AssetSecretBox.openOrCreate(assetSecretsFileFrom(config));
  const outbound = new OutboundHttp(outboundHttpOptionsFrom(config));
  const integrations = integrationsOptionsFrom(config);
  // The reporting queues (DATA_DIR/reporting.sqlite) and hit warehouse (DATA_DIR/reporting.duckdb; ClickHouse with CLICKHOUSE_URL).
  const reporting = await embeddedReportingParts({ config, testing: testing.reporting });

  @Module({
    imports: [
      AssetsFeatureModule.forRoot({ ...stores, secrets, outbound, actions: assetKindActions({ secrets, http: outbound }) }),
      IdentityFeatureModule.forRoot({ ...stores, bootstrapAdmin, auth: authOptionsFrom(config), events: bus }),
      ScriptsFeatureModule.forRoot({ assets: client }),
      BillingFeatureModule.forRoot({ ...stores, ...billing.options }),
      ReportingFeatureModule.forRoot(
        reportingFeatureOptions(reporting, { eventStore: stores.eventStore, readStore: stores.readStore, assets: client, outbound }),
      ),
      ReportingQueriesModule.forRoot(reportingQueriesOptions(reporting, config, client)),
      IntegrationsFeatureModule.forRoot({ ...stores, ...integrations, assets: client, jobs: integrationJobsOf(reporting) }),
      GatewayModule.forRoot({
        client,
        metrics,
        ...gatewayOptionsFrom(config),
        rateLimit: edge.rateLimit,
        readiness: [
          { name: 'assets', check: () => started.app?.get(AssetsHealth).ready() ?? false },
          { name: 'identity', check: () => started.app?.get(IdentityHealth).ready() ?? false },
          { name: 'billing', check: () => started.app?.get(BillingHealth).ready() ?? false },
          { name: 'integrations', check: () => started.app?.get(IntegrationsHealth).ready() ?? false },
          storageReadinessCheck(stores),
        ],
      }),
    ],
  })
  class StandaloneModule {}

  const app = await createGatewayApp(StandaloneModule, new PinoNestLogger(logger), { trustedProxies: config.TRUSTED_PROXIES, ...edge.http });
  started.app = app;
  const services = new InProcessServer(bus);
  // Registers the services' handlers at once; they are measured from then on.
  app.connectMicroservice({ strategy: services });
  measureRequestHandlers(services, new RpcMetrics(metrics, 'server'));
  await app.startAllMicroservices();
  await app.listen(config.PORT, config.HOST);
  const { host, port, url } = listeningAddress(app.getHttpServer());
  const relay =
    config.NATS_URL === undefined
      ? undefined
      : startAssetEventRelay({ eventStore: stores.eventStore, natsUrl: config.NATS_URL, access: natsAccess!, ...assetEvents, logger });
  if (relay) registerAssetEventRelayMetrics(metrics, relay, stores.eventStore);
  // The visitor routes, once the services answer: their snapshot loads over the in-process bus.
  const trackingEdge = await startStandaloneEdge({
    config,
    client,
    eventStore: stores.eventStore,
    assetRegistry: app.get<AssetRegistry>(ASSET_REGISTRY, { strict: false }),
    registry: metrics,
    logger,
    postedHits: reporting.postedHits,
  }).catch(async (error: unknown) => {
    await relay?.stop();
    await app.close();
    await reporting.close();
    await outbound.close();
    await stores.close();
    await billing.close();
    throw error;
  });
  logger.info({ host, port, url, dataDir: config.DATA_DIR, assetEventRelay: relay !== undefined }, `funnel-service standalone listening on ${url}`);
  return {
    app,
    context: app,
    internal: client,
    port,
    edgePort: trackingEdge.port,
    async close() {
      // The edge first: its last hits reach the warehouse (or reporting's inbox, which reporting drains as it closes).
      await trackingEdge.close();
      await relay?.stop();
      await app.close();
      await reporting.close();
      await outbound.close();
      await stores.close();
      await billing.close();
    },
  };
}
