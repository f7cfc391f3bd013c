import { BillingErrorCodes, InvoiceLineView, InvoiceView, ServiceError, SubscriptionView } from '@funnel/contracts';
import { Catalog, CatalogAddon, catalogCurrency, findAddon } from './catalog';
import { BillingPeriod, nextPeriod, periodContaining, prorate, totalCents } from './proration';

/**
 * An account's subscription: the plan, add-on items `{ addon_id -> quantity }` (only quantities
 * above 0 are kept), the current period (a calendar month UTC), the proration lines waiting for the
 * period's invoice, and the invoices issued. Created on first use with the catalog's plan; a period
 * that has ended is renewed (and its invoice issued) by the next command, which brings the clock.
 */
export interface SubscriptionState {
  started: boolean;
  accountId: string;
  planId: string;
  period: BillingPeriod;
  items: Record<string, number>;
  pendingLines: InvoiceLineView[];
  invoices: InvoiceView[];
}

export const initialSubscriptionState = (): SubscriptionState => ({
  started: false,
  accountId: '',
  planId: '',
  period: { start: 0, end: 0 },
  items: {},
  pendingLines: [],
  invoices: [],
});

/** Why an item changed: a quantity request, a switch, or the account's custom domains. */
export type QuantityChangeReason = 'quantity' | 'switch' | 'custom-domains';

export interface SubscriptionStarted {
  type: 'SubscriptionStarted';
  data: { accountId: string; planId: string; periodStart: number; periodEnd: number; startedAt: number };
}
export interface AddonQuantityChanged {
  type: 'AddonQuantityChanged';
  data: {
    accountId: string;
    addonId: string;
    fromQuantity: number;
    toQuantity: number;
    changedAt: number;
    reason: QuantityChangeReason;
    /** The proration lines of the change. */
    lines: InvoiceLineView[];
    /** The lines went on an invoice issued at once (the next event); else they wait for the period's invoice. */
    invoiced: boolean;
  };
}
export interface InvoiceIssued {
  type: 'InvoiceIssued';
  data: { accountId: string; invoice: InvoiceView };
}
export interface SubscriptionPeriodRenewed {
  type: 'SubscriptionPeriodRenewed';
  data: { accountId: string; periodStart: number; periodEnd: number };
}
export type SubscriptionEvent = SubscriptionStarted | AddonQuantityChanged | InvoiceIssued | SubscriptionPeriodRenewed;

export const SUBSCRIPTION_EVENT_SCHEMA_VERSION = 1;
const SUBSCRIPTION_EVENT_TYPES: readonly string[] = ['SubscriptionStarted', 'AddonQuantityChanged', 'InvoiceIssued', 'SubscriptionPeriodRenewed'];

export function asSubscriptionEvent(type: string, data: Record<string, unknown>): SubscriptionEvent | undefined {
  return SUBSCRIPTION_EVENT_TYPES.includes(type) ? ({ type, data } as SubscriptionEvent) : undefined;
}

/** One stream per account: `billingsubscription-<accountId>`. */
export const SubscriptionStreams = {
  subscription: (accountId: string) => `billingsubscription-${accountId}`,
};

/** Every command brings the time (Unix seconds); nothing in here reads a clock. */
export type SubscriptionCommand =
  /** Starts or renews the subscription as far as `at` requires, and nothing else (reads do this first). */
  | { type: 'BringUpToDate'; accountId: string; at: number }
  | { type: 'ChangeAddonQuantity'; accountId: string; addonId: string; quantity: unknown; invoiceImmediately: boolean; customDomains: number; at: number }
  | {
      type: 'SwitchAddon';
      accountId: string;
      currentAddonId: string | null;
      newAddonId: string | null;
      invoiceImmediately: boolean;
      customDomains: number;
      at: number;
    }
  /** The custom domains changed: `raise` the domain add-on to what they need, or `lower` it to that. */
  | { type: 'FollowCustomDomains'; accountId: string; customDomains: number; direction: 'raise' | 'lower'; at: number };

const invalidQuantity = (message: string) => ServiceError.invalidField('quantity', 'quantity', message, BillingErrorCodes.INVALID_QUANTITY);
const invalidSwitch = (message: string) => new ServiceError(400, BillingErrorCodes.INVALID_SWITCH, message);
const addonNotFound = (addonId: string) => ServiceError.notFound(BillingErrorCodes.ADDON_NOT_FOUND, `no add-on ${addonId.slice(0, 64)} in the catalog`);

function addonOf(catalog: Catalog, addonId: string): CatalogAddon {
  const addon = findAddon(catalog, addonId);
  if (!addon) throw addonNotFound(addonId);
  return addon;
}

/** Extra domains beyond the plan's: the least quantity the domain add-on may have. */
export function domainAddonFloor(catalog: Catalog, customDomains: number): number {
  return Math.max(0, customDomains - catalog.plan.included_custom_domains);
}

/** The least quantity an add-on may be set to: its catalog minimum, and for the domain add-on the domains in use. */
function lowestQuantity(catalog: Catalog, addon: CatalogAddon, customDomains: number): number {
  const floor = addon.addon_id === catalog.plan.custom_domain_addon_id ? domainAddonFloor(catalog, customDomains) : 0;
  return Math.max(addon.min_quantity, floor);
}

function checkQuantity(catalog: Catalog, addon: CatalogAddon, quantity: unknown, customDomains: number): number {
  if (typeof quantity !== 'number' || !Number.isInteger(quantity)) throw invalidQuantity('quantity must be an integer');
  const lowest = lowestQuantity(catalog, addon, customDomains);
  if (quantity < lowest || quantity > addon.max_quantity) {
    const why =
      lowest > addon.min_quantity
        ? ` (the account has ${customDomains} custom domains, ${catalog.plan.included_custom_domains} of them included in the plan)`
        : '';
    throw invalidQuantity(`quantity of ${addon.addon_id} must be from ${lowest} to ${addon.max_quantity}${why}`);
  }
  return quantity;
}

/** The active add-on (quantity above 0) of `tier` other than `except`, if any. */
function activeInTier(state: SubscriptionState, catalog: Catalog, tier: string, except: string): string | undefined {
  return Object.keys(state.items).find((id) => id !== except && findAddon(catalog, id)?.tier === tier);
}

/** Decides a subscription command. Pure: the catalog and the time come in. */
export function decideSubscription(command: SubscriptionCommand, state: SubscriptionState, catalog: Catalog): SubscriptionEvent[] {
  const events = bringUpToDate(state, catalog, command.accountId, command.at);
  const current = events.reduce(evolveSubscription, state);
  const change = (addon: CatalogAddon, toQuantity: number, reason: QuantityChangeReason, invoiced: boolean): AddonQuantityChanged => {
    const fromQuantity = current.items[addon.addon_id] ?? 0;
    const lines = prorate({
      addonId: addon.addon_id,
      addonName: addon.name,
      unitPriceCents: addon.unit_price_cents,
      fromQuantity,
      toQuantity,
      at: command.at,
      period: current.period,
    });
    return {
      type: 'AddonQuantityChanged',
      data: {
        accountId: command.accountId,
        addonId: addon.addon_id,
        fromQuantity,
        toQuantity,
        changedAt: command.at,
        reason,
        lines,
        invoiced: invoiced && lines.length > 0,
      },
    };
  };
  const withInvoice = (changes: AddonQuantityChanged[], invoiceImmediately: boolean): SubscriptionEvent[] => {
    const lines = changes.flatMap((c) => c.data.lines);
    if (!invoiceImmediately || !lines.length) return changes;
    const invoice = newInvoice(current, catalog, 'proration', command.at, lines);
    return [...changes, { type: 'InvoiceIssued', data: { accountId: command.accountId, invoice } }];
  };

  switch (command.type) {
    case 'BringUpToDate':
      return events;
    case 'ChangeAddonQuantity': {
      const addon = addonOf(catalog, command.addonId);
      const quantity = checkQuantity(catalog, addon, command.quantity, command.customDomains);
      if (quantity === (current.items[addon.addon_id] ?? 0)) return events;
      const other = quantity > 0 ? activeInTier(current, catalog, addon.tier, addon.addon_id) : undefined;
      if (other) {
        throw ServiceError.conflict(
          BillingErrorCodes.ADDON_TIER_CONFLICT,
          `the subscription has ${other} of tier ${addon.tier}; move to ${addon.addon_id} with /billing/addons/switch`,
        );
      }
      return [...events, ...withInvoice([change(addon, quantity, 'quantity', command.invoiceImmediately)], command.invoiceImmediately)];
    }
    case 'SwitchAddon': {
      const { currentAddonId, newAddonId } = command;
      if (currentAddonId === null && newAddonId === null) throw invalidSwitch('give current_addon_id, new_addon_id or both');
      const from = currentAddonId === null ? undefined : addonOf(catalog, currentAddonId);
      const to = newAddonId === null ? undefined : addonOf(catalog, newAddonId);
      if (from && !current.items[from.addon_id]) throw invalidSwitch(`the subscription has no ${from.addon_id}`);
      if (from && to && from.tier !== to.tier) throw invalidSwitch(`${from.addon_id} (tier ${from.tier}) cannot switch to ${to.addon_id} (tier ${to.tier})`);
      if (from && to && from.addon_id === to.addon_id) throw invalidSwitch(`the subscription already has ${to.addon_id}`);
      if (!from && to) {
        if (current.items[to.addon_id]) throw invalidSwitch(`the subscription already has ${to.addon_id}; change its quantity instead`);
        const other = activeInTier(current, catalog, to.tier, to.addon_id);
        if (other) throw invalidSwitch(`the subscription has ${other} of tier ${to.tier}: switch from it (current_addon_id ${other})`);
      }
      const changes: AddonQuantityChanged[] = [];
      const moved = from ? current.items[from.addon_id] : Math.max(1, to!.min_quantity);
      if (from) {
        const lowest = lowestQuantity(catalog, from, command.customDomains);
        if (lowest > 0) throw invalidQuantity(`${from.addon_id} cannot go below ${lowest}`);
        changes.push(change(from, 0, 'switch', command.invoiceImmediately));
      }
      if (to) {
        if (moved > to.max_quantity || moved < to.min_quantity) {
          throw invalidQuantity(`quantity of ${to.addon_id} must be from ${to.min_quantity} to ${to.max_quantity}; the switch would give it ${moved}`);
        }
        changes.push(change(to, moved, 'switch', command.invoiceImmediately));
      }
      return [...events, ...withInvoice(changes, command.invoiceImmediately)];
    }
    case 'FollowCustomDomains': {
      const addon = addonOf(catalog, catalog.plan.custom_domain_addon_id);
      const have = current.items[addon.addon_id] ?? 0;
      const need = Math.min(addon.max_quantity, Math.max(addon.min_quantity, domainAddonFloor(catalog, command.customDomains)));
      const follows = command.direction === 'raise' ? need > have : need < have;
      return follows ? [...events, change(addon, need, 'custom-domains', false)] : events;
    }
    default: {
      const unknown: never = command;
      throw new Error(`unknown command ${(unknown as { type: string }).type}`);
    }
  }
}

/** Starts the subscription, or renews each period that ended before `at` (issuing its invoice). */
function bringUpToDate(state: SubscriptionState, catalog: Catalog, accountId: string, at: number): SubscriptionEvent[] {
  if (!state.started) {
    const period = periodContaining(at);
    return [
      { type: 'SubscriptionStarted', data: { accountId, planId: catalog.plan.plan_id, periodStart: period.start, periodEnd: period.end, startedAt: at } },
    ];
  }
  const events: SubscriptionEvent[] = [];
  let current = state;
  while (current.period.end <= at) {
    const next = nextPeriod(current.period);
    // In advance, as Stripe does: the next period's items, with the ended period's proration lines.
    const recurring = Object.entries(current.items).flatMap(([addonId, quantity]): InvoiceLineView[] => {
      const addon = findAddon(catalog, addonId);
      if (!addon) return [];
      const month = new Date(next.start * 1000).toISOString().slice(0, 7);
      return [
        {
          addon_id: addonId,
          description: `${quantity} × ${addon.name} (${month})`,
          amount_cents: quantity * addon.unit_price_cents,
          period_start: next.start,
          period_end: next.end,
        },
      ];
    });
    const lines = [...current.pendingLines, ...recurring];
    const step: SubscriptionEvent[] = [];
    if (lines.length) step.push({ type: 'InvoiceIssued', data: { accountId, invoice: newInvoice(current, catalog, 'period', current.period.end, lines) } });
    step.push({ type: 'SubscriptionPeriodRenewed', data: { accountId, periodStart: next.start, periodEnd: next.end } });
    current = step.reduce(evolveSubscription, current);
    events.push(...step);
  }
  return events;
}

function newInvoice(state: SubscriptionState, catalog: Catalog, reason: InvoiceView['reason'], issuedAt: number, lines: InvoiceLineView[]): InvoiceView {
  const number = String(state.invoices.length + 1).padStart(4, '0');
  return {
    invoice_id: `in_${state.accountId}_${number}`,
    reason,
    currency: catalogCurrency(catalog),
    issued_at: issuedAt,
    period_start: state.period.start,
    period_end: state.period.end,
    lines,
    total_cents: totalCents(lines),
  };
}

export function evolveSubscription(state: SubscriptionState, event: SubscriptionEvent): SubscriptionState {
  switch (event.type) {
    case 'SubscriptionStarted': {
      const { accountId, planId, periodStart, periodEnd } = event.data;
      return { ...initialSubscriptionState(), started: true, accountId, planId, period: { start: periodStart, end: periodEnd } };
    }
    case 'AddonQuantityChanged': {
      const { addonId, toQuantity, lines, invoiced } = event.data;
      const items = { ...state.items };
      if (toQuantity > 0) items[addonId] = toQuantity;
      else delete items[addonId];
      return { ...state, items, pendingLines: invoiced ? state.pendingLines : [...state.pendingLines, ...lines] };
    }
    case 'InvoiceIssued': {
      const { invoice } = event.data;
      // A period's invoice carries the lines that waited for it.
      return { ...state, invoices: [...state.invoices, invoice], pendingLines: invoice.reason === 'period' ? [] : state.pendingLines };
    }
    case 'SubscriptionPeriodRenewed':
      return { ...state, period: { start: event.data.periodStart, end: event.data.periodEnd } };
    default: {
      const unknown: never = event;
      throw new Error(`unknown event ${(unknown as { type: string }).type}`);
    }
  }
}

/** The proration of a decision: the lines of its quantity changes. */
export function prorationOf(events: readonly SubscriptionEvent[]): InvoiceLineView[] {
  return events.flatMap((e) => (e.type === 'AddonQuantityChanged' ? e.data.lines : []));
}

/** The items in catalog order, with their current prices and tiers. */
export function subscriptionViewOf(state: SubscriptionState, catalog: Catalog): SubscriptionView {
  const items = catalog.addons
    .filter((addon) => state.items[addon.addon_id])
    .map((addon) => ({ addon_id: addon.addon_id, quantity: state.items[addon.addon_id], unit_price_cents: addon.unit_price_cents, tier: addon.tier }));
  // Items the catalog no longer lists are still shown, without a price.
  for (const [addonId, quantity] of Object.entries(state.items)) {
    if (!findAddon(catalog, addonId)) items.push({ addon_id: addonId, quantity, unit_price_cents: 0, tier: '' });
  }
  return {
    account_id: state.accountId,
    plan_id: state.planId,
    included_custom_domains: catalog.plan.included_custom_domains,
    currency: catalogCurrency(catalog),
    period_start: state.period.start,
    period_end: state.period.end,
    items,
  };
}
