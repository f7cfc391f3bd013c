import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { INestApplicationContext, LoggerService } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { CallerContext, ServiceError } from '@funnel/contracts';
import { SqliteEventStore } from '@funnel/eventstore';
import { EmbeddedReadStore } from '@funnel/readstore';
import { OutboundHttp } from '@funnel/platform';
import { selfSignedCertificate } from '@funnel/testing';
import { BillingFeatureModule, BillingHealth } from './billing-feature.module';
import { BillingMessageController } from './billing.message.controller';
import { DomainChecker } from './checks/domain-checker';
import { SelfManagedEdge, TxtResolver } from './edge/self-managed-edge';
import { BillingChange, BillingProvider } from './providers/billing-provider';

const perm = ['billing:manage'];
const alice: CallerContext = { accountId: 'ACCOUNT0000A', userId: 'USER0000000A', permissions: perm, correlationId: 'c-a' };
const bob: CallerContext = { accountId: 'ACCOUNT0000B', userId: 'USER0000000B', permissions: perm, correlationId: 'c-b' };
const DOMAINS = ['shop.example.com', 'go.example.com', 'a.example.org', 'b.example.org', 'c.example.org', 'd.example.org', 'race.example.net'];

describe('billing feature over SQLite and the embedded read store', () => {
  const { cert, key } = selfSignedCertificate(DOMAINS);
  /** What the local "edge" answers per host: our edge's body, or another site's. */
  const answers = new Map<string, 'edge' | 'other'>();
  const txt = new Map<string, string>();
  const audit: Record<string, unknown>[] = [];
  let server: Server;
  let port: number;
  let http: OutboundHttp;
  let now: number;
  let eventStore: SqliteEventStore;
  const apps: INestApplicationContext[] = [];

  const txtResolver: TxtResolver = {
    async resolveTxt(name) {
      const value = txt.get(name);
      if (value === undefined) throw Object.assign(new Error('no data'), { code: 'ENODATA' });
      return [[value]];
    },
  };
  const auditLogger = {
    log: (line: Record<string, unknown>) => audit.push(line),
    error: (line: Record<string, unknown>) => audit.push(line),
  } as unknown as LoggerService;

  /** One replica of the billing service: its own read store, the shared event log. */
  async function replica(billingProvider?: BillingProvider): Promise<BillingMessageController> {
    const app = await Test.createTestingModule({
      imports: [
        BillingFeatureModule.forRoot({
          eventStore,
          readStore: new EmbeddedReadStore(),
          edge: new SelfManagedEdge(txtResolver),
          checker: new DomainChecker({ http, port, clock: () => now }),
          settings: { edgeCnameTarget: 'edge.funnel.example', reservedDomains: ['funnel.example'] },
          clock: () => now,
          auditLogger,
          billing: billingProvider,
        }),
      ],
    }).compile();
    await app.init();
    apps.push(app);
    return app.get(BillingMessageController);
  }

  beforeAll(async () => {
    server = createServer({ cert, key }, (req, res) => {
      const host = (req.headers.host ?? '').split(':')[0];
      if (req.url !== '/debug/domain-check') return res.writeHead(404).end();
      const answer = answers.get(host) === 'edge' ? { service: 'funnel-edge', domain: host } : { hello: 'a parked page' };
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
    http = new OutboundHttp({ allowPrivate: true, ca: cert, resolver: { resolve: async () => [{ address: '127.0.0.1', family: 4 }] } });
  });
  afterAll(async () => {
    await http.close();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  let billing: BillingMessageController;
  beforeEach(async () => {
    eventStore = new SqliteEventStore({ filename: ':memory:' });
    now = Date.parse('2025-01-16T00:00:00Z');
    answers.clear();
    txt.clear();
    audit.length = 0;
    billing = await replica();
  });
  afterEach(async () => {
    for (const app of apps.splice(0)) await app.close();
    await eventStore.close();
  });

  const req = (context: CallerContext, body?: unknown, params?: Record<string, string>, headers?: Record<string, string>) => ({
    context,
    body: { query: {}, body, params, headers },
  });
  const failure = async (promise: Promise<unknown>) => {
    const error = await promise.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServiceError);
    return error as ServiceError;
  };

  it('is ready once its projection has caught up', () => {
    expect(apps[0].get(BillingHealth).ready()).toBe(true);
  });

  it('registers a domain as pending with the DNS records to add, lists it and shows it', async () => {
    const created = await billing.createDomain(req(alice, { domain: 'Shop.Example.com.' }));
    expect(created).toMatchObject({
      success: true,
      error_code: '',
      error_message: '',
      domain: {
        domain: 'shop.example.com',
        owner: alice.accountId,
        status: 'pending',
        ssl: { status: 'initializing', txt_name: '', txt_value: '' },
        ownership_verification: { type: 'txt', name: '_funnel-verify.shop.example.com' },
        verification_errors: [],
        parsed: { subdomain: 'shop', root_domain: 'example.com' },
        created_at: '2025-01-16T00:00:00.000Z',
      },
    });
    const { domain } = created;
    expect(domain.id).toMatch(/^[0-9A-Za-z]{12}$/);
    expect(domain.edge_id).toMatch(/^sm-/);
    expect(domain.ownership_verification.value.length).toBeGreaterThanOrEqual(32);
    expect(created.message).toBe(
      `Add a CNAME record shop.example.com -> edge.funnel.example, a TXT record _funnel-verify.shop.example.com = ${domain.ownership_verification.value}; then refresh the domain to verify it.`,
    );
    expect(await billing.listDomains(req(alice))).toEqual({
      success: true,
      domains: [
        {
          id: domain.id,
          domain: 'shop.example.com',
          edge_id: domain.edge_id,
          status: 'pending',
          ssl_status: 'initializing',
          verification_errors: [],
          created_at: domain.created_at,
        },
      ],
      error_code: '',
      error_message: '',
    });
    expect(await billing.getDomain(req(alice, undefined, { domain: 'SHOP.example.com' }))).toEqual({
      success: true,
      domain,
      error_code: '',
      error_message: '',
    });
  });

  it('refuses an invalid or reserved domain (400 INVALID_DOMAIN)', async () => {
    for (const bad of ['localhost', '10.0.0.1', '*.example.com', 'co.uk', 'track.funnel.example', undefined]) {
      expect(await failure(billing.createDomain(req(alice, { domain: bad })))).toMatchObject({ status: 400, code: 'INVALID_DOMAIN' });
    }
  });

  it('keeps domains to their account: 409 DOMAIN_EXISTS in the same one, DOMAIN_ALREADY_OWNED in another, 404 for others', async () => {
    await billing.createDomain(req(alice, { domain: 'shop.example.com' }));
    expect(await failure(billing.createDomain(req(alice, { domain: 'shop.example.com' })))).toMatchObject({ status: 409, code: 'DOMAIN_EXISTS' });
    expect(await failure(billing.createDomain(req(bob, { domain: 'SHOP.example.com' })))).toMatchObject({ status: 409, code: 'DOMAIN_ALREADY_OWNED' });
    for (const call of [
      billing.getDomain(req(bob, undefined, { domain: 'shop.example.com' })),
      billing.deleteDomain(req(bob, undefined, { domain: 'shop.example.com' })),
      billing.refreshDomain(req(bob, undefined, { domain: 'shop.example.com' })),
    ]) {
      expect(await failure(call)).toMatchObject({ status: 404, code: 'NOT_FOUND' });
    }
    expect((await billing.listDomains(req(bob))).domains).toEqual([]);
  });

  it('gives a domain raced for by two accounts on two replicas exactly one owner', async () => {
    const other = await replica();
    for (let round = 0; round < 5; round++) {
      const domain = `r${round}.race.example.net`;
      const results = await Promise.allSettled([billing.createDomain(req(alice, { domain })), other.createDomain(req(bob, { domain }))]);
      const won = results.filter((r) => r.status === 'fulfilled');
      const lost = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
      expect(won).toHaveLength(1);
      expect(lost).toHaveLength(1);
      expect(lost[0].reason).toMatchObject({ status: 409, code: 'DOMAIN_ALREADY_OWNED' });
    }
  });

  it('refresh: pending until ownership is verified and our edge answers, then active; moved when it no longer answers', async () => {
    const { domain } = await billing.createDomain(req(alice, { domain: 'shop.example.com' }));
    const refresh = () => billing.refreshDomain(req(alice, undefined, { domain: 'shop.example.com' }));

    answers.set('shop.example.com', 'edge');
    let result = await refresh();
    expect(result.domain).toMatchObject({ status: 'pending', verification_errors: ['no TXT record _funnel-verify.shop.example.com found'] });
    expect(result.check).toMatchObject({ success: true, found: true, ssl_valid: true, http_status: 200, edge_status: 'pending', edge_ssl_status: 'active' });

    txt.set('_funnel-verify.shop.example.com', domain.ownership_verification.value);
    result = await refresh();
    expect(result).toMatchObject({
      success: true,
      domain: { status: 'active', ssl: { status: 'active' }, verification_errors: [] },
      check: { found: true, edge_status: 'active' },
    });
    expect((await billing.listDomains(req(alice))).domains[0]).toMatchObject({ status: 'active', ssl_status: 'active' });

    answers.set('shop.example.com', 'other');
    result = await refresh();
    expect(result.domain.status).toBe('moved');
    expect(result.check).toMatchObject({
      found: false,
      ssl_valid: true,
      http_status: 200,
      error_message: '/debug/domain-check answered, but not as our edge does: the domain does not point to us',
      edge_status: 'moved',
    });
    expect((await billing.getDomain(req(alice, undefined, { domain: 'shop.example.com' }))).domain.status).toBe('moved');
  });

  it('checks any domain, reports TLS failures, shows the edge view of its own domains, and logs every check', async () => {
    await billing.createDomain(req(alice, { domain: 'go.example.com' }));
    answers.set('go.example.com', 'edge');
    const own = await billing.checkDomain(req(alice, { domain: 'go.example.com' }));
    expect(own).toMatchObject({
      success: true,
      found: true,
      ssl_valid: true,
      http_status: 200,
      ssl_error: '',
      error_message: '',
      edge_status: 'pending',
      edge_ssl_status: 'initializing',
    });
    expect(own.check_timestamp).toBe(now / 1000);
    // Not on the certificate: the handshake fails and nothing is read.
    const mismatch = await billing.checkDomain(req(alice, { domain: 'other.example.com' }));
    expect(mismatch).toMatchObject({
      success: true,
      found: false,
      ssl_valid: false,
      http_status: 0,
      ssl_error: 'the certificate is not valid for other.example.com (ERR_TLS_CERT_ALTNAME_INVALID)',
      edge_status: '',
    });
    expect(audit).toEqual([
      expect.objectContaining({
        event: 'billing.domain_check',
        via: 'check',
        accountId: alice.accountId,
        domain: 'go.example.com',
        found: true,
        outcome: 'found',
      }),
      expect.objectContaining({
        accountId: alice.accountId,
        domain: 'other.example.com',
        found: false,
        outcome: expect.stringContaining('TLS handshake failed'),
      }),
    ]);
  });

  it('allows 30 checks a minute per account, then 429 RATE_LIMITED until the minute ends', async () => {
    now = Date.parse('2025-01-16T10:00:05Z');
    for (let i = 0; i < 30; i++) await billing.checkDomain(req(alice, { domain: 'go.example.com' }));
    const refused = await failure(billing.checkDomain(req(alice, { domain: 'go.example.com' })));
    expect(refused).toMatchObject({ status: 429, code: 'RATE_LIMITED', retryAfterSeconds: 55 });
    await billing.checkDomain(req(bob, { domain: 'go.example.com' }));
    expect(audit).toHaveLength(31);
    now = Date.parse('2025-01-16T10:01:00Z');
    await expect(billing.checkDomain(req(alice, { domain: 'go.example.com' }))).resolves.toMatchObject({ success: true });
  });

  it('deletes a domain, releases it for another account, and keeps the stream for a new registration', async () => {
    await billing.createDomain(req(alice, { domain: 'shop.example.com' }));
    expect(await billing.deleteDomain(req(alice, undefined, { domain: 'shop.example.com' }))).toEqual({
      success: true,
      message: 'shop.example.com deleted',
      error_code: '',
      error_message: '',
    });
    expect((await billing.listDomains(req(alice))).domains).toEqual([]);
    expect(await failure(billing.getDomain(req(alice, undefined, { domain: 'shop.example.com' })))).toMatchObject({ status: 404, code: 'NOT_FOUND' });
    expect(await failure(billing.deleteDomain(req(alice, undefined, { domain: 'shop.example.com' })))).toMatchObject({ status: 404 });
    await expect(billing.createDomain(req(bob, { domain: 'shop.example.com' }))).resolves.toMatchObject({ domain: { owner: bob.accountId } });
  });

  it('raises the domain add-on beyond the 3 included domains and lowers it on delete', async () => {
    for (const domain of ['a.example.org', 'b.example.org', 'c.example.org']) await billing.createDomain(req(alice, { domain }));
    expect((await billing.getSubscription(req(alice))).subscription.items).toEqual([]);
    await billing.createDomain(req(alice, { domain: 'd.example.org' }));
    expect((await billing.getSubscription(req(alice))).subscription.items).toEqual([
      { addon_id: 'extra-custom-domain', quantity: 1, unit_price_cents: 500, tier: 'domains' },
    ]);
    expect(await failure(billing.changeQuantity(req(alice, { addon_id: 'extra-custom-domain', quantity: 0 })))).toMatchObject({
      status: 400,
      code: 'INVALID_QUANTITY',
    });
    await billing.deleteDomain(req(alice, undefined, { domain: 'a.example.org' }));
    expect((await billing.getSubscription(req(alice))).subscription.items).toEqual([]);
    const { upcoming } = await billing.listInvoices(req(alice));
    expect(upcoming.lines.map((l) => l.amount_cents)).toEqual([258, -258]);
  });

  it('changes quantities and switches with proration; subscription and invoices show the state', async () => {
    const changed = await billing.changeQuantity(req(alice, { addon_id: 'extra-user', quantity: 2 }));
    expect(changed).toMatchObject({
      success: true,
      subscription: {
        plan_id: 'pro',
        period_start: Date.parse('2025-01-01T00:00:00Z') / 1000,
        items: [{ addon_id: 'extra-user', quantity: 2, unit_price_cents: 900, tier: 'users' }],
      },
      proration: { amount_cents: 929, lines: [{ addon_id: 'extra-user', amount_cents: 929 }] },
      invoice: null,
      error_code: '',
    });
    const added = await billing.switchAddon(req(alice, { current_addon_id: null, new_addon_id: 'events-10m' }));
    expect(added.invoice).toMatchObject({ reason: 'proration', total_cents: 2581 });
    const switched = await billing.switchAddon(req(alice, { current_addon_id: 'events-10m', new_addon_id: 'events-50m', invoice_immediately: false }));
    expect(switched.proration.amount_cents).toBe(-2581 + 10323);
    expect(switched.invoice).toBeNull();
    expect(await failure(billing.switchAddon(req(alice, { current_addon_id: 'events-50m', new_addon_id: 'extra-user' })))).toMatchObject({
      status: 400,
      code: 'INVALID_SWITCH',
    });
    expect(await failure(billing.changeQuantity(req(alice, { addon_id: 'nope', quantity: 1 })))).toMatchObject({ status: 404, code: 'ADDON_NOT_FOUND' });
    expect(await failure(billing.changeQuantity(req(alice, { quantity: 1 })))).toMatchObject({ status: 400, code: 'INVALID_REQUEST' });
    expect(await failure(billing.switchAddon(req(alice, { current_addon_id: null, new_addon_id: 'events-10m', invoice_immediately: 'yes' })))).toMatchObject({
      status: 400,
      code: 'INVALID_REQUEST',
    });

    now = Date.parse('2025-02-02T00:00:00Z');
    const invoices = await billing.listInvoices(req(alice));
    expect(invoices.invoices.map((i) => [i.reason, i.total_cents])).toEqual([
      ['period', 929 - 2581 + 10323 + 1800 + 20000],
      ['proration', 2581],
    ]);
    expect(invoices.upcoming).toMatchObject({ period_start: Date.parse('2025-02-01T00:00:00Z') / 1000, lines: [], amount_cents: 0 });
    expect((await billing.getSubscription(req(bob))).subscription).toMatchObject({ account_id: bob.accountId, items: [] });
  });

  it('answers a repeated Idempotency-Key with the first answer, and refuses the key with another body', async () => {
    const headers = { 'idempotency-key': 'order-1' };
    const first = await billing.changeQuantity(req(alice, { addon_id: 'extra-user', quantity: 3 }, undefined, headers));
    const again = await billing.changeQuantity(req(alice, { quantity: 3, addon_id: 'extra-user' }, undefined, headers));
    expect(again).toEqual(first);
    expect(await failure(billing.changeQuantity(req(alice, { addon_id: 'extra-user', quantity: 4 }, undefined, headers)))).toMatchObject({
      status: 409,
      code: 'IDEMPOTENCY_KEY_REUSED',
    });
    // The same key in another account is another key.
    await expect(billing.changeQuantity(req(bob, { addon_id: 'extra-user', quantity: 4 }, undefined, headers))).resolves.toMatchObject({ success: true });
    // A refusal is the key's answer too.
    const bad = { 'idempotency-key': 'order-2' };
    expect(await failure(billing.changeQuantity(req(alice, { addon_id: 'extra-user', quantity: 1000 }, undefined, bad)))).toMatchObject({
      code: 'INVALID_QUANTITY',
    });
    expect(await failure(billing.changeQuantity(req(alice, { addon_id: 'extra-user', quantity: 1000 }, undefined, bad)))).toMatchObject({
      code: 'INVALID_QUANTITY',
    });
    const changes = (await eventStore.readStream(`billingsubscription-${alice.accountId}`)).filter((e) => e.type === 'AddonQuantityChanged');
    expect(changes).toHaveLength(1);
    // Domains too: the repeated create answers the same domain instead of 409 DOMAIN_EXISTS.
    const create = { 'idempotency-key': 'domain-1' };
    const made = await billing.createDomain(req(alice, { domain: 'go.example.com' }, undefined, create));
    expect(await billing.createDomain(req(alice, { domain: 'go.example.com' }, undefined, create))).toEqual(made);
  });

  it('applies each change at the billing provider first; a refusal there records nothing', async () => {
    const applied: BillingChange[] = [];
    let refuse = false;
    const provider: BillingProvider = {
      name: 'recording',
      async apply(change) {
        if (refuse) throw new ServiceError(503, 'BILLING_PROVIDER_UNAVAILABLE', 'down');
        applied.push(change);
      },
    };
    const withProvider = await replica(provider);
    await withProvider.changeQuantity(req(alice, { addon_id: 'extra-user', quantity: 2 }, undefined, { 'idempotency-key': 'k-9' }));
    await withProvider.switchAddon(req(alice, { current_addon_id: null, new_addon_id: 'events-10m' }));
    expect(applied).toEqual([
      {
        accountId: alice.accountId,
        kind: 'quantity',
        changes: [{ addonId: 'extra-user', fromQuantity: 0, toQuantity: 2 }],
        invoiceImmediately: false,
        idempotencyKey: `${alice.accountId}:k-9`,
      },
      {
        accountId: alice.accountId,
        kind: 'switch',
        changes: [{ addonId: 'events-10m', fromQuantity: 0, toQuantity: 1 }],
        invoiceImmediately: true,
        idempotencyKey: expect.stringMatching(new RegExp(`^${alice.accountId}:1:[0-9a-f]{32}$`)),
      },
    ]);
    refuse = true;
    const before = await eventStore.readStream(`billingsubscription-${alice.accountId}`);
    expect(
      await failure(withProvider.changeQuantity(req(alice, { addon_id: 'extra-user', quantity: 3 }, undefined, { 'idempotency-key': 'k-10' }))),
    ).toMatchObject({
      status: 503,
    });
    expect(await eventStore.readStream(`billingsubscription-${alice.accountId}`)).toHaveLength(before.length);
    // The key was released: the same request runs again once the provider is back.
    refuse = false;
    await expect(
      withProvider.changeQuantity(req(alice, { addon_id: 'extra-user', quantity: 3 }, undefined, { 'idempotency-key': 'k-10' })),
    ).resolves.toMatchObject({
      subscription: {
        items: [
          { addon_id: 'extra-user', quantity: 3 },
          { addon_id: 'events-10m', quantity: 1 },
        ],
      },
    });
  });

  it('keeps a domain change when the domain add-on cannot follow it (logged), and catches up on the next change', async () => {
    let down = false;
    const provider: BillingProvider = {
      name: 'flaky',
      async apply() {
        if (down) throw new ServiceError(503, 'BILLING_PROVIDER_UNAVAILABLE', 'down');
      },
    };
    const withProvider = await replica(provider);
    for (const domain of ['a.example.org', 'b.example.org', 'c.example.org']) await withProvider.createDomain(req(alice, { domain }));
    down = true;
    await expect(withProvider.createDomain(req(alice, { domain: 'd.example.org' }))).resolves.toMatchObject({ success: true });
    expect(audit).toContainEqual(
      expect.objectContaining({
        event: 'billing.domain_addon_sync_failed',
        accountId: alice.accountId,
        direction: 'raise',
        code: 'BILLING_PROVIDER_UNAVAILABLE',
      }),
    );
    expect((await withProvider.getSubscription(req(alice))).subscription.items).toEqual([]);
    down = false;
    await withProvider.createDomain(req(alice, { domain: 'shop.example.com' }));
    expect((await withProvider.getSubscription(req(alice))).subscription.items).toEqual([
      { addon_id: 'extra-custom-domain', quantity: 2, unit_price_cents: 500, tier: 'domains' },
    ]);
  });

  it('refuses a caller without billing:manage (403) or without an account (401)', async () => {
    expect(await failure(billing.listDomains(req({ ...alice, permissions: ['assets:read'] })))).toMatchObject({ status: 403 });
    expect(await failure(billing.getSubscription(req({ ...alice, accountId: '' })))).toMatchObject({ status: 401 });
  });

  it('rebuilds the same domain list from the log on a fresh read store', async () => {
    await billing.createDomain(req(alice, { domain: 'a.example.org' }));
    await billing.createDomain(req(alice, { domain: 'b.example.org' }));
    await billing.deleteDomain(req(alice, undefined, { domain: 'a.example.org' }));
    const before = await billing.listDomains(req(alice));
    const restarted = await replica();
    expect(await restarted.listDomains(req(alice))).toEqual(before);
  });
});
