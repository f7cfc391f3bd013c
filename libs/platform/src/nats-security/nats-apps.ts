import { assetSubject } from '@funnel/contracts';

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
/** scripts-service's reply inboxes (it reads logic scripts from assets-service). */
export const DEFAULT_SCRIPTS_INBOX_PREFIX = '_INBOX_scripts';

export const FUNNEL_NATS_LAYOUT: NatsLayout = {
  services: [
    { app: 'assets-service', subjectRoot: 'assets' },
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
  return layout.services.find((service) => service.app === app)?.calls?.inboxPrefix;
}

/** Every app of the layout, gateway first. */
export function natsApps(layout: NatsLayout): string[] {
  return [layout.gateway, ...layout.services.map((service) => service.app)];
}
