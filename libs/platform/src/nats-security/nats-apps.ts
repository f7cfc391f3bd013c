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
}

export interface NatsLayout {
  services: readonly NatsServiceApp[];
  /** The gateway's app name (`gateway`). */
  gateway: string;
  /** Prefix of the gateway's reply inboxes: it may subscribe to `<prefix>.>` and nothing else of the kind. */
  gatewayInboxPrefix: string;
}

export const DEFAULT_GATEWAY_INBOX_PREFIX = '_INBOX_gateway';

export const FUNNEL_NATS_LAYOUT: NatsLayout = {
  services: [
    { app: 'assets-service', subjectRoot: 'assets' },
    { app: 'identity-service', subjectRoot: 'identity' },
    { app: 'scripts-service', subjectRoot: 'scripts' },
    { app: 'billing-service', subjectRoot: 'billing' },
  ],
  gateway: 'gateway',
  gatewayInboxPrefix: DEFAULT_GATEWAY_INBOX_PREFIX,
};

/** Every app of the layout, gateway first. */
export function natsApps(layout: NatsLayout): string[] {
  return [layout.gateway, ...layout.services.map((service) => service.app)];
}
