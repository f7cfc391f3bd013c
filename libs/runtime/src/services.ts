import { DynamicModule, INestMicroservice, Module, Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import {
  Config,
  PinoNestLogger,
  LeanServerNats,
  NatsServiceClient,
  ReadinessCheck,
  Registry,
  RpcMetrics,
  createLogger,
  createMetricsRegistry,
  loadConfig,
  measureRequestHandlers,
  natsAccessOptions,
  natsServerOptions,
  OutboundHttp,
  pingController,
  servicePingCheck,
  startOpsServer,
} from '@funnel/platform';
import { registerProjectionLagMetric } from '@funnel/projections';
import { AssetSecretBox, AssetsFeatureModule, AssetsHealth, assetKindActions } from '@funnel/assets-feature';
import { IdentityFeatureModule, IdentityHealth } from '@funnel/identity-feature';
import { ScriptsFeatureModule } from '@funnel/scripts-feature';
import { BillingFeatureModule, BillingHealth } from '@funnel/billing-feature';
import { ReportingFeatureModule } from '@funnel/reporting-feature';
import { ReportingQueriesModule } from '@funnel/reporting-queries-feature';
import { IntegrationsFeatureModule, IntegrationsHealth } from '@funnel/integrations-feature';
import { GatewayModule, createGatewayApp } from '@funnel/gateway';
import {
  accessTokenConfig,
  assetSecretsConfig,
  assetSecretsFileFrom,
  outboundConfig,
  outboundHttpOptionsFrom,
  authConfig,
  authOptionsFrom,
  bootstrapAdminFrom,
  bootstrapConfig,
  commonConfig,
  edgeConfig,
  edgeOptionsFrom,
  gatewayOptionsFrom,
  httpConfig,
  natsAccessFrom,
  natsConfig,
  natsInboxConfig,
  opsConfig,
  scriptsInboxConfig,
  reportingInboxConfig,
  storeConfig,
  warnOnOutboundPrivate,
} from './config';
import { Stores, openStores, storageReadinessCheck } from './stores';
import { assetEventsConfig, assetEventsOptionsFrom, assetsInboxConfig, registerAssetEventRelayMetrics, startAssetEventRelay } from './asset-events';
import { billingConfig, billingOptionsFrom } from './billing-config';
import { integrationsConfig, integrationsOptionsFrom } from './integrations-config';
import { RunningApp, listeningAddress } from './standalone';
import {
  ReportingTesting,
  checkReportingConfig,
  jetStreamReportingParts,
  reportingConfig,
  reportingFeatureOptions,
  reportingQueriesOptions,
  integrationJobsOf,
} from './reporting-config';

const serviceConfig = { ...commonConfig, ...natsConfig, ...opsConfig };

/** The services the gateway forwards to: its readiness pings each (`<service>.ping`). */
export const GATEWAY_SERVICES = ['assets', 'identity', 'scripts', 'billing', 'reporting'] as const;

interface NatsService {
  /** The app's name in logs and metrics, e.g. `assets-service`. */
  name: string;
  /** The subject prefix it serves, e.g. `assets`: it answers `<service>.ping`. */
  service: (typeof GATEWAY_SERVICES)[number];
  module: Type<unknown> | DynamicModule;
  config: Config<typeof serviceConfig>;
  checks: (app: INestMicroservice) => ReadinessCheck[];
  /** Closed on shutdown; the lag of the projections running on its event store is on /metrics. */
  stores?: Stores;
  server?: LeanServerNats;
  /** Releases what the app's adapters hold open (outgoing connections), after the app has stopped. */
  onClose?: () => Promise<void>;
  /** Registers the app's own metrics (besides RPC, projection lag and process) on its registry. */
  metrics?: (registry: Registry) => void;
}

/** The service's NATS server strategy: its queue group, with the app's NATS credentials and message bound. */
function natsServer(config: Config<typeof serviceConfig>, name: string): LeanServerNats {
  return new LeanServerNats(natsServerOptions(config.NATS_URL, name, natsAccessOptions(natsAccessFrom(config))).options, {
    maxMessageBytes: config.RPC_MAX_MESSAGE_BYTES,
  });
}

/**
 * A NATS-only service: its module's message handlers on `<service>.*` subjects in the service's
 * queue group, `<service>.ping`, plus probes and metrics (RPC server, projection lag, process) on
 * OPS_PORT. SIGTERM drains (unsubscribe, finish in-flight) via Nest's hooks.
 */
async function startNatsService(options: NatsService): Promise<RunningApp> {
  const { name, service, config, stores } = options;
  const logger = createLogger(name, config.LOG_LEVEL);
  warnOnOutboundPrivate(config, logger);
  const metrics = createMetricsRegistry({ defaultLabels: { app: name } });
  @Module({ imports: [options.module], controllers: [pingController(service)] })
  class NatsServiceModule {}
  const server = options.server ?? natsServer(config, name);
  const app = await NestFactory.createMicroservice(NatsServiceModule, { strategy: server, logger: new PinoNestLogger(logger) });
  // Registers the handlers (and runs the modules' init hooks), so they can be measured before serving.
  await app.init();
  measureRequestHandlers(server, new RpcMetrics(metrics, 'server'));
  if (stores) registerProjectionLagMetric(metrics, stores.eventStore);
  options.metrics?.(metrics);
  await app.listen();
  const ops = await startOpsServer({ port: config.OPS_PORT, host: config.OPS_HOST, checks: options.checks(app), registry: metrics });
  logger.info({ opsPort: ops.port }, `${name} listening on NATS`);
  return {
    port: ops.port,
    context: app,
    async close() {
      await app.close();
      await ops.close();
      await stores?.close();
      await options.onClose?.();
    },
  };
}

export const assetsServiceConfig = { ...serviceConfig, ...storeConfig, ...assetSecretsConfig, ...outboundConfig, ...assetsInboxConfig, ...assetEventsConfig };

export async function startAssetsService(env: NodeJS.ProcessEnv = process.env): Promise<RunningApp> {
  const config = loadConfig(assetsServiceConfig, env);
  const assetEvents = assetEventsOptionsFrom(config);
  const outbound = new OutboundHttp(outboundHttpOptionsFrom(config));
  const logger = createLogger('assets-service', config.LOG_LEVEL);
  const stores = await openStores(config, logger);
  const secrets = AssetSecretBox.openOrCreate(assetSecretsFileFrom(config));
  @Module({ imports: [AssetsFeatureModule.forRoot({ ...stores, secrets, outbound, actions: assetKindActions({ secrets, http: outbound }) })] })
  class AssetsServiceModule {}
  // Every asset event to the JetStream stream ASSET_EVENTS (one active relay across the replicas).
  const relay = startAssetEventRelay({
    eventStore: stores.eventStore,
    natsUrl: config.NATS_URL,
    access: natsAccessFrom(config),
    ...assetEvents,
    logger,
  });
  const running = await startNatsService({
    name: 'assets-service',
    service: 'assets',
    module: AssetsServiceModule,
    config,
    checks: (app) => [{ name: 'read-model', check: () => app.get(AssetsHealth).ready() }, storageReadinessCheck(stores)],
    stores,
    metrics: (registry) => registerAssetEventRelayMetrics(registry, relay, stores.eventStore),
  }).catch(async (error: unknown) => {
    await relay.stop();
    throw error;
  });
  return {
    ...running,
    async close() {
      await relay.stop();
      await running.close();
      await outbound.close();
    },
  };
}

export const identityServiceConfig = { ...serviceConfig, ...storeConfig, ...bootstrapConfig, ...authConfig };

export async function startIdentityService(env: NodeJS.ProcessEnv = process.env): Promise<RunningApp> {
  const config = loadConfig(identityServiceConfig, env);
  const bootstrapAdmin = bootstrapAdminFrom(config);
  // Events (API key revocations) go out on the connection that carries the replies, so a gateway sees them first.
  const server = natsServer(config, 'identity-service');
  const stores = await openStores(config, createLogger('identity-service', config.LOG_LEVEL));
  @Module({ imports: [IdentityFeatureModule.forRoot({ ...stores, bootstrapAdmin, auth: authOptionsFrom(config), events: server })] })
  class IdentityServiceModule {}
  return startNatsService({
    name: 'identity-service',
    service: 'identity',
    module: IdentityServiceModule,
    config,
    checks: (app) => [{ name: 'read-model', check: () => app.get(IdentityHealth).ready() }, storageReadinessCheck(stores)],
    stores,
    server,
  });
}

export const scriptsServiceConfig = { ...serviceConfig, ...scriptsInboxConfig };

/** The scripts service; it reads saved logic scripts from assets-service (`assets.logicscript.findById`, its one call). */
export async function startScriptsService(env: NodeJS.ProcessEnv = process.env): Promise<RunningApp> {
  const config = loadConfig(scriptsServiceConfig, env);
  const assets = new NatsServiceClient(config.NATS_URL, {
    timeoutMs: config.RPC_TIMEOUT_MS,
    logger: createLogger('scripts-service', config.LOG_LEVEL),
    access: natsAccessFrom(config),
    maxMessageBytes: config.RPC_MAX_MESSAGE_BYTES,
  });
  return startNatsService({
    name: 'scripts-service',
    service: 'scripts',
    module: ScriptsFeatureModule.forRoot({ assets }),
    config,
    checks: () => [],
    onClose: () => assets.close(),
  });
}

export const billingServiceConfig = { ...serviceConfig, ...storeConfig, ...billingConfig };

export async function startBillingService(env: NodeJS.ProcessEnv = process.env): Promise<RunningApp> {
  const config = loadConfig(billingServiceConfig, env);
  const billing = billingOptionsFrom(config);
  const stores = await openStores(config, createLogger('billing-service', config.LOG_LEVEL));
  @Module({ imports: [BillingFeatureModule.forRoot({ ...stores, ...billing.options })] })
  class BillingServiceModule {}
  return startNatsService({
    name: 'billing-service',
    service: 'billing',
    module: BillingServiceModule,
    config,
    checks: (app) => [{ name: 'read-model', check: () => app.get(BillingHealth).ready() }, storageReadinessCheck(stores)],
    stores,
    onClose: billing.close,
  });
}

export const reportingServiceConfig = {
  ...serviceConfig,
  ...storeConfig,
  ...outboundConfig,
  ...reportingConfig,
  ...reportingInboxConfig,
  ...integrationsConfig,
};

/**
 * The reporting service: update routes and workers. Jobs on JetStream (its own NATS user's
 * connection, inboxes under NATS_INBOX_PREFIX), records on the event store, hits in ClickHouse or
 * SQLite under DATA_DIR, traffic sources read from assets-service (`assets.trafficsource.findById`).
 */
export async function startReportingService(env: NodeJS.ProcessEnv = process.env, testing: { reporting?: ReportingTesting } = {}): Promise<RunningApp> {
  const config = loadConfig(reportingServiceConfig, env);
  checkReportingConfig(config);
  const access = natsAccessFrom(config);
  const logger = createLogger('reporting-service', config.LOG_LEVEL);
  const assets = new NatsServiceClient(config.NATS_URL, { timeoutMs: config.RPC_TIMEOUT_MS, logger, access, maxMessageBytes: config.RPC_MAX_MESSAGE_BYTES });
  const outbound = new OutboundHttp(outboundHttpOptionsFrom(config));
  const stores = await openStores(config, logger);
  const integrations = integrationsOptionsFrom(config);
  const reporting = await jetStreamReportingParts({ config, natsUrl: config.NATS_URL, access, testing: testing.reporting });
  @Module({
    imports: [
      ReportingFeatureModule.forRoot(reportingFeatureOptions(reporting, { eventStore: stores.eventStore, readStore: stores.readStore, assets, outbound })),
      ReportingQueriesModule.forRoot(reportingQueriesOptions(reporting, config, assets)),
      // Ad-platform integrations: their cost sync and conversion upload feed this service's queues.
      IntegrationsFeatureModule.forRoot({ ...stores, ...integrations, assets, jobs: integrationJobsOf(reporting) }),
    ],
  })
  class ReportingServiceModule {}
  return startNatsService({
    name: 'reporting-service',
    service: 'reporting',
    module: ReportingServiceModule,
    config,
    checks: (app) => [{ name: 'integrations', check: () => app.get(IntegrationsHealth).ready() }, storageReadinessCheck(stores)],
    async onClose() {
      await reporting.close();
      await assets.close();
      await outbound.close();
      await stores.close();
    },
  });
}

export const gatewayConfig = { ...commonConfig, ...httpConfig, ...edgeConfig, ...natsConfig, ...natsInboxConfig, ...accessTokenConfig };

/** Distributed mode's HTTP edge: the same /v1 surface, forwarded over NATS. */
export async function startGateway(env: NodeJS.ProcessEnv = process.env): Promise<RunningApp> {
  const config = loadConfig(gatewayConfig, env);
  const edge = edgeOptionsFrom(config);
  const logger = createLogger('gateway', config.LOG_LEVEL);
  const metrics = createMetricsRegistry({ defaultLabels: { app: 'gateway' } });
  const client = new NatsServiceClient(config.NATS_URL, {
    timeoutMs: config.RPC_TIMEOUT_MS,
    logger,
    metrics: new RpcMetrics(metrics, 'client'),
    access: natsAccessFrom(config),
    maxMessageBytes: config.RPC_MAX_MESSAGE_BYTES,
  });
  // Connect now rather than on the first request, so readiness reflects NATS from the start.
  client.warmUp();
  // Ready while NATS is connected and every service answers its ping.
  const readiness = [{ name: 'nats', check: () => client.connected }, ...GATEWAY_SERVICES.map((service) => servicePingCheck(client, service))];
  @Module({
    imports: [GatewayModule.forRoot({ client, metrics, ...gatewayOptionsFrom(config), rateLimit: edge.rateLimit, readiness })],
  })
  class GatewayAppModule {}
  const app = await createGatewayApp(GatewayAppModule, new PinoNestLogger(logger), { trustedProxies: config.TRUSTED_PROXIES, ...edge.http });
  await app.listen(config.PORT, config.HOST);
  const { host, port, url } = listeningAddress(app.getHttpServer());
  logger.info({ host, port, url }, `gateway listening on ${url}`);
  return {
    port,
    async close() {
      await app.close();
      await client.close();
    },
  };
}
