import {
  ASSETS_EDGE_SNAPSHOT_SUBJECT,
  ASSETS_MIDDLEWARE_SECRETS_SUBJECT,
  ASSETS_INTERNAL_SUBJECTS,
  ASSETS_WEBHOOK_DELIVER_SUBJECT,
  ASSETS_WEBHOOK_TARGETS_SUBJECT,
  ASSET_EVENTS_RELAY_BUCKET,
  ASSET_EVENTS_STREAM,
  EDGE_SESSIONS_BUCKET,
  HitBatchesStream,
  HitsStream,
  ASSET_EVENTS_SUBJECTS,
  BILLING_EDGE_DOMAINS_SUBJECT,
  BILLING_INTERNAL_SUBJECTS,
  REPORTING_INTERNAL_SUBJECTS,
  ReportingQueues,
  ReportingSubjects,
  assetSubject,
} from '@funnel/contracts';
import type { NatsJetStreamUse } from './jetstream-permissions';

/**
 * Who talks over NATS in distributed mode, as data: the gateway sends requests, and each service
 * answers the subjects under its own root (`assets.visitortag.list` belongs to `assets`) and
 * publishes its events under `<root>.events.`. A new service (billing, reporting) is one more entry.
 */
export interface NatsServiceApp {
  /** The app's name, also the base of its NATS user names (`assets-service`). */
  app: string;
  /** First token of every subject it serves (`assets`). */
  subjectRoot: string;
  /** The requests it sends to other services, when it sends any. */
  calls?: NatsServiceCalls;
  /** Subjects under its root that only its `clients` (not the gateway) may send to. */
  internalSubjects?: readonly string[];
  /** The JetStream streams and buckets it owns, when it owns any. */
  jetstream?: NatsJetStreamUse;
}

/** A NATS user that only sends requests (the tracking edge, the CLI's `hits:import` over NATS). */
export interface NatsClientApp {
  app: string;
  calls: NatsServiceCalls;
  /** The JetStream streams and buckets it owns, when it owns any (their API answers come on its calls' inboxes). */
  jetstream?: NatsJetStreamUse;
  /**
   * Subjects of JetStream streams another app owns that it publishes to (wildcards allowed), with
   * the streams' acknowledgements on its inboxes: no JetStream API rights.
   */
  streamPublishes?: readonly string[];
  /**
   * Subjects a service publishes that it receives as a plain subscriber (each replica every message),
   * e.g. the asset events `assets.events.>` for the tracking edge's snapshot. Only the service that
   * owns the root may publish there, so what arrives is the service's.
   */
  receives?: readonly string[];
}

/** A service's own requests: exactly these subjects, with the replies on its own inboxes. */
export interface NatsServiceCalls {
  /** Subjects it may publish requests to, each named in full (no wildcards). */
  subjects: readonly string[];
  /** Prefix of its reply inboxes (its NATS_INBOX_PREFIX): it may subscribe to `<prefix>.>`. */
  inboxPrefix: string;
}

export interface NatsLayout {
  services: readonly NatsServiceApp[];
  /** Users that only send requests (never answer), e.g. the tracking edge's hit ingest. */
  clients?: readonly NatsClientApp[];
  /** The gateway's app name (`gateway`). */
  gateway: string;
  /** Prefix of the gateway's reply inboxes: it may subscribe to `<prefix>.>` and nothing else of the kind. */
  gatewayInboxPrefix: string;
}

export const DEFAULT_GATEWAY_INBOX_PREFIX = '_INBOX_gateway';
/** assets-service's reply inboxes (the asset event relay's JetStream API answers and publish acknowledgements). */
export const DEFAULT_ASSETS_INBOX_PREFIX = '_INBOX_assets';
/** scripts-service's reply inboxes (it reads logic scripts from assets-service). */
export const DEFAULT_SCRIPTS_INBOX_PREFIX = '_INBOX_scripts';
/** reporting-service's reply inboxes (traffic sources from assets-service, JetStream pulls and acknowledgements of its publishes). */
export const DEFAULT_REPORTING_INBOX_PREFIX = '_INBOX_reporting';
/** The tracking edge's (and `hits:import`'s) reply inboxes. */
export const DEFAULT_TRACKING_EDGE_INBOX_PREFIX = '_INBOX_tracking_edge';

export const FUNNEL_NATS_LAYOUT: NatsLayout = {
  services: [
    // The asset event relay publishes to the stream ASSET_EVENTS and keeps its lease in a bucket.
    {
      app: 'assets-service',
      subjectRoot: 'assets',
      // The tracking edge's load of every routing asset (across accounts).
      internalSubjects: ASSETS_INTERNAL_SUBJECTS,
      // It also creates the readers' durable consumers of the stream (ASSET_EVENTS_READERS, jetStreamReaderPermissions).
      jetstream: {
        streams: [{ stream: ASSET_EVENTS_STREAM, readers: true }],
        keyValueBuckets: [ASSET_EVENTS_RELAY_BUCKET],
        inboxPrefix: DEFAULT_ASSETS_INBOX_PREFIX,
      },
    },
    { app: 'identity-service', subjectRoot: 'identity' },
    // `POST /logicscripts/evaluate` with `idLogicScript` reads the script with the caller's context.
    {
      app: 'scripts-service',
      subjectRoot: 'scripts',
      calls: { subjects: [assetSubject('logicscript', 'findById')], inboxPrefix: DEFAULT_SCRIPTS_INBOX_PREFIX },
    },
    // The tracking edge's load of every account's custom domains.
    { app: 'billing-service', subjectRoot: 'billing', internalSubjects: BILLING_INTERNAL_SUBJECTS },
    // Reads a traffic source's postback settings (and a funnel's overrides of them) when applying conversions, and asset names for reports; jobs on two JetStream streams,
    // the account leases of its update workers in a bucket.
    {
      app: 'reporting-service',
      subjectRoot: 'reporting',
      // Reports name assets: find/byIds of the kinds a grouping shows (funnel groups, funnels, pages, sources, offer sources, tags).
      calls: {
        subjects: [
          assetSubject('trafficsource', 'findById'),
          assetSubject('funnel', 'findById'),
          // An incoming postback without revenue takes its hit's offer payout.
          assetSubject('page', 'findById'),
          ...['funnelgroup', 'funnel', 'page', 'trafficsource', 'offersource', 'visitortag'].map((kind) => assetSubject(kind, 'findByIds')),
          // Webhook deliveries: the configs an event goes to, and each signed delivery (assets holds the secrets).
          ASSETS_WEBHOOK_TARGETS_SUBJECT,
          ASSETS_WEBHOOK_DELIVER_SUBJECT,
        ],
        inboxPrefix: DEFAULT_REPORTING_INBOX_PREFIX,
      },
      internalSubjects: REPORTING_INTERNAL_SUBJECTS,
      jetstream: {
        streams: [
          { stream: ReportingQueues.updates.name, subjectPrefix: ReportingQueues.updates.subjectPrefix, consumes: true },
          { stream: ReportingQueues.postbacks.name, subjectPrefix: ReportingQueues.postbacks.subjectPrefix, consumes: true },
          { stream: ReportingQueues.webhooks.name, subjectPrefix: ReportingQueues.webhooks.subjectPrefix, consumes: true },
          { stream: ReportingQueues.integrations.name, subjectPrefix: ReportingQueues.integrations.subjectPrefix, consumes: true },
          // It creates the edge's streams of hits (one a message, and batches) and consumes them into the warehouse; the edge only publishes there.
          { stream: HitsStream.name, consumes: true },
          { stream: HitBatchesStream.name, consumes: true },
        ],
      },
    },
  ],
  // The tracking edge (`npm run cli -- hits:import` over NATS uses its user too): writes and reads hits,
  // publishes the hits it records to the stream HITS_BATCHES (`hits.batch.<accountId>`, a request's hits a message, created by
  // reporting-service); `hits.<accountId>` (the stream HITS, a hit a message) stays allowed for the edges before batches.
  clients: [
    // Its asset snapshot: loads every routing asset and custom domain, then receives the asset events (every replica all of them).
    {
      app: 'tracking-edge',
      calls: {
        subjects: [
          ReportingSubjects.hitsIngest,
          ReportingSubjects.hitsGet,
          ReportingSubjects.postbackIn,
          ASSETS_EDGE_SNAPSHOT_SUBJECT,
          ASSETS_MIDDLEWARE_SECRETS_SUBJECT,
          BILLING_EDGE_DOMAINS_SUBJECT,
        ],
        inboxPrefix: DEFAULT_TRACKING_EDGE_INBOX_PREFIX,
      },
      receives: [ASSET_EVENTS_SUBJECTS],
      // Visitor sessions, shared by every edge replica: it creates the bucket (max age SESSION_TTL), reads and writes its keys.
      jetstream: { streams: [], keyValueBuckets: [EDGE_SESSIONS_BUCKET] },
      streamPublishes: [`${HitsStream.subjectPrefix}.*`, `${HitBatchesStream.subjectPrefix}.*`],
    },
  ],
  gateway: 'gateway',
  gatewayInboxPrefix: DEFAULT_GATEWAY_INBOX_PREFIX,
};

/** The prefix of `app`'s reply inboxes, when it sends requests (undefined: it only answers). */
export function natsInboxPrefixOf(layout: NatsLayout, app: string): string | undefined {
  if (app === layout.gateway) return layout.gatewayInboxPrefix;
  const service = layout.services.find((candidate) => candidate.app === app);
  if (service) return service.calls?.inboxPrefix ?? service.jetstream?.inboxPrefix;
  return layout.clients?.find((client) => client.app === app)?.calls.inboxPrefix;
}

/** Every app of the layout, gateway first. */
export function natsApps(layout: NatsLayout): string[] {
  return [layout.gateway, ...layout.services.map((service) => service.app), ...(layout.clients ?? []).map((client) => client.app)];
}
