import { DynamicModule, INestMicroservice, Module, Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import {
  Config,
  PinoNestLogger,
  LeanServerNats,
  NatsServiceClient,
  ReadinessCheck,
  createLogger,
  createMetricsRegistry,
  loadConfig,
  natsServerOptions,
  startOpsServer,
} from '@funnel/platform';
import { AssetsFeatureModule, AssetsHealth } from '@funnel/assets-feature';
import { IdentityFeatureModule, IdentityHealth } from '@funnel/identity-feature';
import { ScriptsFeatureModule } from '@funnel/scripts-feature';
import { GatewayModule, createGatewayApp } from '@funnel/gateway';
import {
  authConfig,
  authOptionsFrom,
  bootstrapAdminFrom,
  bootstrapConfig,
  commonConfig,
  edgeConfig,
  edgeOptionsFrom,
  httpConfig,
  natsConfig,
  opsConfig,
  storeConfig,
} from './config';
import { openStores } from './stores';
import { RunningApp } from './standalone';

const serviceConfig = { ...commonConfig, ...natsConfig, ...opsConfig };

/**
 * A NATS-only service: its module's message handlers on `<service>.*` subjects in the service's
 * queue group, plus probes and metrics on OPS_PORT. SIGTERM drains (unsubscribe, finish in-flight) via Nest's hooks.
 */
async function startNatsService(
  name: string,
  module: Type<unknown> | DynamicModule,
  config: Config<typeof serviceConfig>,
  checks: (app: INestMicroservice) => ReadinessCheck[],
  onClose: () => Promise<void> = async () => undefined,
  server: LeanServerNats = new LeanServerNats(natsServerOptions(config.NATS_URL, name).options),
): Promise<RunningApp> {
  const logger = createLogger(name, config.LOG_LEVEL);
  const app = await NestFactory.createMicroservice(module, {
    strategy: server,
    logger: new PinoNestLogger(logger),
  });
  await app.listen();
  const metrics = createMetricsRegistry({ defaultLabels: { app: name } });
  const ops = await startOpsServer({ port: config.OPS_PORT, checks: checks(app), registry: metrics });
  logger.info({ opsPort: ops.port }, `${name} listening on NATS`);
  return {
    port: ops.port,
    context: app,
    async close() {
      await app.close();
      await ops.close();
      await onClose();
    },
  };
}

export const assetsServiceConfig = { ...serviceConfig, ...storeConfig };

export async function startAssetsService(env: NodeJS.ProcessEnv = process.env): Promise<RunningApp> {
  const config = loadConfig(assetsServiceConfig, env);
  const stores = await openStores(config);
  @Module({ imports: [AssetsFeatureModule.forRoot(stores)] })
  class AssetsServiceModule {}
  return startNatsService(
    'assets-service',
    AssetsServiceModule,
    config,
    (app) => [{ name: 'read-model', check: () => app.get(AssetsHealth).ready() }],
    () => stores.close(),
  );
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
  return startNatsService(
    'identity-service',
    IdentityServiceModule,
    config,
    (app) => [{ name: 'read-model', check: () => app.get(IdentityHealth).ready() }],
    () => stores.close(),
    server,
  );
}

export async function startScriptsService(env: NodeJS.ProcessEnv = process.env): Promise<RunningApp> {
  const config = loadConfig(serviceConfig, env);
  return startNatsService('scripts-service', ScriptsFeatureModule, config, () => []);
}

export const gatewayConfig = { ...commonConfig, ...httpConfig, ...edgeConfig, ...natsConfig };

/** Distributed mode's HTTP edge: the same /v1 surface, forwarded over NATS. */
export async function startGateway(env: NodeJS.ProcessEnv = process.env): Promise<RunningApp> {
  const config = loadConfig(gatewayConfig, env);
  const edge = edgeOptionsFrom(config);
  const logger = createLogger('gateway', config.LOG_LEVEL);
  const client = new NatsServiceClient(config.NATS_URL, { timeoutMs: config.RPC_TIMEOUT_MS, logger });
  const metrics = createMetricsRegistry({ defaultLabels: { app: 'gateway' } });
  // Connect now rather than on the first request, so readiness reflects NATS from the start.
  client.warmUp();
  const natsReady = { name: 'nats', check: () => client.connected };
  @Module({
    imports: [GatewayModule.forRoot({ client, metrics, apiKeyCacheMs: config.API_KEY_CACHE_MS, rateLimit: edge.rateLimit, readiness: [natsReady] })],
  })
  class GatewayAppModule {}
  const app = await createGatewayApp(GatewayAppModule, new PinoNestLogger(logger), { trustProxy: config.TRUST_PROXY, ...edge.http });
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
