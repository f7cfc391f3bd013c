import { DynamicModule, Injectable, Module } from '@nestjs/common';
import { EVENT_STORE, EventStore } from '@funnel/eventstore';
import type { OutboundHttp, ServiceClient } from '@funnel/platform';
import { HIT_STORE, HitStore } from './hits/hit-store';
import type { JobEnvelope } from './queue/job-queue';
import { PostbackLogMessageController } from './postback-log/postback-log.message.controller';
import { POSTBACK_LOG_STORE, PostbackLogStore } from './postback-log/postback-log-store';
import { ReportingMessageController } from './reporting.message.controller';
import { INCOMING_LOG_STORE, type IncomingLogStore } from './incoming-postbacks/incoming-log-store';
import { INCOMING_ASSETS, IncomingPostbacks } from './incoming-postbacks/incoming-postbacks.service';
import { IncomingPostbacksMessageController } from './incoming-postbacks/incoming-postbacks.message.controller';
import { IdempotencyKeys, JobRecords } from './service/job-records';
import { PostbackSender, REPORTING_OUTBOUND } from './service/postback-sender';
import { ReportingUpdates } from './service/reporting-updates';
import {
  ApplyUpdate,
  PostbacksQueue,
  REPORTING_APPLIED_LISTENER,
  REPORTING_APPLY,
  REPORTING_JOB_OBSERVER,
  REPORTING_POSTBACKS_QUEUE,
  REPORTING_SETTINGS,
  REPORTING_UPDATES_QUEUE,
  ReportingSettings,
  UpdatesQueue,
} from './service/reporting.tokens';
import { FunnelPostbackLookup, TrafficSourceLookup, funnelPostbacksFrom, trafficSourcesFrom } from './service/traffic-sources';
import { UpdateWorker } from './service/update-worker';
import { REPORTING_WEBHOOKS_QUEUE, type WebhooksQueue } from './webhooks/webhook-jobs';
import { WEBHOOK_LOG_STORE, type WebhookLogStore } from './webhooks/webhook-log-store';
import { REPORTING_ASSETS, WebhookSender } from './webhooks/webhook-sender';
import { WebhookLogMessageController } from './webhooks/webhook-log.message.controller';
import { INTEGRATION_DELIVERY_LOG_STORE, type IntegrationDeliveryLogStore } from './integration-deliveries/delivery-log-store';
import { IntegrationDeliveryLogMessageController } from './integration-deliveries/delivery-log.message.controller';

export interface ReportingFeatureOptions {
  eventStore: EventStore;
  hitStore: HitStore;
  /** The outgoing postback log (POST /reporting/logs/postbacks), written as postbacks are decided and delivered. */
  postbackLog: PostbackLogStore;
  /** The incoming postback log (POST /reporting/logs/incomingpostbacks); with it the service takes `reporting.internal.postback`. */
  incomingLog?: IncomingLogStore;
  updates: UpdatesQueue;
  postbacks: PostbacksQueue;
  /** Webhook events and deliveries (REPORTING_WEBHOOKS). */
  webhooks: WebhooksQueue;
  /** The webhook delivery log (POST /reporting/logs/webhooks), one row per attempt. */
  webhookLog: WebhookLogStore;
  /** The integration deliveries log (POST /reporting/logs/integrationdeliveries), written by the integrations' jobs. */
  integrationDeliveryLog?: IntegrationDeliveryLogStore;
  /** Postback deliveries go through the SSRF guard. */
  outbound: OutboundHttp;
  /** The service bus to assets-service (traffic sources' postback settings). */
  assets: ServiceClient;
  /** How jobs are applied to the hit store (the appliers of each update type). */
  apply: (deps: { hits: HitStore; sources: TrafficSourceLookup; funnelPostbacks: FunnelPostbackLookup }) => ApplyUpdate;
  settings?: ReportingSettings;
  /**
   * Told of each applied update job, with the indexes of its rows that changed a hit, before it is
   * recorded finished (queues the ad-platform conversion uploads).
   */
  onJobApplied?: (job: JobEnvelope<unknown>, appliedRows?: readonly number[]) => Promise<void>;
}

@Injectable()
export class ReportingHealth {
  ready(): boolean {
    return true;
  }
}

/** The reporting service: update routes, job and postback records, the update worker, the postback sender and the postback log. */
@Module({})
export class ReportingFeatureModule {
  static forRoot(options: ReportingFeatureOptions): DynamicModule {
    const sources = trafficSourcesFrom(options.assets);
    const funnelPostbacks = funnelPostbacksFrom(options.assets);
    const incoming = options.incomingLog
      ? [
          { provide: INCOMING_LOG_STORE, useValue: options.incomingLog },
          { provide: INCOMING_ASSETS, useValue: options.assets },
          IncomingPostbacks,
          { provide: REPORTING_JOB_OBSERVER, useExisting: IncomingPostbacks },
        ]
      : [];
    return {
      module: ReportingFeatureModule,
      controllers: [
        ReportingMessageController,
        PostbackLogMessageController,
        WebhookLogMessageController,
        ...(options.incomingLog ? [IncomingPostbacksMessageController] : []),
        ...(options.integrationDeliveryLog ? [IntegrationDeliveryLogMessageController] : []),
      ],
      providers: [
        { provide: EVENT_STORE, useValue: options.eventStore },
        { provide: HIT_STORE, useValue: options.hitStore },
        { provide: POSTBACK_LOG_STORE, useValue: options.postbackLog },
        { provide: REPORTING_UPDATES_QUEUE, useValue: options.updates },
        { provide: REPORTING_POSTBACKS_QUEUE, useValue: options.postbacks },
        { provide: REPORTING_WEBHOOKS_QUEUE, useValue: options.webhooks },
        { provide: WEBHOOK_LOG_STORE, useValue: options.webhookLog },
        { provide: REPORTING_ASSETS, useValue: options.assets },
        { provide: REPORTING_OUTBOUND, useValue: options.outbound },
        { provide: REPORTING_SETTINGS, useValue: options.settings ?? {} },
        { provide: REPORTING_APPLY, useValue: options.apply({ hits: options.hitStore, sources, funnelPostbacks }) },
        {
          provide: JobRecords,
          useFactory: (events: EventStore, log: PostbackLogStore) => new JobRecords(events, log),
          inject: [EVENT_STORE, POSTBACK_LOG_STORE],
        },
        { provide: IdempotencyKeys, useFactory: (events: EventStore) => new IdempotencyKeys(events), inject: [EVENT_STORE] },
        ReportingUpdates,
        UpdateWorker,
        PostbackSender,
        WebhookSender,
        ReportingHealth,
        ...incoming,
        ...(options.integrationDeliveryLog ? [{ provide: INTEGRATION_DELIVERY_LOG_STORE, useValue: options.integrationDeliveryLog }] : []),
        ...(options.onJobApplied ? [{ provide: REPORTING_APPLIED_LISTENER, useValue: options.onJobApplied }] : []),
      ],
      exports: [ReportingHealth],
    };
  }
}
