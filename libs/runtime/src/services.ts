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
  natsAccessOptions,
  natsServerOptions,
  startOpsServer,
} from '@funnel/platform';
import { AssetsFeatureModule, AssetsHealth } from '@funnel/assets-feature';
import { IdentityFeatureModule, IdentityHealth } from '@funnel/identity-feature';
import { ScriptsFeatureModule } from '@funnel/scripts-feature';
import { GatewayModule, createGatewayApp } from '@funnel/gateway';
import {
  accessTokenConfig,
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
  storeConfig,
} from './config';
import { openStores } from './stores';
import { RunningApp } from './standalone';

const serviceConfig = { ...commonConfig, ...natsConfig, ...opsConfig };

/** The service's NATS server strategy: its queue group, with the app's NATS credentials. */
function natsServer(config: Config<typeof serviceConfig>, name: string): LeanServerNats {
  return new LeanServerNats(natsServerOptions(config.NATS_URL, name, natsAccessOptions(natsAccessFrom(config))).options, {
    maxMessageBytes: config.RPC_MAX_MESSAGE_BYTES,
  });
}

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
  server: LeanServerNats = natsServer(config, name),
): Promise<RunningApp> {
  const logger = createLogger(name, config.LOG_LEVEL);
  const app = await NestFactory.createMicroservice(module, {
    strategy: server,
    logger: new PinoNestLogger(logger),
  });
  await app.listen();
  const metrics = createMetricsRegistry({ defaultLabels: { app: name } });
  const ops = await startOpsServer({ port: config.OPS_PORT, host: config.OPS_HOST, checks: checks(app), registry: metrics });
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
  const server = natsServer(config, 'assets-service');
  const stores = await openStores(config);
  @Module({ imports: [AssetsFeatureModule.forRoot(stores)] })
  class AssetsServiceModule {}
  return startNatsService(
    'assets-service',
    AssetsServiceModule,
    config,
    (app) => [{ name: 'read-model', check: () => app.get(AssetsHealth).ready() }],
    () => stores.close(),
    server,
  );
}

export const identityServiceConfig = { ...serviceConfig, ...storeConfig, ...bootstrapConfig, ...authConfig };

export async function startIdentityService(env: NodeJS.ProcessEnv = process.env): Promise<RunningApp> {
  const config = loadConfig(identityServiceConfig, env);
  const bootstrapAdmin = bootstrapAdminFrom(config);
  // Events (API key revocations) go out on the connection that carries the replies, so a gateway sees them first.
  const server = natsServer(config, 'identity-service');
  const stores = await openStores(config);
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

export const gatewayConfig = { ...commonConfig, ...httpConfig, ...edgeConfig, ...natsConfig, ...natsInboxConfig, ...accessTokenConfig };

/** Distributed mode's HTTP edge: the same /v1 surface, forwarded over NATS. */
export async function startGateway(env: NodeJS.ProcessEnv = process.env): Promise<RunningApp> {
  const config = loadConfig(gatewayConfig, env);
  const edge = edgeOptionsFrom(config);
  const logger = createLogger('gateway', config.LOG_LEVEL);
  const client = new NatsServiceClient(config.NATS_URL, {
    timeoutMs: config.RPC_TIMEOUT_MS,
    logger,
    access: natsAccessFrom(config),
    maxMessageBytes: config.RPC_MAX_MESSAGE_BYTES,
  });
  const metrics = createMetricsRegistry({ defaultLabels: { app: 'gateway' } });
  // Connect now rather than on the first request, so readiness reflects NATS from the start.
  client.warmUp();
  const natsReady = { name: 'nats', check: () => client.connected };
  @Module({
    imports: [GatewayModule.forRoot({ client, metrics, ...gatewayOptionsFrom(config), rateLimit: edge.rateLimit, readiness: [natsReady] })],
  })
  class GatewayAppModule {}
  const app = await createGatewayApp(GatewayAppModule, new PinoNestLogger(logger), { trustedProxies: config.TRUSTED_PROXIES, ...edge.http });
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
