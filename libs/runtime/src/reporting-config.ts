import { conversionUploadsListener, type IntegrationJobPayload, type IntegrationJobQueue, type IntegrationJobsSettings } from '@funnel/integrations-feature';
import { warehouseRunner, windowConversions, type ReportingQueriesOptions } from '@funnel/reporting-queries-feature';
import { join } from 'node:path';
import { connect, NatsConnection } from 'nats';
import { REPORTING_QUERY_LIMITS, ReportingQueues } from '@funnel/contracts';
import { Config, ConfigError, NatsAccess, OutboundHttp, ServiceClient, bool, int, natsAccessOptions, natsClientOptions, url } from '@funnel/platform';
import {
  EmbeddedJobQueue,
  HitStore,
  JetStreamJobQueue,
  PostbackLogStore,
  PostbackPayload,
  ReportingFeatureOptions,
  UpdatePayload,
  WEBHOOK_MAX_ATTEMPTS,
  WebhookJobPayload,
  WebhookLogStore,
  WebhooksQueue,
  applyReportingUpdate,
  createHitStore,
  openPostbackLog,
  openWebhookLog,
  withWebhookEvents,
  nodeExecutionJobs,
  openIncomingLog,
  openIntegrationDeliveryLog,
  type IncomingLogStore,
  type IntegrationDeliveryLogStore,
} from '@funnel/reporting-feature';
import { ensureDataDir } from './data-dir';
import { HitInbox, HitsStreamConsumer, hitsStreamConfig, ingestHits, type IngestHitsResult } from '@funnel/reporting-feature';
import type { EventStore } from '@funnel/eventstore';
import type { ReadStore } from '@funnel/readstore';

/** The reporting service's settings (besides the stores, NATS and outgoing-request ones). */
export const reportingConfig = {
  /** ClickHouse's HTTP interface (`http://user:password@host:8123/db`): the hit warehouse; absent: DuckDB under DATA_DIR. */
  CLICKHOUSE_URL: url({ optional: true, protocols: ['http', 'https'] }),
  /**
   * Refuse to start without CLICKHOUSE_URL: where the embedded warehouse under DATA_DIR would not outlive
   * the pod or would not be shared by the replicas (the Kubernetes base sets it; the dev overlay keeps
   * one replica on a volume instead).
   */
  REPORTING_REQUIRE_CLICKHOUSE: bool({ default: false }),
  /** Update jobs one process applies at once; 0: this process only accepts updates (others apply them). */
  REPORTING_WORKERS: int({ min: 0, max: 64, default: 2 }),
  /** Postback deliveries one process sends at once. */
  REPORTING_POSTBACK_WORKERS: int({ min: 1, max: 256, default: 8 }),
  /** Replicas of the JetStream job streams in a NATS cluster (3 keeps accepted updates through the loss of a server). */
  REPORTING_STREAM_REPLICAS: int({ min: 1, max: 5, default: 1 }),
  /** A reporting query (drilldown, raw events, explorer) running longer is stopped and answered 503 REPORTING.QUERY_TIMEOUT. */
  REPORTING_QUERY_TIMEOUT_MS: int({ min: 100, max: REPORTING_QUERY_LIMITS.maxQueryTimeoutMs, default: 20_000 }),
  /** The stream HITS of the tracking edge (distributed: reporting-service creates and consumes it; unused standalone). */
  ...hitsStreamConfig,
};

/** The checks across reporting settings, at start before anything is opened. */
export function checkReportingConfig(config: Pick<Config<typeof reportingConfig>, 'CLICKHOUSE_URL' | 'REPORTING_REQUIRE_CLICKHOUSE'>): void {
  if (config.REPORTING_REQUIRE_CLICKHOUSE && config.CLICKHOUSE_URL === undefined) {
    throw new ConfigError(
      'CLICKHOUSE_URL',
      'required',
      'is required when REPORTING_REQUIRE_CLICKHOUSE=true: the hits would otherwise go to DuckDB under DATA_DIR, lost with the pod and not shared by its replicas',
    );
  }
}

/**
 * Both queues: a 15 s lease renewed every 5 s while a job runs, so a job cut by a crash is retaken
 * about 15 s later on JetStream (by any replica) and at once by the restarted standalone process.
 */
const LEASE_MS = 15_000;
/** Postback deliveries: 5 attempts, the waits between them growing (seconds): 1, 5, 30, 120; a GET hung for a minute is retried. */
export const POSTBACK_QUEUE_OPTIONS = {
  ...ReportingQueues.postbacks,
  maxAttempts: 5,
  backoffMs: [1000, 5000, 30_000, 120_000],
  ackWaitMs: LEASE_MS,
  maxRunMs: 60_000,
};
/**
 * Webhook jobs: a delivery is attempted 6 times, the waits between attempts growing (seconds): 10,
 * 60, 300, 1800, 7200 (about 2.5 hours in all), then given up; an event's fan-out is retried alike.
 */
export const WEBHOOK_QUEUE_OPTIONS = {
  ...ReportingQueues.webhooks,
  maxAttempts: WEBHOOK_MAX_ATTEMPTS,
  backoffMs: [10_000, 60_000, 300_000, 1_800_000, 7_200_000],
  ackWaitMs: LEASE_MS,
  maxRunMs: 60_000,
};
/** Integration jobs (cost syncs, conversion uploads): 6 attempts, the waits growing (seconds): 5, 30, 120, 600, 1800. */
export const INTEGRATION_QUEUE_OPTIONS = {
  ...ReportingQueues.integrations,
  maxAttempts: 6,
  backoffMs: [5000, 30_000, 120_000, 600_000, 1_800_000],
  ackWaitMs: LEASE_MS,
  maxRunMs: 300_000,
};
/** Update jobs: 5 attempts; a job hung for 5 minutes is taken as lost. */
export const UPDATE_QUEUE_OPTIONS = {
  ...ReportingQueues.updates,
  maxAttempts: 5,
  backoffMs: [1000, 5000, 30_000, 120_000],
  ackWaitMs: LEASE_MS,
  maxRunMs: 300_000,
};

/** The file of the embedded queues and of the embedded hit warehouse's hit-key index (standalone, or a service without ClickHouse / JetStream). */
export const REPORTING_FILE = 'reporting.sqlite';
/** The embedded hit warehouse (DuckDB), without CLICKHOUSE_URL. One process at a time opens it. */
export const HIT_WAREHOUSE_FILE = 'reporting.duckdb';

/** The hit warehouse: ClickHouse with CLICKHOUSE_URL, else DuckDB in DATA_DIR (its hit-key index in REPORTING_FILE). */
export function openHitStore(config: { CLICKHOUSE_URL?: string; DATA_DIR: string }): Promise<HitStore> {
  return createHitStore({ clickhouseUrl: config.CLICKHOUSE_URL, dataDir: config.DATA_DIR, fileName: HIT_WAREHOUSE_FILE, indexFileName: REPORTING_FILE });
}

export interface ReportingParts {
  options: Omit<ReportingFeatureOptions, 'eventStore' | 'assets' | 'outbound'>;
  /** The integration jobs' queue (REPORTING_INTEGRATIONS); conversions jobs applied queue their uploads on it. */
  integrationJobs: IntegrationJobQueue;
  /** The integration deliveries log the integration jobs write (also `options.integrationDeliveryLog`). */
  deliveryLog: IntegrationDeliveryLogStore;
  /**
   * Standalone with the embedded warehouse: the ingest of hits posted in this process (the edge's,
   * through InProcessHitPoster), as the inbox's drain ingests them, without the inbox; batches with
   * webhook events (queued after the hits are stored) go through the inbox, which queues them again
   * after a crash in between. Absent with ClickHouse (the edge posts to the inbox) and in distributed mode.
   */
  postedHits?: PostedHitsIngest;
  close(): Promise<void>;
}

/** See ReportingParts.postedHits. */
export interface PostedHitsIngest {
  ingest: (inputs: unknown[]) => Promise<IngestHitsResult>;
  /** Batches the inbox carries. */
  inboxOnly: (inputs: readonly unknown[]) => boolean;
  /** Whether posted batches wait in the inbox to be drained. */
  inboxWaiting: () => boolean;
}

/** What tests change in the reporting composition (never set by configuration). */
export interface ReportingTesting {
  /** Queue timings: shorter backoffs, leases and polls. */
  queues?: { backoffMs?: number[]; pollIntervalMs?: number; ackWaitMs?: number };
  /** Rows per hit-store transaction (crash tests use small batches). */
  batchSize?: number;
  /** Wraps the hit store (crash tests kill the process between two batches). */
  wrapHitStore?: (store: HitStore) => HitStore;
  /** Accept updates without consuming the queues. */
  acceptOnly?: boolean;
}

interface PartsInput {
  config: Config<typeof reportingConfig> & { DATA_DIR: string };
  testing?: ReportingTesting;
}

/** Standalone: both queues in `DATA_DIR/reporting.sqlite` and (without CLICKHOUSE_URL) the hit warehouse in `DATA_DIR/reporting.duckdb`. */
export async function embeddedReportingParts({ config, testing = {} }: PartsInput): Promise<ReportingParts> {
  ensureDataDir(config.DATA_DIR, [REPORTING_FILE, HIT_WAREHOUSE_FILE]);
  const filename = join(config.DATA_DIR, REPORTING_FILE);
  const hitStore = await openHitStore(config);
  const postbackLog = await openPostbackLog(hitStore.warehouse);
  const incomingLog = await openIncomingLog(hitStore.warehouse);
  const updates = new EmbeddedJobQueue<UpdatePayload>({ ...UPDATE_QUEUE_OPTIONS, ...testing.queues, filename });
  const postbacks = new EmbeddedJobQueue<PostbackPayload>({ ...POSTBACK_QUEUE_OPTIONS, ...testing.queues, filename });
  const webhooks = new EmbeddedJobQueue<WebhookJobPayload>({ ...WEBHOOK_QUEUE_OPTIONS, ...testing.queues, filename });
  const integrationJobs = new EmbeddedJobQueue<IntegrationJobPayload>({ ...INTEGRATION_QUEUE_OPTIONS, ...testing.queues, filename });
  const webhookLog = await openWebhookLog(hitStore.warehouse);
  const deliveryLog = await openIntegrationDeliveryLog(hitStore.warehouse);
  // The inbox also with ClickHouse: the standalone edge hands its hits to reporting through it (with DuckDB, those the warehouse does not take at once).
  return partsOf(
    config,
    { hitStore, postbackLog, incomingLog, webhookLog, deliveryLog, webhooks, integrationJobs, inboxFile: filename, postedHits: !config.CLICKHOUSE_URL },
    updates,
    postbacks,
    testing,
    async () => undefined,
  );
}

/** Distributed: the queues on JetStream (a connection of the service's own NATS user), hits in ClickHouse or DuckDB under DATA_DIR. */
export async function jetStreamReportingParts({
  config,
  testing = {},
  natsUrl,
  access,
}: PartsInput & { natsUrl: string; access: NatsAccess }): Promise<ReportingParts> {
  if (!config.CLICKHOUSE_URL) ensureDataDir(config.DATA_DIR, [REPORTING_FILE, HIT_WAREHOUSE_FILE]);
  const connection: NatsConnection = await connect({ ...natsClientOptions(natsUrl, natsAccessOptions(access)).options, name: 'reporting-service-jobs' });
  const hitStore = await openHitStore(config);
  const postbackLog = await openPostbackLog(hitStore.warehouse);
  const incomingLog = await openIncomingLog(hitStore.warehouse);
  const { pollIntervalMs: _poll, ...timings } = testing.queues ?? {};
  const replicas = config.REPORTING_STREAM_REPLICAS;
  const updates = new JetStreamJobQueue<UpdatePayload>({ ...UPDATE_QUEUE_OPTIONS, ...timings, connection, replicas });
  const postbacks = new JetStreamJobQueue<PostbackPayload>({ ...POSTBACK_QUEUE_OPTIONS, ...timings, connection, replicas });
  const webhooks = new JetStreamJobQueue<WebhookJobPayload>({ ...WEBHOOK_QUEUE_OPTIONS, ...timings, connection, replicas });
  const integrationJobs = new JetStreamJobQueue<IntegrationJobPayload>({ ...INTEGRATION_QUEUE_OPTIONS, ...timings, connection, replicas });
  const webhookLog = await openWebhookLog(hitStore.warehouse);
  const deliveryLog = await openIntegrationDeliveryLog(hitStore.warehouse);
  const inboxFile = config.CLICKHOUSE_URL ? undefined : join(config.DATA_DIR, REPORTING_FILE);
  // The edge's hits: the streams HITS (older edges) and HITS_BATCHES into the warehouse, acknowledged once stored (every replica shares the consumers).
  const hits = new HitsStreamConsumer({
    connection,
    ingest: withWebhookEvents((inputs) => ingestHits(hitStore, inputs), webhooks),
    maxAgeMs: config.HITS_MAX_AGE_HOURS * 3600_000,
    maxBytes: config.HITS_MAX_BYTES,
    duplicateWindowMs: config.HITS_DUPLICATE_WINDOW_MS,
    replicas,
    batchMax: config.HITS_INGEST_BATCH_MAX,
    batchWaitMs: config.HITS_INGEST_WAIT_MS,
  });
  await hits.start();
  return partsOf(
    config,
    { hitStore, postbackLog, incomingLog, webhookLog, deliveryLog, webhooks, integrationJobs, inboxFile, stopHits: () => hits.close() },
    updates,
    postbacks,
    testing,
    () => connection.drain(),
  );
}

function partsOf(
  config: Config<typeof reportingConfig>,
  {
    hitStore,
    postbackLog,
    incomingLog,
    webhookLog,
    deliveryLog,
    webhooks,
    integrationJobs,
    inboxFile,
    postedHits,
    stopHits,
  }: {
    hitStore: HitStore;
    postbackLog: PostbackLogStore;
    incomingLog: IncomingLogStore;
    webhookLog: WebhookLogStore;
    deliveryLog: IntegrationDeliveryLogStore;
    webhooks: WebhooksQueue;
    integrationJobs: IntegrationJobQueue;
    inboxFile?: string;
    /** Whether hits posted in this process may go straight to the warehouse's ingest (`ReportingParts.postedHits`). */
    postedHits?: boolean;
    stopHits?: () => Promise<void>;
  },
  updates: ReportingFeatureOptions['updates'],
  postbacks: ReportingFeatureOptions['postbacks'],
  testing: ReportingTesting,
  closeConnection: () => Promise<void>,
): ReportingParts {
  // The embedded warehouse opens in this process only: `hits:import` hands its batches to it through the inbox.
  const inbox = inboxFile ? new HitInbox(inboxFile) : undefined;
  const ingest = withWebhookEvents((inputs) => ingestHits(hitStore, inputs), webhooks);
  const stopInbox = inbox?.watch(ingest);
  return {
    integrationJobs,
    deliveryLog,
    postedHits:
      postedHits && inbox
        ? { ingest, inboxOnly: (inputs) => nodeExecutionJobs(inputs, '').length > 0, inboxWaiting: () => inbox.postedWaiting() > 0 }
        : undefined,
    options: {
      hitStore: testing.wrapHitStore ? testing.wrapHitStore(hitStore) : hitStore,
      postbackLog,
      incomingLog,
      updates,
      postbacks,
      webhooks,
      webhookLog,
      integrationDeliveryLog: deliveryLog,
      apply: (deps) => applyReportingUpdate({ ...deps, batchSize: testing.batchSize }),
      settings: {
        workerConcurrency: config.REPORTING_WORKERS,
        postbackConcurrency: config.REPORTING_POSTBACK_WORKERS,
        acceptOnly: testing.acceptOnly || config.REPORTING_WORKERS === 0,
      },
    },
    async close() {
      // The edge's hits in hand are stored before the warehouse closes.
      await stopHits?.();
      await stopInbox?.();
      inbox?.close();
      await updates.close();
      await postbacks.close();
      await webhooks.close();
      await integrationJobs.close();
      await postbackLog.close();
      await webhookLog.close();
      await incomingLog.close();
      await deliveryLog.close();
      await hitStore.close();
      await closeConnection();
    },
  };
}

/**
 * The integration jobs' settings: their queue, reporting's cost queue (the same rules as PUT
 * /reporting/update/cost/), its hits, the conversions of a window (a query of the warehouse) and the
 * integration deliveries log.
 */
export function integrationJobsOf(parts: ReportingParts, testing: { scheduleCheckMs?: number } = {}): IntegrationJobsSettings {
  const { updates, hitStore } = parts.options;
  const warehouse = warehouseRunner(hitStore.warehouse);
  return {
    queue: parts.integrationJobs,
    scheduleCheckMs: testing.scheduleCheckMs,
    reporting: {
      async enqueueCost(accountId, jobId, update) {
        await updates.enqueue([{ jobId, type: 'cost', accountId, queuedAt: new Date().toISOString(), payload: update }]);
      },
      hits: (accountId, hitIds) => hitStore.getHits(accountId, hitIds),
      conversionsIn: (query) => windowConversions(warehouse, query),
      logDeliveries: (entries) => parts.deliveryLog.logged(entries),
    },
  };
}

/** The feature's options from the parts and what the app shares (event store, the bus to assets, the SSRF guard). */
/** The reporting queries over the same hit warehouse as the updates. */
export function reportingQueriesOptions(
  parts: ReportingParts,
  config: Pick<Config<typeof reportingConfig>, 'REPORTING_QUERY_TIMEOUT_MS'>,
  assets: ServiceClient,
): ReportingQueriesOptions {
  const { hitStore } = parts.options;
  return {
    warehouse: hitStore.warehouse,
    assets,
    hitsById: (accountId, hitIds) => hitStore.getHits(accountId, hitIds),
    visitorDays: hitStore.visitorDays?.bind(hitStore),
    timeoutMs: config.REPORTING_QUERY_TIMEOUT_MS,
  };
}

export function reportingFeatureOptions(
  parts: ReportingParts,
  { readStore, ...shared }: { eventStore: EventStore; readStore: ReadStore; assets: ServiceClient; outbound: OutboundHttp },
): ReportingFeatureOptions {
  // Conversions applied: their ad-platform uploads queued when the account has a linked conversion goal.
  return { ...parts.options, ...shared, onJobApplied: conversionUploadsListener(readStore, parts.integrationJobs) };
}
