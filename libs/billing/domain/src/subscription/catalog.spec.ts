import { CatalogError, DEFAULT_CATALOG, findAddon, parseCatalog } from './catalog';

const valid = () => JSON.parse(JSON.stringify(DEFAULT_CATALOG));

describe('add-on catalog', () => {
  it('has the documented default', () => {
    expect(DEFAULT_CATALOG.plan).toEqual({ plan_id: 'pro', name: 'Pro', included_custom_domains: 3, custom_domain_addon_id: 'extra-custom-domain' });
    expect(DEFAULT_CATALOG.addons.map((a) => [a.addon_id, a.tier, a.unit_price_cents, a.min_quantity, a.max_quantity, a.billing_period, a.currency])).toEqual([
      ['extra-custom-domain', 'domains', 500, 0, 1000, 'month', 'usd'],
      ['extra-user', 'users', 900, 0, 100, 'month', 'usd'],
      ['events-10m', 'event-volume', 5000, 0, 1, 'month', 'usd'],
      ['events-50m', 'event-volume', 20000, 0, 1, 'month', 'usd'],
    ]);
    expect(findAddon(DEFAULT_CATALOG, 'extra-user')?.name).toBe('Extra user');
    expect(findAddon(DEFAULT_CATALOG, 'nope')).toBeUndefined();
  });

  it('reads a file of the same shape (the default passes its own rules), with Stripe price ids', () => {
    const file = valid();
    file.addons[0].stripe_price_id = 'price_123';
    expect(parseCatalog(file).addons[0]).toMatchObject({ addon_id: 'extra-custom-domain', stripe_price_id: 'price_123' });
    expect(parseCatalog(valid())).toEqual(DEFAULT_CATALOG);
  });

  it.each([
    [
      'no add-ons',
      (c: any) => {
        c.addons = [];
      },
      'addons must be a non-empty array',
    ],
    [
      'a bad id',
      (c: any) => {
        c.addons[1].addon_id = 'Extra User';
      },
      'addons[1].addon_id must be',
    ],
    [
      'a negative price',
      (c: any) => {
        c.addons[0].unit_price_cents = -1;
      },
      'addons[0].unit_price_cents must be an integer from 0',
    ],
    [
      'a fractional price',
      (c: any) => {
        c.addons[0].unit_price_cents = 4.5;
      },
      'addons[0].unit_price_cents must be an integer',
    ],
    [
      'min above max',
      (c: any) => {
        c.addons[2].min_quantity = 2;
      },
      'addons[2].min_quantity must be at most max_quantity',
    ],
    [
      'a yearly period',
      (c: any) => {
        c.addons[0].billing_period = 'year';
      },
      'addons[0].billing_period must be "month"',
    ],
    [
      'an upper-case currency',
      (c: any) => {
        c.addons[0].currency = 'USD';
      },
      'addons[0].currency must be a lower-case ISO 4217 code',
    ],
    [
      'mixed currencies',
      (c: any) => {
        c.addons[0].currency = 'eur';
      },
      'every add-on must have the same currency',
    ],
    [
      'a duplicate id',
      (c: any) => {
        c.addons[1].addon_id = 'extra-custom-domain';
      },
      'addon_id extra-custom-domain appears twice',
    ],
    [
      'an unknown domain add-on',
      (c: any) => {
        c.plan.custom_domain_addon_id = 'domains-pack';
      },
      'plan.custom_domain_addon_id domains-pack is not an add-on',
    ],
    [
      'a negative included count',
      (c: any) => {
        c.plan.included_custom_domains = -1;
      },
      'plan.included_custom_domains must be an integer',
    ],
  ])('refuses %s', (_what, change, message) => {
    const file = valid();
    change(file);
    expect(() => parseCatalog(file)).toThrow(CatalogError);
    expect(() => parseCatalog(file)).toThrow(message);
  });

  it('refuses a file that is not an object', () => {
    expect(() => parseCatalog([])).toThrow('the catalog must be an object');
  });
});
