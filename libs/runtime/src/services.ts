import { DynamicModule, INestMicroservice, Module, Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import {
  Config,
  PinoNestLogger,
  LeanServerNats,
  NatsServiceClient,
  ReadinessCheck,
  RpcMetrics,
  createLogger,
  createMetricsRegistry,
  loadConfig,
  measureRequestHandlers,
  natsServerOptions,
  pingController,
  servicePingCheck,
  startOpsServer,
} from '@funnel/platform';
import { registerProjectionLagMetric } from '@funnel/projections';
import { AssetsFeatureModule, AssetsHealth } from '@funnel/assets-feature';
import { IdentityFeatureModule, IdentityHealth } from '@funnel/identity-feature';
import { ScriptsFeatureModule } from '@funnel/scripts-feature';
import { GatewayModule, createGatewayApp } from '@funnel/gateway';
import { authConfig, authOptionsFrom, bootstrapAdminFrom, bootstrapConfig, commonConfig, httpConfig, natsConfig, opsConfig, storeConfig } from './config';
import { Stores, openStores } from './stores';
import { RunningApp } from './standalone';

const serviceConfig = { ...commonConfig, ...natsConfig, ...opsConfig };

/** The services the gateway forwards to: its readiness pings each (`<service>.ping`). */
export const GATEWAY_SERVICES = ['assets', 'identity', 'scripts'] as const;

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
}

/**
 * A NATS-only service: its module's message handlers on `<service>.*` subjects in the service's
 * queue group, `<service>.ping`, plus probes and metrics (RPC server, projection lag, process) on
 * OPS_PORT. SIGTERM drains (unsubscribe, finish in-flight) via Nest's hooks.
 */
async function startNatsService(options: NatsService): Promise<RunningApp> {
  const { name, service, config, stores } = options;
  const logger = createLogger(name, config.LOG_LEVEL);
  const metrics = createMetricsRegistry({ defaultLabels: { app: name } });
  @Module({ imports: [options.module], controllers: [pingController(service)] })
  class NatsServiceModule {}
  const server = options.server ?? new LeanServerNats(natsServerOptions(config.NATS_URL, name).options);
  const app = await NestFactory.createMicroservice(NatsServiceModule, { strategy: server, logger: new PinoNestLogger(logger) });
  // Registers the handlers (and runs the modules' init hooks), so they can be measured before serving.
  await app.init();
  measureRequestHandlers(server, new RpcMetrics(metrics, 'server'));
  if (stores) registerProjectionLagMetric(metrics, stores.eventStore);
  await app.listen();
  const ops = await startOpsServer({ port: config.OPS_PORT, checks: options.checks(app), registry: metrics });
  logger.info({ opsPort: ops.port }, `${name} listening on NATS`);
  return {
    port: ops.port,
    context: app,
    async close() {
      await app.close();
      await ops.close();
      await stores?.close();
    },
  };
}

export const assetsServiceConfig = { ...serviceConfig, ...storeConfig };

export async function startAssetsService(env: NodeJS.ProcessEnv = process.env): Promise<RunningApp> {
  const config = loadConfig(assetsServiceConfig, env);
  const stores = await openStores(config);
  @Module({ imports: [AssetsFeatureModule.forRoot(stores)] })
  class AssetsServiceModule {}
  return startNatsService({
    name: 'assets-service',
    service: 'assets',
    module: AssetsServiceModule,
    config,
    checks: (app) => [{ name: 'read-model', check: () => app.get(AssetsHealth).ready() }],
    stores,
  });
}

export const identityServiceConfig = { ...serviceConfig, ...storeConfig, ...bootstrapConfig, ...authConfig };

export async function startIdentityService(env: NodeJS.ProcessEnv = process.env): Promise<RunningApp> {
  const config = loadConfig(identityServiceConfig, env);
  const bootstrapAdmin = bootstrapAdminFrom(config);
  const stores = await openStores(config);
  // Events (API key revocations) go out on the connection that carries the replies, so a gateway sees them first.
  const server = new LeanServerNats(natsServerOptions(config.NATS_URL, 'identity-service').options);
  @Module({ imports: [IdentityFeatureModule.forRoot({ ...stores, bootstrapAdmin, auth: authOptionsFrom(config), events: server })] })
  class IdentityServiceModule {}
  return startNatsService({
    name: 'identity-service',
    service: 'identity',
    module: IdentityServiceModule,
    config,
    checks: (app) => [{ name: 'read-model', check: () => app.get(IdentityHealth).ready() }],
    stores,
    server,
  });
}

export async function startScriptsService(env: NodeJS.ProcessEnv = process.env): Promise<RunningApp> {
  const config = loadConfig(serviceConfig, env);
  return startNatsService({ name: 'scripts-service', service: 'scripts', module: ScriptsFeatureModule, config, checks: () => [] });
}

export const gatewayConfig = { ...commonConfig, ...httpConfig, ...natsConfig };

/** Distributed mode's HTTP edge: the same /v1 surface, forwarded over NATS. */
export async function startGateway(env: NodeJS.ProcessEnv = process.env): Promise<RunningApp> {
  const config = loadConfig(gatewayConfig, env);
  const logger = createLogger('gateway', config.LOG_LEVEL);
  const metrics = createMetricsRegistry({ defaultLabels: { app: 'gateway' } });
  const client = new NatsServiceClient(config.NATS_URL, { timeoutMs: config.RPC_TIMEOUT_MS, logger, metrics: new RpcMetrics(metrics, 'client') });
  // Connect now rather than on the first request, so readiness reflects NATS from the start.
  client.warmUp();
  // Ready while NATS is connected and every service answers its ping.
  const readiness = [{ name: 'nats', check: () => client.connected }, ...GATEWAY_SERVICES.map((service) => servicePingCheck(client, service))];
  @Module({
    imports: [GatewayModule.forRoot({ client, metrics, apiKeyCacheMs: config.API_KEY_CACHE_MS, readiness })],
  })
  class GatewayAppModule {}
  const app = await createGatewayApp(GatewayAppModule, new PinoNestLogger(logger), { trustProxy: config.TRUST_PROXY });
  await app.listen(config.PORT, config.HOST);
  const port = (app.getHttpServer().address() as { port: number }).port;
  logger.info({ port }, 'gateway listening');
  return {
    port,
    async close() {
      await app.close();
      await client.close();
    },
  };
}
