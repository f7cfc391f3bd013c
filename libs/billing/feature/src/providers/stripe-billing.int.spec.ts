import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DEFAULT_CATALOG, Catalog } from '@funnel/billing-domain';
import { freePort } from '@funnel/testing';
import { StripeBilling } from './stripe-billing';

const KEY = 'sk_test_0123456789abcdef';

interface Seen {
  method: string;
  path: string;
  query: Record<string, string>;
  form: Record<string, string>;
  idempotencyKey?: string;
  authorization?: string;
}

const catalog: Catalog = {
  ...DEFAULT_CATALOG,
  addons: DEFAULT_CATALOG.addons.map((addon) => ({ ...addon, stripe_price_id: `price_${addon.addon_id.replace(/-/g, '_')}` })),
};

const subscription = (items: { id: string; price: string; quantity: number }[]) => ({
  id: 'sub_123',
  object: 'subscription',
  status: 'active',
  metadata: { account_id: 'ACCOUNT0000A' },
  items: {
    object: 'list',
    data: items.map((item) => ({
      id: item.id,
      object: 'subscription_item',
      price: { id: item.price, object: 'price' },
      quantity: item.quantity,
      subscription: 'sub_123',
    })),
    has_more: false,
    url: '/v1/subscription_items?subscription=sub_123',
  },
});

/** A stand-in for the Stripe API: the documented object shapes, form-encoded requests. */
function stripeApi(seen: Seen[], state: { items: { id: string; price: string; quantity: number }[]; failNext?: number }) {
  const send = (res: ServerResponse, status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  return createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const url = new URL(req.url!, 'http://stripe.local');
    const entry: Seen = {
      method: req.method!,
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      form: Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString())),
      idempotencyKey: req.headers['idempotency-key'] as string | undefined,
      authorization: req.headers.authorization,
    };
    seen.push(entry);
    if (req.headers.authorization !== `Bearer ${KEY}`) {
      return send(res, 401, { error: { type: 'invalid_request_error', message: 'Invalid API Key provided: sk_test_****cdef' } });
    }
    if (state.failNext) {
      const status = state.failNext;
      state.failNext = undefined;
      return send(res, status, {
        error: { type: status >= 500 ? 'api_error' : 'invalid_request_error', message: 'This price is not active.', code: 'resource_missing' },
      });
    }
    if (entry.method === 'GET' && entry.path === '/v1/subscriptions/search') {
      const mine = entry.query.query === "metadata['account_id']:'ACCOUNT0000A'";
      return send(res, 200, {
        object: 'search_result',
        data: mine ? [subscription(state.items)] : [],
        has_more: false,
        next_page: null,
        url: '/v1/subscriptions/search',
      });
    }
    if (entry.method === 'GET' && entry.path === '/v1/subscriptions/sub_123') return send(res, 200, subscription(state.items));
    if (entry.method === 'POST' && entry.path.startsWith('/v1/subscription_items/')) {
      const item = state.items.find((i) => i.id === entry.path.split('/').pop());
      if (!item) return send(res, 404, { error: { type: 'invalid_request_error', message: 'No such subscription item' } });
      item.quantity = Number(entry.form.quantity);
      return send(res, 200, { id: item.id, object: 'subscription_item', price: { id: item.price }, quantity: item.quantity });
    }
    if (entry.method === 'POST' && entry.path === '/v1/subscription_items') {
      const item = { id: `si_${state.items.length + 1}`, price: entry.form.price, quantity: Number(entry.form.quantity) };
      state.items.push(item);
      return send(res, 200, { id: item.id, object: 'subscription_item', price: { id: item.price }, quantity: item.quantity });
    }
    if (entry.method === 'POST' && entry.path === '/v1/subscriptions/sub_123') return send(res, 200, subscription(state.items));
    return send(res, 404, { error: { type: 'invalid_request_error', message: `Unrecognized request URL (${entry.method}: ${entry.path})` } });
  });
}

describe('Stripe billing provider against a local stand-in of the Stripe API', () => {
  const seen: Seen[] = [];
  const state: { items: { id: string; price: string; quantity: number }[]; failNext?: number } = { items: [] };
  let server: Server;
  let apiUrl: string;
  let stripe: StripeBilling;

  beforeAll(async () => {
    server = stripeApi(seen, state);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    apiUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  beforeEach(() => {
    seen.length = 0;
    state.items = [{ id: 'si_users', price: 'price_extra_user', quantity: 2 }];
    state.failNext = undefined;
    stripe = new StripeBilling({ secretKey: KEY, catalog, apiUrl });
  });

  const change = (over: Partial<Parameters<StripeBilling['apply']>[0]> = {}) => ({
    accountId: 'ACCOUNT0000A',
    kind: 'quantity' as const,
    changes: [{ addonId: 'extra-user', fromQuantity: 2, toQuantity: 5 }],
    invoiceImmediately: false,
    idempotencyKey: 'ACCOUNT0000A:key-1',
    ...over,
  });

  it('finds the subscription by metadata, updates the item quantity with create_prorations and the idempotency key', async () => {
    await stripe.apply(change());
    expect(seen.map((s) => [s.method, s.path])).toEqual([
      ['GET', '/v1/subscriptions/search'],
      ['POST', '/v1/subscription_items/si_users'],
    ]);
    expect(seen[0].query).toEqual({ query: "metadata['account_id']:'ACCOUNT0000A'", limit: '1' });
    expect(seen[1].form).toEqual({ quantity: '5', proration_behavior: 'create_prorations' });
    expect(seen[1]).toMatchObject({ idempotencyKey: 'ACCOUNT0000A:key-1', authorization: `Bearer ${KEY}` });
    expect(state.items[0].quantity).toBe(5);
    // The subscription id is remembered: next time it is retrieved, not searched.
    await stripe.apply(change({ invoiceImmediately: true, idempotencyKey: 'k-2' }));
    expect(seen.slice(2).map((s) => [s.method, s.path])).toEqual([
      ['GET', '/v1/subscriptions/sub_123'],
      ['POST', '/v1/subscription_items/si_users'],
    ]);
    expect(seen[3].form).toEqual({ quantity: '5', proration_behavior: 'always_invoice' });
  });

  it('creates the item when the subscription has none of the price yet', async () => {
    await stripe.apply(change({ changes: [{ addonId: 'extra-custom-domain', fromQuantity: 0, toQuantity: 1 }] }));
    expect(seen[1]).toMatchObject({
      method: 'POST',
      path: '/v1/subscription_items',
      form: { subscription: 'sub_123', price: 'price_extra_custom_domain', quantity: '1', proration_behavior: 'create_prorations' },
    });
  });

  it('switches with one subscriptions.update: the old item deleted, the new price added, always_invoice when invoiced at once', async () => {
    state.items.push({ id: 'si_10m', price: 'price_events_10m', quantity: 1 });
    await stripe.apply(
      change({
        kind: 'switch',
        invoiceImmediately: true,
        changes: [
          { addonId: 'events-10m', fromQuantity: 1, toQuantity: 0 },
          { addonId: 'events-50m', fromQuantity: 0, toQuantity: 1 },
        ],
      }),
    );
    expect(seen[1]).toMatchObject({
      method: 'POST',
      path: '/v1/subscriptions/sub_123',
      idempotencyKey: 'ACCOUNT0000A:key-1',
      form: {
        'items[0][id]': 'si_10m',
        'items[0][deleted]': 'true',
        'items[1][price]': 'price_events_50m',
        'items[1][quantity]': '1',
        proration_behavior: 'always_invoice',
      },
    });
  });

  it('refuses an account without a subscription (409 NO_PROVIDER_SUBSCRIPTION) and an add-on without a price', async () => {
    await expect(stripe.apply(change({ accountId: 'ACCOUNT0000B' }))).rejects.toMatchObject({ status: 409, code: 'NO_PROVIDER_SUBSCRIPTION' });
    const unpriced = new StripeBilling({ secretKey: KEY, catalog: DEFAULT_CATALOG, apiUrl });
    await expect(unpriced.apply(change())).rejects.toMatchObject({
      status: 409,
      code: 'BILLING_PROVIDER_REJECTED',
      message: 'add-on extra-user has no stripe_price_id in the catalog',
    });
  });

  it('answers Stripe refusals with 409 and outages or a refused key with 503, never echoing the key', async () => {
    await stripe.apply(change());
    state.failNext = 400;
    await expect(stripe.apply(change())).rejects.toMatchObject({
      status: 409,
      code: 'BILLING_PROVIDER_REJECTED',
      message: 'Stripe refused the change: This price is not active.',
    });
    const wrongKey = new StripeBilling({ secretKey: 'sk_test_wrong', catalog, apiUrl });
    const refused = await wrongKey.apply(change()).catch((e: Error) => e);
    expect(refused).toMatchObject({ status: 503, code: 'BILLING_PROVIDER_UNAVAILABLE', message: 'the Stripe key is refused: check STRIPE_SECRET_KEY' });
    const down = new StripeBilling({ secretKey: KEY, catalog, apiUrl: `http://127.0.0.1:${await freePort()}`, timeoutMs: 500 });
    await expect(down.apply(change())).rejects.toMatchObject({ status: 503, code: 'BILLING_PROVIDER_UNAVAILABLE' });
    expect(JSON.stringify(refused)).not.toContain('sk_test');
  });
});
