import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { RunningDnsServer, selfSignedCertificate, startDnsServer } from '@funnel/testing';
import { Deployment, describeInBothModes } from './harness';

/**
 * /v1/billing end to end. Custom domains resolve through a local DNS server (DNS_SERVERS) to a
 * local HTTPS server (DOMAIN_CHECK_PORT) whose self-signed certificate this process does not trust,
 * so checks run the whole way (SSRF guard with OUTBOUND_ALLOW_PRIVATE, TLS) and report why the
 * certificate is refused; the trusted case is proven in self-managed-edge.int.spec.ts.
 */
const env: NodeJS.ProcessEnv = {};
let dns: RunningDnsServer;
let server: Server;
const names = ['shop.example.com', 'gone.example.com', 'a.example.org', 'b.example.org'];

beforeAll(async () => {
  const { cert, key } = selfSignedCertificate(names);
  server = createServer({ cert, key }, (req, res) => {
    const host = (req.headers.host ?? '').split(':')[0];
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ service: 'funnel-edge', domain: host }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  dns = await startDnsServer(new Map(names.map((name) => [name, { A: ['127.0.0.1'] }])));
  Object.assign(env, {
    DNS_SERVERS: dns.address,
    DOMAIN_CHECK_PORT: String((server.address() as AddressInfo).port),
    OUTBOUND_ALLOW_PRIVATE: 'true',
    EDGE_CNAME_TARGET: 'edge.funnel-cdn.example.net',
    RESERVED_DOMAINS: 'funnel.example.com',
  });
});

afterAll(async () => {
  await dns.close();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const NO_ERROR = { error_code: '', error_message: '' };

describeInBothModes(
  '/v1/billing',
  (d) => {
    const call = (...args: Parameters<Deployment['api']['call']>) => d().api.call(...args);
    let other: { apiKey: string; accountId: string };
    let otherIndex = 0;
    const freshAccount = () => d().newAccount(`billing-${d().mode}-${++otherIndex}@example.com`);

    beforeAll(async () => {
      other = await d().newAccount('billing-other@example.com');
    });

    describe('authentication and permission', () => {
      it.each([
        ['GET', '/billing/domains'],
        ['POST', '/billing/domains'],
        ['POST', '/billing/domains/check'],
        ['GET', '/billing/domains/shop.example.com'],
        ['DELETE', '/billing/domains/shop.example.com'],
        ['POST', '/billing/domains/shop.example.com/refresh'],
        ['POST', '/billing/addons/quantity'],
        ['POST', '/billing/addons'],
        ['POST', '/billing/addons/switch'],
        ['GET', '/billing/subscription'],
        ['GET', '/billing/invoices'],
      ])('%s %s answers 401 without credentials, 403 without billing:manage, in the billing body', async (method, path) => {
        const anonymous = await call(method, path, { key: '', body: method === 'GET' || method === 'DELETE' ? undefined : {} });
        expect(anonymous.status).toBe(401);
        expect(anonymous.body).toEqual({ success: false, error_code: 'AUTH.UNAUTHORIZED', error_message: expect.any(String), details: [] });
        const reader = await call('POST', '/apikeys/generate/', { body: { name: `reader ${method} ${path}`, permissions: ['assets:read'] } });
        expect(reader.status).toBe(200);
        const forbidden = await call(method, path, { key: reader.body.key, body: method === 'GET' || method === 'DELETE' ? undefined : {} });
        expect(forbidden.status).toBe(403);
        expect(forbidden.body).toMatchObject({ success: false, error_code: 'AUTH.FORBIDDEN' });
      });
    });

    describe('custom domains', () => {
      it('registers a domain as pending with the DNS records to add; lists and shows it; its own account only', async () => {
        const created = await call('POST', '/billing/domains', { body: { domain: 'Shop.Example.COM.' } });
        expect(created.status).toBe(200);
        const domain = created.body.domain;
        expect(created.body).toMatchObject({ success: true, ...NO_ERROR });
        expect(domain).toMatchObject({
          domain: 'shop.example.com',
          status: 'pending',
          ssl: { status: 'initializing', txt_name: '', txt_value: '' },
          ownership_verification: { type: 'txt', name: '_funnel-verify.shop.example.com' },
          verification_errors: [],
          parsed: { subdomain: 'shop', root_domain: 'example.com' },
        });
        expect(Object.keys(domain).sort()).toEqual(
          ['created_at', 'domain', 'edge_id', 'id', 'ownership_verification', 'owner', 'parsed', 'ssl', 'status', 'verification_errors'].sort(),
        );
        expect(created.body.message).toContain('Add a CNAME record shop.example.com -> edge.funnel-cdn.example.net');
        expect(created.body.message).toContain(`a TXT record _funnel-verify.shop.example.com = ${domain.ownership_verification.value}`);

        const list = await call('GET', '/billing/domains/');
        expect(list.status).toBe(200);
        expect(list.body).toMatchObject({ success: true, ...NO_ERROR });
        expect(list.body.domains).toContainEqual({
          id: domain.id,
          domain: 'shop.example.com',
          edge_id: domain.edge_id,
          status: 'pending',
          ssl_status: 'initializing',
          verification_errors: [],
          created_at: domain.created_at,
        });
        const shown = await call('GET', '/billing/domains/shop.example.com');
        expect(shown.status).toBe(200);
        expect(shown.body).toEqual({ success: true, domain, ...NO_ERROR });

        const again = await call('POST', '/billing/domains', { body: { domain: 'shop.example.com' } });
        expect(again.status).toBe(409);
        expect(again.body).toMatchObject({ success: false, error_code: 'DOMAIN_EXISTS' });
        const taken = await call('POST', '/billing/domains', { key: other.apiKey, body: { domain: 'SHOP.example.com' } });
        expect(taken.status).toBe(409);
        expect(taken.body).toMatchObject({ success: false, error_code: 'DOMAIN_ALREADY_OWNED' });
        for (const [method, path] of [
          ['GET', '/billing/domains/shop.example.com'],
          ['DELETE', '/billing/domains/shop.example.com'],
          ['POST', '/billing/domains/shop.example.com/refresh'],
        ]) {
          const foreign = await call(method, path, { key: other.apiKey });
          expect(foreign.status).toBe(404);
          expect(foreign.body).toMatchObject({ success: false, error_code: 'NOT_FOUND' });
        }
        expect((await call('GET', '/billing/domains', { key: other.apiKey })).body.domains).toEqual([]);
      });

      it.each(['localhost', '127.0.0.1', '*.example.com', 'co.uk', 'track.funnel.example.com', 'edge.funnel-cdn.example.net', ''])(
        'refuses %j with 400 INVALID_DOMAIN',
        async (domain) => {
          const res = await call('POST', '/billing/domains', { body: { domain } });
          expect(res.status).toBe(400);
          expect(res.body).toMatchObject({
            success: false,
            error_code: 'INVALID_DOMAIN',
            error_message: expect.stringContaining('not a usable custom domain'),
          });
        },
      );

      it('answers malformed JSON and unknown domains in the billing body', async () => {
        const malformed = await call('POST', '/billing/domains', { rawBody: '{"domain":' });
        expect(malformed.status).toBe(400);
        expect(malformed.body).toMatchObject({ success: false, error_code: 'REQUEST.MALFORMED_JSON' });
        for (const [method, path] of [
          ['PUT', '/billing/domains'],
          ['PUT', '/billing/domains/some.example.com'],
        ]) {
          const wrongMethod = await call(method, path, { body: {} });
          expect(wrongMethod.status).toBe(404);
          expect(wrongMethod.body).toMatchObject({ success: false, error_code: 'REQUEST.ROUTE_NOT_FOUND' });
        }
        const unknown = await call('GET', '/billing/domains/nothing-here.example.com');
        expect(unknown.status).toBe(404);
        expect(unknown.body).toEqual({
          success: false,
          error_code: 'NOT_FOUND',
          error_message: 'no custom domain nothing-here.example.com in this account',
          details: [],
        });
      });

      it('gives a domain two accounts race for exactly one owner', async () => {
        const [first, second] = [await freshAccount(), await freshAccount()];
        for (let round = 0; round < 4; round++) {
          const domain = `r${round}.race.example.com`;
          const answers = await Promise.all([first, second].map((account) => call('POST', '/billing/domains', { key: account.apiKey, body: { domain } })));
          expect(answers.map((a) => a.status).sort()).toEqual([200, 409]);
          const winner = answers.find((a) => a.status === 200)!;
          const loser = answers.find((a) => a.status === 409)!;
          expect(loser.body).toMatchObject({ success: false, error_code: 'DOMAIN_ALREADY_OWNED' });
          const owner = [first, second].find((a) => a.accountId === winner.body.domain.owner)!;
          const notOwner = owner === first ? second : first;
          expect((await call('GET', `/billing/domains/${domain}`, { key: owner.apiKey })).status).toBe(200);
          expect((await call('GET', `/billing/domains/${domain}`, { key: notOwner.apiKey })).status).toBe(404);
        }
      });

      it('checks a domain over HTTPS through the SSRF guard and reports why the certificate is refused', async () => {
        const account = await freshAccount();
        await call('POST', '/billing/domains', { key: account.apiKey, body: { domain: 'a.example.org' } });
        const res = await call('POST', '/billing/domains/check', { key: account.apiKey, body: { domain: 'a.example.org' } });
        expect(res.status).toBe(200);
        expect(res.body).toMatchObject({
          success: true,
          found: false,
          ssl_valid: false,
          http_status: 0,
          ssl_error: 'the certificate chain is not trusted (DEPTH_ZERO_SELF_SIGNED_CERT)',
          error_message: 'the TLS handshake failed: the certificate chain is not trusted (DEPTH_ZERO_SELF_SIGNED_CERT)',
          edge_status: 'pending',
          edge_ssl_status: 'initializing',
          error_code: '',
        });
        expect(res.body.check_timestamp).toBeGreaterThan(Date.now() / 1000 - 60);
        expect(typeof res.body.response_time_ms).toBe('number');
        const unregistered = await call('POST', '/billing/domains/check', { key: account.apiKey, body: { domain: 'nowhere.example.org' } });
        expect(unregistered.body).toMatchObject({
          success: true,
          found: false,
          edge_status: '',
          error_message: expect.stringMatching(/^nowhere\.example\.org (could not be resolved|has no address)/),
        });
        const invalid = await call('POST', '/billing/domains/check', { key: account.apiKey, body: {} });
        expect(invalid.status).toBe(400);
        expect(invalid.body).toMatchObject({ success: false, error_code: 'INVALID_DOMAIN' });
      });

      it('allows 30 checks a minute per account, then 429 RATE_LIMITED with Retry-After', async () => {
        const account = await freshAccount();
        let refused: Awaited<ReturnType<typeof call>> | undefined;
        // 31 checks, unless the minute turns over between them (then the count starts again).
        for (let i = 0; i < 62 && !refused; i++) {
          const res = await call('POST', '/billing/domains/check', { key: account.apiKey, body: { domain: 'b.example.org' } });
          if (res.status === 429) refused = res;
          else expect(res.status).toBe(200);
        }
        expect(refused).toBeDefined();
        expect(refused!.body).toMatchObject({
          success: false,
          error_code: 'RATE_LIMITED',
          error_message: expect.stringContaining('at most 30 domain checks per minute'),
        });
        expect(Number(refused!.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
        expect(Number(refused!.headers.get('retry-after'))).toBeLessThanOrEqual(60);
        // Another account is not affected.
        expect((await call('POST', '/billing/domains/check', { key: other.apiKey, body: { domain: 'b.example.org' } })).status).toBe(200);
      });

      it('refreshes: stores the edge view and the check; the TXT record verifies ownership', async () => {
        const account = await freshAccount();
        const name = `refresh-${d().mode}.example.org`;
        dns.records.set(name, { A: ['127.0.0.1'] });
        const created = await call('POST', '/billing/domains', { key: account.apiKey, body: { domain: name } });
        let res = await call('POST', `/billing/domains/${name}/refresh`, { key: account.apiKey });
        expect(res.status).toBe(200);
        expect(res.body).toMatchObject({
          success: true,
          ...NO_ERROR,
          domain: {
            domain: name,
            status: 'pending',
            ssl: { status: 'pending_validation' },
            verification_errors: [`no TXT record _funnel-verify.${name} found`],
          },
          check: { success: true, found: false, ssl_valid: false, edge_status: 'pending', edge_ssl_status: 'pending_validation' },
        });
        dns.records.set(`_funnel-verify.${name}`, { TXT: [created.body.domain.ownership_verification.value] });
        res = await call('POST', `/billing/domains/${name}/refresh/`, { key: account.apiKey });
        // Ownership is verified; the domain stays pending while our edge is not found (the certificate is not trusted).
        expect(res.body.domain).toMatchObject({ status: 'pending', verification_errors: [] });
        const listed = await call('GET', '/billing/domains', { key: account.apiKey });
        expect(listed.body.domains).toEqual([
          expect.objectContaining({ domain: name, status: 'pending', ssl_status: 'pending_validation', verification_errors: [] }),
        ]);
      });

      it('deletes a domain, which releases it to other accounts', async () => {
        const account = await freshAccount();
        expect((await call('POST', '/billing/domains', { key: account.apiKey, body: { domain: 'gone.example.com' } })).status).toBe(200);
        const deleted = await call('DELETE', '/billing/domains/gone.example.com', { key: account.apiKey });
        expect(deleted.status).toBe(200);
        expect(deleted.body).toEqual({ success: true, message: 'gone.example.com deleted', ...NO_ERROR });
        expect((await call('GET', '/billing/domains/gone.example.com', { key: account.apiKey })).status).toBe(404);
        expect((await call('DELETE', '/billing/domains/gone.example.com', { key: account.apiKey })).status).toBe(404);
        expect((await call('GET', '/billing/domains', { key: account.apiKey })).body.domains).toEqual([]);
        const claimed = await call('POST', '/billing/domains', { key: other.apiKey, body: { domain: 'gone.example.com' } });
        expect(claimed.status).toBe(200);
        expect(claimed.body.domain.owner).toBe(other.accountId);
      });
    });

    describe('add-ons', () => {
      it('starts every account on the pro plan for the calendar month, without items', async () => {
        const account = await freshAccount();
        const res = await call('GET', '/billing/subscription', { key: account.apiKey });
        expect(res.status).toBe(200);
        const now = new Date();
        expect(res.body).toEqual({
          success: true,
          subscription: {
            account_id: account.accountId,
            plan_id: 'pro',
            included_custom_domains: 3,
            currency: 'usd',
            period_start: Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1) / 1000,
            period_end: Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1) / 1000,
            items: [],
          },
          ...NO_ERROR,
        });
        const invoices = await call('GET', '/billing/invoices', { key: account.apiKey });
        expect(invoices.body).toMatchObject({ success: true, invoices: [], upcoming: { lines: [], amount_cents: 0 }, ...NO_ERROR });
      });

      it('changes a quantity (and through the deprecated alias) with proration lines', async () => {
        const account = await freshAccount();
        const res = await call('POST', '/billing/addons/quantity', { key: account.apiKey, body: { addon_id: 'extra-user', quantity: 2 } });
        expect(res.status).toBe(200);
        expect(res.body).toMatchObject({
          success: true,
          subscription: { items: [{ addon_id: 'extra-user', quantity: 2, unit_price_cents: 900, tier: 'users' }] },
          invoice: null,
          ...NO_ERROR,
        });
        const lines = res.body.proration.lines;
        expect(lines).toEqual([
          {
            addon_id: 'extra-user',
            description: expect.stringMatching(/^Remaining time on 2 × Extra user after /),
            amount_cents: expect.any(Number),
            period_start: expect.any(Number),
            period_end: res.body.subscription.period_end,
          },
        ]);
        expect(res.body.proration.amount_cents).toBe(lines[0].amount_cents);
        expect(lines[0].amount_cents).toBeLessThanOrEqual(1800);
        const alias = await call('POST', '/billing/addons', { key: account.apiKey, body: { addon_id: 'extra-user', quantity: 3 } });
        expect(alias.status).toBe(200);
        expect(alias.body.subscription.items).toEqual([{ addon_id: 'extra-user', quantity: 3, unit_price_cents: 900, tier: 'users' }]);
        expect(alias.body.proration.lines.map((l: { description: string }) => l.description.split(' after ')[0])).toEqual([
          'Unused time on 2 × Extra user',
          'Remaining time on 3 × Extra user',
        ]);
        const upcoming = (await call('GET', '/billing/invoices', { key: account.apiKey })).body.upcoming;
        expect(upcoming.lines).toHaveLength(3);
        expect(upcoming.amount_cents).toBe(upcoming.lines.reduce((sum: number, l: { amount_cents: number }) => sum + l.amount_cents, 0));
      });

      it.each([
        [{ addon_id: 'gold-support', quantity: 1 }, 404, 'ADDON_NOT_FOUND'],
        [{ addon_id: 'extra-user', quantity: 101 }, 400, 'INVALID_QUANTITY'],
        [{ addon_id: 'extra-user', quantity: 1.5 }, 400, 'INVALID_QUANTITY'],
        [{ addon_id: 'extra-user', quantity: -1 }, 400, 'INVALID_QUANTITY'],
        [{ addon_id: 'extra-user' }, 400, 'INVALID_QUANTITY'],
        [{ quantity: 1 }, 400, 'INVALID_REQUEST'],
      ])('refuses the quantity request %j (%i %s)', async (body, status, code) => {
        const res = await call('POST', '/billing/addons/quantity', { body });
        expect(res.status).toBe(status);
        expect(res.body).toMatchObject({ success: false, error_code: code });
      });

      it('adds, switches within a tier and removes, invoicing at once by default', async () => {
        const account = await freshAccount();
        const added = await call('POST', '/billing/addons/switch', { key: account.apiKey, body: { current_addon_id: null, new_addon_id: 'events-10m' } });
        expect(added.status).toBe(200);
        expect(added.body).toMatchObject({
          success: true,
          invoice: { reason: 'proration', currency: 'usd' },
          subscription: { items: [{ addon_id: 'events-10m', quantity: 1 }] },
        });
        expect(added.body.invoice.total_cents).toBe(added.body.proration.amount_cents);
        const switched = await call('POST', '/billing/addons/switch', {
          key: account.apiKey,
          body: { current_addon_id: 'events-10m', new_addon_id: 'events-50m' },
        });
        expect(switched.body.subscription.items).toEqual([{ addon_id: 'events-50m', quantity: 1, unit_price_cents: 20000, tier: 'event-volume' }]);
        expect(switched.body.proration.lines.map((l: { addon_id: string }) => l.addon_id)).toEqual(['events-10m', 'events-50m']);
        const removed = await call('POST', '/billing/addons/switch', {
          key: account.apiKey,
          body: { current_addon_id: 'events-50m', new_addon_id: null, invoice_immediately: false },
        });
        expect(removed.body).toMatchObject({ subscription: { items: [] }, invoice: null });
        const invoices = await call('GET', '/billing/invoices', { key: account.apiKey });
        expect(invoices.body.invoices.map((i: { reason: string }) => i.reason)).toEqual(['proration', 'proration']);
        expect(invoices.body.upcoming.lines).toHaveLength(1);
        for (const body of [
          { current_addon_id: null, new_addon_id: null },
          { current_addon_id: 'events-10m', new_addon_id: 'events-50m' },
          { current_addon_id: null, new_addon_id: 'extra-user', invoice_immediately: 'soon' },
        ]) {
          const res = await call('POST', '/billing/addons/switch', { key: account.apiKey, body });
          expect(res.status).toBe(400);
          expect(res.body.success).toBe(false);
        }
        await call('POST', '/billing/addons/switch', { key: account.apiKey, body: { current_addon_id: null, new_addon_id: 'extra-user' } });
        const crossTier = await call('POST', '/billing/addons/switch', {
          key: account.apiKey,
          body: { current_addon_id: 'extra-user', new_addon_id: 'events-10m' },
        });
        expect(crossTier.body).toMatchObject({ success: false, error_code: 'INVALID_SWITCH' });
      });

      it('raises the domain add-on beyond the 3 included domains, and lowers it when one is deleted', async () => {
        const account = await freshAccount();
        const items = async () => (await call('GET', '/billing/subscription', { key: account.apiKey })).body.subscription.items;
        for (const domain of ['one.example.org', 'two.example.org', 'three.example.org']) {
          expect((await call('POST', '/billing/domains', { key: account.apiKey, body: { domain } })).status).toBe(200);
        }
        expect(await items()).toEqual([]);
        await call('POST', '/billing/domains', { key: account.apiKey, body: { domain: 'four.example.org' } });
        expect(await items()).toEqual([{ addon_id: 'extra-custom-domain', quantity: 1, unit_price_cents: 500, tier: 'domains' }]);
        const below = await call('POST', '/billing/addons/quantity', { key: account.apiKey, body: { addon_id: 'extra-custom-domain', quantity: 0 } });
        expect(below.body).toMatchObject({ success: false, error_code: 'INVALID_QUANTITY' });
        await call('DELETE', '/billing/domains/one.example.org', { key: account.apiKey });
        expect(await items()).toEqual([]);
      });

      it('answers a repeated Idempotency-Key with the first answer, and refuses it with another body', async () => {
        const account = await freshAccount();
        const send = (body: unknown, key: string) =>
          call('POST', '/billing/addons/quantity', { key: account.apiKey, body, headers: { 'Idempotency-Key': key } });
        const first = await send({ addon_id: 'extra-user', quantity: 4 }, 'purchase-1');
        expect(first.status).toBe(200);
        const again = await send({ quantity: 4, addon_id: 'extra-user' }, 'purchase-1');
        expect(again.status).toBe(200);
        expect(again.body).toEqual(first.body);
        const reused = await send({ addon_id: 'extra-user', quantity: 5 }, 'purchase-1');
        expect(reused.status).toBe(409);
        expect(reused.body).toMatchObject({ success: false, error_code: 'IDEMPOTENCY_KEY_REUSED' });
        const upcoming = (await call('GET', '/billing/invoices', { key: account.apiKey })).body.upcoming;
        expect(upcoming.lines).toHaveLength(1);
        const domainKey = { 'Idempotency-Key': 'domain-1' };
        const made = await call('POST', '/billing/domains', { key: account.apiKey, body: { domain: 'd.example.org' }, headers: domainKey });
        const remade = await call('POST', '/billing/domains', { key: account.apiKey, body: { domain: 'd.example.org' }, headers: domainKey });
        expect(remade.status).toBe(200);
        expect(remade.body).toEqual(made.body);
      });
    });
  },
  env,
);
