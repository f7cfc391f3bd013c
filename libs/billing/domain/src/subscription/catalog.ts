/**
 * The add-on catalog (BILLING_CATALOG_FILE, JSON): the plan every account starts on and the add-ons
 * it can buy. Add-ons of one tier are mutually exclusive; /billing/addons/switch moves between them.
 */
export interface CatalogAddon {
  addon_id: string;
  name: string;
  /** Price of one unit for one billing period. */
  unit_price_cents: number;
  /** ISO 4217, lower case (`usd`); one currency for the whole catalog. */
  currency: string;
  /** The period prices are for: a calendar month (the only period the subscription knows). */
  billing_period: 'month';
  min_quantity: number;
  max_quantity: number;
  tier: string;
  /** The Stripe price of the add-on (BILLING_PROVIDER=stripe). */
  stripe_price_id?: string;
}

export interface CatalogPlan {
  plan_id: string;
  name: string;
  /** Custom domains the plan includes; each one beyond raises `custom_domain_addon_id`'s quantity. */
  included_custom_domains: number;
  custom_domain_addon_id: string;
}

export interface Catalog {
  plan: CatalogPlan;
  addons: CatalogAddon[];
}

/** The documented default catalog. */
export const DEFAULT_CATALOG: Catalog = {
  plan: { plan_id: 'pro', name: 'Pro', included_custom_domains: 3, custom_domain_addon_id: 'extra-custom-domain' },
  addons: [
    addon('extra-custom-domain', 'Extra custom domain', 'domains', 500, 1000),
    addon('extra-user', 'Extra user', 'users', 900, 100),
    addon('events-10m', '10M events', 'event-volume', 5_000, 1),
    addon('events-50m', '50M events', 'event-volume', 20_000, 1),
  ],
};

function addon(addon_id: string, name: string, tier: string, unit_price_cents: number, max_quantity: number): CatalogAddon {
  return { addon_id, name, unit_price_cents, currency: 'usd', billing_period: 'month', min_quantity: 0, max_quantity, tier };
}

/** A catalog file that breaks the rules: the message names the entry and the field. */
export class CatalogError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CatalogError';
  }
}

const ID = /^[a-z0-9][a-z0-9_-]{0,63}$/;

/** Checks a parsed catalog file; throws CatalogError with what is wrong. */
export function parseCatalog(value: unknown): Catalog {
  const root = object(value, 'the catalog');
  const planValue = object(root.plan, 'plan');
  const plan: CatalogPlan = {
    plan_id: id(planValue.plan_id, 'plan.plan_id'),
    name: text(planValue.name, 'plan.name'),
    included_custom_domains: count(planValue.included_custom_domains, 'plan.included_custom_domains', 0, 1_000_000),
    custom_domain_addon_id: id(planValue.custom_domain_addon_id, 'plan.custom_domain_addon_id'),
  };
  if (!Array.isArray(root.addons) || root.addons.length === 0) throw new CatalogError('addons must be a non-empty array');
  const addons = root.addons.map((entry: unknown, index: number): CatalogAddon => {
    const at = `addons[${index}]`;
    const a = object(entry, at);
    const parsed: CatalogAddon = {
      addon_id: id(a.addon_id, `${at}.addon_id`),
      name: text(a.name, `${at}.name`),
      unit_price_cents: count(a.unit_price_cents, `${at}.unit_price_cents`, 0, 100_000_000),
      currency: currency(a.currency, `${at}.currency`),
      billing_period: period(a.billing_period, `${at}.billing_period`),
      min_quantity: count(a.min_quantity, `${at}.min_quantity`, 0, 1_000_000),
      max_quantity: count(a.max_quantity, `${at}.max_quantity`, 0, 1_000_000),
      tier: id(a.tier, `${at}.tier`),
      stripe_price_id: a.stripe_price_id === undefined ? undefined : text(a.stripe_price_id, `${at}.stripe_price_id`),
    };
    if (parsed.min_quantity > parsed.max_quantity) throw new CatalogError(`${at}.min_quantity must be at most max_quantity`);
    return parsed;
  });
  const ids = new Set<string>();
  for (const a of addons) {
    if (ids.has(a.addon_id)) throw new CatalogError(`addon_id ${a.addon_id} appears twice`);
    ids.add(a.addon_id);
  }
  if (new Set(addons.map((a) => a.currency)).size > 1) throw new CatalogError('every add-on must have the same currency');
  if (!ids.has(plan.custom_domain_addon_id))
    throw new CatalogError(`plan.custom_domain_addon_id ${plan.custom_domain_addon_id} is not an add-on of the catalog`);
  return { plan, addons };
}

export function findAddon(catalog: Catalog, addonId: string): CatalogAddon | undefined {
  return catalog.addons.find((a) => a.addon_id === addonId);
}

export function catalogCurrency(catalog: Catalog): string {
  return catalog.addons[0].currency;
}

function object(value: unknown, what: string): Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new CatalogError(`${what} must be an object`);
  return value as Record<string, unknown>;
}

function id(value: unknown, what: string): string {
  if (typeof value !== 'string' || !ID.test(value))
    throw new CatalogError(`${what} must be 1..64 characters of a-z, 0-9, _ and - (starting with a letter or digit)`);
  return value;
}

function text(value: unknown, what: string): string {
  if (typeof value !== 'string' || value.trim() === '' || value.length > 200)
    throw new CatalogError(`${what} must be a non-empty string of at most 200 characters`);
  return value;
}

function count(value: unknown, what: string, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max)
    throw new CatalogError(`${what} must be an integer from ${min} to ${max}`);
  return value;
}

function currency(value: unknown, what: string): string {
  if (typeof value !== 'string' || !/^[a-z]{3}$/.test(value)) throw new CatalogError(`${what} must be a lower-case ISO 4217 code such as usd`);
  return value;
}

function period(value: unknown, what: string): 'month' {
  if (value !== 'month') throw new CatalogError(`${what} must be "month"`);
  return value;
}
