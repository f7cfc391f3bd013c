import { ASSET_EVENTS_RELAY_BUCKET, ASSET_EVENTS_STREAM, assetSubject } from '@funnel/contracts';
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
  /** The JetStream streams and buckets it writes, when it writes any. */
  jetstream?: NatsJetStreamUse;
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

export const FUNNEL_NATS_LAYOUT: NatsLayout = {
  services: [
    // The asset event relay publishes to the stream ASSET_EVENTS and keeps its lease in a bucket.
    {
      app: 'assets-service',
      subjectRoot: 'assets',
      jetstream: { streams: [ASSET_EVENTS_STREAM], keyValueBuckets: [ASSET_EVENTS_RELAY_BUCKET], inboxPrefix: DEFAULT_ASSETS_INBOX_PREFIX },
    },
    { app: 'identity-service', subjectRoot: 'identity' },
    // `POST /logicscripts/evaluate` with `idLogicScript` reads the script with the caller's context.
    {
      app: 'scripts-service',
      subjectRoot: 'scripts',
      calls: { subjects: [assetSubject('logicscript', 'findById')], inboxPrefix: DEFAULT_SCRIPTS_INBOX_PREFIX },
    },
    { app: 'billing-service', subjectRoot: 'billing' },
  ],
  gateway: 'gateway',
  gatewayInboxPrefix: DEFAULT_GATEWAY_INBOX_PREFIX,
};

/** The prefix of `app`'s reply inboxes, when it sends requests (undefined: it only answers). */
export function natsInboxPrefixOf(layout: NatsLayout, app: string): string | undefined {
  if (app === layout.gateway) return layout.gatewayInboxPrefix;
  const service = layout.services.find((candidate) => candidate.app === app);
  return service?.calls?.inboxPrefix ?? service?.jetstream?.inboxPrefix;
}

/** Every app of the layout, gateway first. */
export function natsApps(layout: NatsLayout): string[] {
  return [layout.gateway, ...layout.services.map((service) => service.app)];
}
