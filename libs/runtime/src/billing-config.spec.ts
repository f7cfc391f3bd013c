import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig } from '@funnel/platform';
import { DEFAULT_CATALOG } from '@funnel/billing-domain';
import { tempDir } from '@funnel/testing';
import { billingCatalogFrom, billingConfig, billingOptionsFrom, domainCheckTimeoutMs } from './billing-config';

describe('billing configuration', () => {
  it('has defaults: self-managed edge on port 443, the system resolver, the default catalog', () => {
    const config = loadConfig(billingConfig, {});
    expect(config).toMatchObject({
      EDGE_CNAME_TARGET: 'edge.funnel.example',
      RESERVED_DOMAINS: [],
      DNS_SERVERS: [],
      DOMAIN_CHECK_PORT: 443,
      OUTBOUND_ALLOW_PRIVATE: false,
    });
    expect(billingCatalogFrom(config)).toBe(DEFAULT_CATALOG);
  });

  it('reads lists and host names', () => {
    const config = loadConfig(billingConfig, {
      EDGE_CNAME_TARGET: 'Edge.Funnel-CDN.net.',
      RESERVED_DOMAINS: 'funnel.io, funnel.app',
      DNS_SERVERS: '1.1.1.1, 127.0.0.1:5353, [::1]:53, 2606:4700:4700::1111',
    });
    expect(config.EDGE_CNAME_TARGET).toBe('edge.funnel-cdn.net');
    expect(config.RESERVED_DOMAINS).toEqual(['funnel.io', 'funnel.app']);
    expect(config.DNS_SERVERS).toEqual(['1.1.1.1', '127.0.0.1:5353', '[::1]:53', '2606:4700:4700::1111']);
    const billing = billingOptionsFrom({ ...config, RPC_TIMEOUT_MS: 4000 });
    expect(billing.options.settings).toEqual({ edgeCnameTarget: 'edge.funnel-cdn.net', reservedDomains: ['funnel.io', 'funnel.app', 'funnel-cdn.net'] });
    return billing.close();
  });

  it.each([
    ['DNS_SERVERS', 'dns.google', /DNS_SERVERS must be a comma-separated list of ip\[:port\]/],
    ['DNS_SERVERS', '1.1.1.1:99999', /DNS_SERVERS must be/],
    ['RESERVED_DOMAINS', 'funnel io', /RESERVED_DOMAINS must be a comma-separated list of domains/],
    ['EDGE_CNAME_TARGET', 'http://edge.example.net', /EDGE_CNAME_TARGET must be a host name/],
    ['DOMAIN_CHECK_PORT', '70000', /DOMAIN_CHECK_PORT must be a port/],
  ])('stops on a bad %s', (variable, value, message) => {
    expect(() => loadConfig(billingConfig, { [variable]: value })).toThrow(message);
  });

  it('reads a catalog file, and stops on a missing or invalid one naming the problem', () => {
    const dir = tempDir('billing-catalog');
    try {
      const file = join(dir.path, 'catalog.json');
      const custom = { ...DEFAULT_CATALOG, plan: { ...DEFAULT_CATALOG.plan, included_custom_domains: 10 } };
      writeFileSync(file, JSON.stringify(custom));
      expect(billingCatalogFrom({ BILLING_CATALOG_FILE: file }).plan.included_custom_domains).toBe(10);
      writeFileSync(file, JSON.stringify({ ...custom, addons: [] }));
      expect(() => billingCatalogFrom({ BILLING_CATALOG_FILE: file })).toThrow(
        'Invalid configuration: BILLING_CATALOG_FILE must hold a valid add-on catalog: addons must be a non-empty array',
      );
      writeFileSync(file, '{');
      expect(() => billingCatalogFrom({ BILLING_CATALOG_FILE: file })).toThrow('it is not valid JSON');
      expect(() => billingCatalogFrom({ BILLING_CATALOG_FILE: join(dir.path, 'none.json') })).toThrow('BILLING_CATALOG_FILE must name a readable JSON file');
    } finally {
      dir.remove();
    }
  });

  it('chooses the edge provider; Cloudflare needs its token and zone', async () => {
    const options = (env: NodeJS.ProcessEnv) => billingOptionsFrom({ ...loadConfig(billingConfig, env), RPC_TIMEOUT_MS: 4000 });
    const selfManaged = options({});
    expect(selfManaged.options.edge.name).toBe('self-managed');
    await selfManaged.close();
    const cloudflare = options({ EDGE_PROVIDER: 'cloudflare', CLOUDFLARE_API_TOKEN: 't', CLOUDFLARE_ZONE_ID: 'z' });
    expect(cloudflare.options.edge.name).toBe('cloudflare');
    await cloudflare.close();
    expect(() => options({ EDGE_PROVIDER: 'cloudflare', CLOUDFLARE_ZONE_ID: 'z' })).toThrow(
      'Invalid configuration: CLOUDFLARE_API_TOKEN is required when EDGE_PROVIDER is cloudflare',
    );
    expect(() => options({ EDGE_PROVIDER: 'cloudflare', CLOUDFLARE_API_TOKEN: 't' })).toThrow(
      'CLOUDFLARE_ZONE_ID is required when EDGE_PROVIDER is cloudflare',
    );
    expect(() => options({ EDGE_PROVIDER: 'akamai' })).toThrow('EDGE_PROVIDER must be one of self-managed, cloudflare');
  });

  it('chooses the billing provider; Stripe needs its key and a price for every add-on', async () => {
    const dir = tempDir('billing-catalog');
    try {
      const file = join(dir.path, 'catalog.json');
      writeFileSync(file, JSON.stringify({ ...DEFAULT_CATALOG, addons: DEFAULT_CATALOG.addons.map((a) => ({ ...a, stripe_price_id: `price_${a.tier}` })) }));
      const options = (env: NodeJS.ProcessEnv) => billingOptionsFrom({ ...loadConfig(billingConfig, env), RPC_TIMEOUT_MS: 4000 });
      const ledger = options({});
      expect(ledger.options.billing?.name).toBe('ledger');
      await ledger.close();
      const stripe = options({
        BILLING_PROVIDER: 'stripe',
        STRIPE_SECRET_KEY: 'sk_test_x',
        BILLING_CATALOG_FILE: file,
        STRIPE_API_URL: 'http://127.0.0.1:12111',
      });
      expect(stripe.options.billing?.name).toBe('stripe');
      await stripe.close();
      expect(() => options({ BILLING_PROVIDER: 'stripe', BILLING_CATALOG_FILE: file })).toThrow(
        'STRIPE_SECRET_KEY is required when BILLING_PROVIDER is stripe',
      );
      expect(() => options({ BILLING_PROVIDER: 'stripe', STRIPE_SECRET_KEY: 'sk_test_x' })).toThrow(
        'BILLING_CATALOG_FILE must give every add-on a stripe_price_id when BILLING_PROVIDER is stripe (missing: extra-custom-domain, extra-user, events-10m, events-50m)',
      );
    } finally {
      dir.remove();
    }
  });

  it('keeps the 3 s check inside the gateway RPC timeout', () => {
    expect(domainCheckTimeoutMs(4000)).toBe(3000);
    expect(domainCheckTimeoutMs(5000)).toBe(3000);
    expect(domainCheckTimeoutMs(2000)).toBe(1000);
    expect(domainCheckTimeoutMs(100)).toBe(500);
  });
});
