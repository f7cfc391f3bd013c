import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { Config, ConfigError, ConfigRule, INVALID_CONFIG_VALUE, OutboundHttp, dnsServersResolver, oneOf, port, string, url } from '@funnel/platform';
import { Catalog, CatalogError, DEFAULT_CATALOG, parseCatalog, serviceDomains } from '@funnel/billing-domain';
import {
  BillingFeatureOptions,
  BillingProvider,
  CloudflareEdge,
  DomainChecker,
  EMBEDDED_LEDGER,
  EdgeProvider,
  SelfManagedEdge,
  StripeBilling,
  dnsResolver,
} from '@funnel/billing-feature';
import { outboundConfig } from './config';

/** A comma-separated list; each entry trimmed, empty ones dropped, every one checked by `valid`. */
function list(description: string, valid: (entry: string) => boolean): ConfigRule<string[]> {
  return {
    description,
    read(raw) {
      if (raw === undefined) return [];
      const entries = raw
        .split(',')
        .map((entry) => entry.trim())
        .filter((entry) => entry !== '');
      return entries.every(valid) ? entries : INVALID_CONFIG_VALUE;
    },
  };
}

/** `ip`, `ip:port`, `[ipv6]` or `[ipv6]:port`, as node:dns's setServers takes them. */
function isDnsServer(entry: string): boolean {
  const bracketed = /^\[([^\]]+)\](?::(\d{1,5}))?$/.exec(entry);
  if (bracketed) return isIP(bracketed[1]) === 6 && (bracketed[2] === undefined || Number(bracketed[2]) <= 65535);
  if (isIP(entry)) return true;
  const withPort = /^([\d.]+):(\d{1,5})$/.exec(entry);
  return !!withPort && isIP(withPort[1]) === 4 && Number(withPort[2]) <= 65535;
}

const HOSTNAME = /^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.?$/i;

function hostname(defaultValue: string): ConfigRule<string> {
  return {
    description: `a host name such as edge.example.net (default ${defaultValue})`,
    read: (raw) => (raw === undefined ? defaultValue : HOSTNAME.test(raw) ? raw.toLowerCase().replace(/\.$/, '') : INVALID_CONFIG_VALUE),
  };
}

/** The billing service: custom domains (edge, routing check) and add-ons (catalog). */
export const billingConfig = {
  ...outboundConfig,
  /** Who serves the custom hostnames: the service's own ingress (self-managed) or Cloudflare for SaaS. */
  EDGE_PROVIDER: oneOf(['self-managed', 'cloudflare'], { default: 'self-managed' }),
  /** EDGE_PROVIDER=cloudflare: an API token with "SSL and Certificates: Edit" on the zone, and the zone's id. */
  CLOUDFLARE_API_TOKEN: string({ optional: true }),
  CLOUDFLARE_ZONE_ID: string({ optional: true }),
  CLOUDFLARE_API_URL: url({ default: 'https://api.cloudflare.com/client/v4', protocols: ['https', 'http'] }),
  /** Where users point their custom domains (their CNAME target); its registrable domain is never registrable. */
  EDGE_CNAME_TARGET: hostname('edge.funnel.example'),
  /** When set, the edge's /debug/domain-check answer must carry it as `token`. */
  EDGE_CHECK_TOKEN: string({ optional: true }),
  /** The service's own domains (and their subdomains), comma-separated: never registrable as custom domains. */
  RESERVED_DOMAINS: list('a comma-separated list of domains such as funnel.io,funnel-cdn.net (default none)', (entry) => HOSTNAME.test(entry)),
  /** DNS servers for the domain checks and TXT ownership lookups, comma-separated `ip[:port]`; the system's by default. */
  DNS_SERVERS: list('a comma-separated list of ip[:port] such as 1.1.1.1,[2606:4700:4700::1111]:53 (default: the system resolver)', isDnsServer),
  /** The port of the HTTPS routing check: 443, another only for tests and development. */
  DOMAIN_CHECK_PORT: port({ default: 443 }),
  /** A JSON file with the add-on catalog; the documented default catalog when unset. */
  BILLING_CATALOG_FILE: string({ optional: true }),
  /** Where subscription changes go: the embedded ledger (the subscription's own events), or Stripe as well. */
  BILLING_PROVIDER: oneOf(['ledger', 'stripe'], { default: 'ledger' }),
  /** BILLING_PROVIDER=stripe: the secret (or restricted) key; the catalog's add-ons need their stripe_price_id. */
  STRIPE_SECRET_KEY: string({ optional: true }),
  /** Another Stripe API address (stripe-mock, tests); Stripe's own when unset. */
  STRIPE_API_URL: url({ optional: true, protocols: ['https', 'http'] }),
};

export type BillingConfig = Config<typeof billingConfig> & { RPC_TIMEOUT_MS: number };

/** The catalog of BILLING_CATALOG_FILE, or the default; a bad file stops the process naming what is wrong. */
export function billingCatalogFrom(config: Pick<BillingConfig, 'BILLING_CATALOG_FILE'>): Catalog {
  const file = config.BILLING_CATALOG_FILE;
  if (file === undefined) return DEFAULT_CATALOG;
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    throw new ConfigError('BILLING_CATALOG_FILE', 'readable file', `must name a readable JSON file, got ${JSON.stringify(file)}`);
  }
  try {
    return parseCatalog(JSON.parse(text));
  } catch (error) {
    const why = error instanceof CatalogError ? error.message : 'it is not valid JSON';
    throw new ConfigError('BILLING_CATALOG_FILE', 'catalog', `must hold a valid add-on catalog: ${why}`);
  }
}

/** The routing check's bound: 3 s, kept inside the gateway's RPC timeout (a second of it left for the rest). */
export function domainCheckTimeoutMs(rpcTimeoutMs: number): number {
  return Math.max(500, Math.min(3000, rpcTimeoutMs - 1000));
}

/** The billing module's adapters and settings from configuration; `close` releases what they hold open. */
export function billingOptionsFrom(config: BillingConfig): { options: Omit<BillingFeatureOptions, 'eventStore' | 'readStore'>; close(): Promise<void> } {
  const catalog = billingCatalogFrom(config);
  const resolver = config.DNS_SERVERS.length ? dnsServersResolver(config.DNS_SERVERS) : undefined;
  const http = new OutboundHttp({ allowPrivate: config.OUTBOUND_ALLOW_PRIVATE, resolver, timeoutMs: domainCheckTimeoutMs(config.RPC_TIMEOUT_MS) });
  const checker = new DomainChecker({
    http,
    port: config.DOMAIN_CHECK_PORT,
    timeoutMs: domainCheckTimeoutMs(config.RPC_TIMEOUT_MS),
    edgeCheckToken: config.EDGE_CHECK_TOKEN,
  });
  const edge = edgeFrom(config);
  return {
    options: {
      edge,
      checker,
      catalog,
      billing: billingProviderFrom(config, catalog),
      settings: { edgeCnameTarget: config.EDGE_CNAME_TARGET, reservedDomains: serviceDomains(config.RESERVED_DOMAINS, config.EDGE_CNAME_TARGET) },
    },
    close: () => http.close(),
  };
}

function edgeFrom(config: BillingConfig): EdgeProvider {
  if (config.EDGE_PROVIDER === 'self-managed') return new SelfManagedEdge(dnsResolver(config.DNS_SERVERS));
  for (const variable of ['CLOUDFLARE_API_TOKEN', 'CLOUDFLARE_ZONE_ID'] as const) {
    if (config[variable] === undefined) throw new ConfigError(variable, 'set', 'is required when EDGE_PROVIDER is cloudflare');
  }
  return new CloudflareEdge({
    apiToken: config.CLOUDFLARE_API_TOKEN!,
    zoneId: config.CLOUDFLARE_ZONE_ID!,
    apiUrl: config.CLOUDFLARE_API_URL,
    timeoutMs: domainCheckTimeoutMs(config.RPC_TIMEOUT_MS),
  });
}

function billingProviderFrom(config: BillingConfig, catalog: Catalog): BillingProvider {
  if (config.BILLING_PROVIDER === 'ledger') return EMBEDDED_LEDGER;
  if (config.STRIPE_SECRET_KEY === undefined) throw new ConfigError('STRIPE_SECRET_KEY', 'set', 'is required when BILLING_PROVIDER is stripe');
  const unpriced = catalog.addons.filter((addon) => !addon.stripe_price_id).map((addon) => addon.addon_id);
  if (unpriced.length) {
    throw new ConfigError(
      'BILLING_CATALOG_FILE',
      'stripe prices',
      `must give every add-on a stripe_price_id when BILLING_PROVIDER is stripe (missing: ${unpriced.join(', ')})`,
    );
  }
  return new StripeBilling({
    secretKey: config.STRIPE_SECRET_KEY,
    catalog,
    apiUrl: config.STRIPE_API_URL,
    timeoutMs: domainCheckTimeoutMs(config.RPC_TIMEOUT_MS),
  });
}
