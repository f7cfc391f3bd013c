import { ServiceError } from '@funnel/contracts';
import { DEFAULT_CATALOG } from './catalog';
import {
  SubscriptionCommand,
  SubscriptionEvent,
  SubscriptionState,
  decideSubscription,
  evolveSubscription,
  initialSubscriptionState,
  prorationOf,
  subscriptionViewOf,
} from './subscription';

const accountId = 'ACCOUNT0000A';
const utc = (text: string) => Date.parse(text) / 1000;
const jan = { start: utc('2025-01-01T00:00:00Z'), end: utc('2025-02-01T00:00:00Z') };
const feb = { start: utc('2025-02-01T00:00:00Z'), end: utc('2025-03-01T00:00:00Z') };
const mid = utc('2025-01-16T00:00:00Z');

const started: SubscriptionEvent = {
  type: 'SubscriptionStarted',
  data: { accountId, planId: 'pro', periodStart: jan.start, periodEnd: jan.end, startedAt: jan.start },
};
const stateOf = (events: SubscriptionEvent[]): SubscriptionState => events.reduce(evolveSubscription, initialSubscriptionState());
const decide = (events: SubscriptionEvent[], command: SubscriptionCommand) => decideSubscription(command, stateOf(events), DEFAULT_CATALOG);
const all = (events: SubscriptionEvent[], command: SubscriptionCommand) => [...events, ...decide(events, command)];

const quantity = (
  addonId: string,
  value: unknown,
  at = mid,
  extra: Partial<{ invoiceImmediately: boolean; customDomains: number }> = {},
): SubscriptionCommand => ({
  type: 'ChangeAddonQuantity',
  accountId,
  addonId,
  quantity: value,
  invoiceImmediately: false,
  customDomains: 0,
  at,
  ...extra,
});
const switchAddon = (currentAddonId: string | null, newAddonId: string | null, invoiceImmediately = true, customDomains = 0): SubscriptionCommand => ({
  type: 'SwitchAddon',
  accountId,
  currentAddonId,
  newAddonId,
  invoiceImmediately,
  customDomains,
  at: mid,
});

function refusal(run: () => unknown): ServiceError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ServiceError);
    return error as ServiceError;
  }
  throw new Error('expected a refusal');
}

describe('subscription decider', () => {
  it('starts on first use with the default plan, for the calendar month', () => {
    expect(decide([], { type: 'BringUpToDate', accountId, at: mid })).toEqual([
      { type: 'SubscriptionStarted', data: { accountId, planId: 'pro', periodStart: jan.start, periodEnd: jan.end, startedAt: mid } },
    ]);
    expect(decide([started], { type: 'BringUpToDate', accountId, at: mid })).toEqual([]);
  });

  it('changes a quantity with proration lines that wait for the period invoice', () => {
    const events = decide([started], quantity('extra-user', 2));
    expect(events).toEqual([
      {
        type: 'AddonQuantityChanged',
        data: {
          accountId,
          addonId: 'extra-user',
          fromQuantity: 0,
          toQuantity: 2,
          changedAt: mid,
          reason: 'quantity',
          invoiced: false,
          lines: [
            {
              addon_id: 'extra-user',
              description: 'Remaining time on 2 × Extra user after 2025-01-16T00:00:00Z',
              amount_cents: 929,
              period_start: mid,
              period_end: jan.end,
            },
          ],
        },
      },
    ]);
    const state = stateOf([started, ...events]);
    expect(state.items).toEqual({ 'extra-user': 2 });
    expect(state.pendingLines.map((l) => l.amount_cents)).toEqual([929]);
    expect(subscriptionViewOf(state, DEFAULT_CATALOG)).toEqual({
      account_id: accountId,
      plan_id: 'pro',
      included_custom_domains: 3,
      currency: 'usd',
      period_start: jan.start,
      period_end: jan.end,
      items: [{ addon_id: 'extra-user', quantity: 2, unit_price_cents: 900, tier: 'users' }],
    });
  });

  it('starts the subscription in the same decision when a first command comes', () => {
    const events = decide([], quantity('extra-user', 1));
    expect(events.map((e) => e.type)).toEqual(['SubscriptionStarted', 'AddonQuantityChanged']);
  });

  it('setting the quantity it already has records nothing', () => {
    const history = all([started], quantity('extra-user', 2));
    expect(decide(history, quantity('extra-user', 2))).toEqual([]);
  });

  it.each([
    ['an unknown add-on', quantity('gold-support', 1), 404, 'ADDON_NOT_FOUND'],
    ['a fraction', quantity('extra-user', 1.5), 400, 'INVALID_QUANTITY'],
    ['a string', quantity('extra-user', '2'), 400, 'INVALID_QUANTITY'],
    ['a negative quantity', quantity('extra-user', -1), 400, 'INVALID_QUANTITY'],
    ['more than the maximum', quantity('extra-user', 101), 400, 'INVALID_QUANTITY'],
    ['more than 1 of an event volume', quantity('events-10m', 2), 400, 'INVALID_QUANTITY'],
    ['fewer extra domains than the domains in use need', quantity('extra-custom-domain', 1, mid, { customDomains: 5 }), 400, 'INVALID_QUANTITY'],
  ])('refuses %s', (_what, command, status, code) => {
    expect(refusal(() => decide([started], command))).toMatchObject({ status, code });
  });

  it('names the domains in use when the domain add-on would go below them', () => {
    expect(refusal(() => decide([started], quantity('extra-custom-domain', 1, mid, { customDomains: 5 }))).message).toBe(
      'quantity of extra-custom-domain must be from 2 to 1000 (the account has 5 custom domains, 3 of them included in the plan)',
    );
  });

  it('refuses a second add-on of a tier through quantity (409 ADDON_TIER_CONFLICT)', () => {
    const history = all([started], quantity('events-10m', 1));
    expect(refusal(() => decide(history, quantity('events-50m', 1)))).toMatchObject({ status: 409, code: 'ADDON_TIER_CONFLICT' });
    // Setting it to 0 is no conflict (and no change).
    expect(decide(history, quantity('events-50m', 0))).toEqual([]);
  });

  it('invoices a quantity change at once when asked', () => {
    const events = decide([started], quantity('extra-user', 1, mid, { invoiceImmediately: true }));
    expect(events.map((e) => e.type)).toEqual(['AddonQuantityChanged', 'InvoiceIssued']);
    expect(events[1]).toMatchObject({ data: { invoice: { invoice_id: `in_${accountId}_0001`, reason: 'proration', total_cents: 465, currency: 'usd' } } });
    expect(stateOf([started, ...events]).pendingLines).toEqual([]);
  });

  describe('switch', () => {
    it('adds an add-on (current null) and invoices the proration at once', () => {
      const events = decide([started], switchAddon(null, 'events-10m'));
      expect(prorationOf(events).map((l) => [l.addon_id, l.amount_cents])).toEqual([['events-10m', 2581]]);
      expect(events.map((e) => e.type)).toEqual(['AddonQuantityChanged', 'InvoiceIssued']);
      expect(stateOf([started, ...events]).items).toEqual({ 'events-10m': 1 });
    });

    it('switches within a tier: credits the old, charges the new', () => {
      const history = all([started], switchAddon(null, 'events-10m'));
      const events = decide(history, switchAddon('events-10m', 'events-50m'));
      expect(prorationOf(events).map((l) => [l.addon_id, l.amount_cents])).toEqual([
        ['events-10m', -2581],
        ['events-50m', 10323],
      ]);
      const invoice = events.find((e) => e.type === 'InvoiceIssued');
      expect(invoice).toMatchObject({ data: { invoice: { invoice_id: `in_${accountId}_0002`, total_cents: 7742 } } });
      expect(stateOf([...history, ...events]).items).toEqual({ 'events-50m': 1 });
    });

    it('removes an add-on (new null); without invoice_immediately the credit waits for the period invoice', () => {
      const history = all([started], switchAddon(null, 'events-10m'));
      const events = decide(history, switchAddon('events-10m', null, false));
      expect(events.map((e) => e.type)).toEqual(['AddonQuantityChanged']);
      const state = stateOf([...history, ...events]);
      expect(state.items).toEqual({});
      expect(state.pendingLines.map((l) => l.amount_cents)).toEqual([-2581]);
    });

    it.each([
      ['both null', [], switchAddon(null, null), 400, 'INVALID_SWITCH'],
      ['a current the account does not have', [], switchAddon('events-10m', 'events-50m'), 400, 'INVALID_SWITCH'],
      ['a cross-tier switch', ['events-10m'], switchAddon('events-10m', 'extra-user'), 400, 'INVALID_SWITCH'],
      ['a switch to itself', ['events-10m'], switchAddon('events-10m', 'events-10m'), 400, 'INVALID_SWITCH'],
      ['adding what it has', ['events-10m'], switchAddon(null, 'events-10m'), 400, 'INVALID_SWITCH'],
      ['adding a second of a tier', ['events-10m'], switchAddon(null, 'events-50m'), 400, 'INVALID_SWITCH'],
      ['an unknown new add-on', [], switchAddon(null, 'gold'), 404, 'ADDON_NOT_FOUND'],
      ['an unknown current add-on', [], switchAddon('gold', null), 404, 'ADDON_NOT_FOUND'],
    ])('refuses %s', (_what, has, command, status, code) => {
      const history = (has as string[]).reduce<SubscriptionEvent[]>((events, id) => all(events, switchAddon(null, id)), [started]);
      expect(refusal(() => decide(history, command))).toMatchObject({ status, code });
    });

    it('refuses removing the extra domains the custom domains need', () => {
      const history = all([started], quantity('extra-custom-domain', 2, mid, { customDomains: 5 }));
      expect(refusal(() => decide(history, switchAddon('extra-custom-domain', null, true, 5)))).toMatchObject({ status: 400, code: 'INVALID_QUANTITY' });
      expect(stateOf(all(history, switchAddon('extra-custom-domain', null, true, 3))).items).toEqual({});
    });
  });

  describe('custom domains', () => {
    const follow = (customDomains: number, direction: 'raise' | 'lower'): SubscriptionCommand => ({
      type: 'FollowCustomDomains',
      accountId,
      customDomains,
      direction,
      at: mid,
    });

    it('raises the domain add-on beyond the included domains, never lowers it on a raise', () => {
      expect(decide([started], follow(3, 'raise'))).toEqual([]);
      const fourth = decide([started], follow(4, 'raise'));
      expect(fourth).toMatchObject([
        { type: 'AddonQuantityChanged', data: { addonId: 'extra-custom-domain', fromQuantity: 0, toQuantity: 1, reason: 'custom-domains' } },
      ]);
      const bought = all([started], quantity('extra-custom-domain', 5));
      expect(decide(bought, follow(4, 'raise'))).toEqual([]);
    });

    it('lowers it to what the domains need when one is deleted', () => {
      const history = all(all([started], follow(4, 'raise')), follow(5, 'raise'));
      expect(stateOf(history).items).toEqual({ 'extra-custom-domain': 2 });
      const lowered = decide(history, follow(4, 'lower'));
      expect(lowered).toMatchObject([{ data: { fromQuantity: 2, toQuantity: 1 } }]);
      expect(stateOf(all(history, follow(2, 'lower'))).items).toEqual({});
      expect(decide(history, follow(6, 'lower'))).toEqual([]);
    });
  });

  describe('period renewal', () => {
    it('issues the ended period invoice (pending lines and the next month in advance) and renews', () => {
      const history = all([started], quantity('extra-user', 2));
      const events = decide(history, { type: 'BringUpToDate', accountId, at: utc('2025-02-03T00:00:00Z') });
      expect(events).toEqual([
        {
          type: 'InvoiceIssued',
          data: {
            accountId,
            invoice: {
              invoice_id: `in_${accountId}_0001`,
              reason: 'period',
              currency: 'usd',
              issued_at: jan.end,
              period_start: jan.start,
              period_end: jan.end,
              lines: [
                {
                  addon_id: 'extra-user',
                  description: 'Remaining time on 2 × Extra user after 2025-01-16T00:00:00Z',
                  amount_cents: 929,
                  period_start: mid,
                  period_end: jan.end,
                },
                { addon_id: 'extra-user', description: '2 × Extra user (2025-02)', amount_cents: 1800, period_start: feb.start, period_end: feb.end },
              ],
              total_cents: 2729,
            },
          },
        },
        { type: 'SubscriptionPeriodRenewed', data: { accountId, periodStart: feb.start, periodEnd: feb.end } },
      ]);
      const state = stateOf([...history, ...events]);
      expect(state.period).toEqual(feb);
      expect(state.pendingLines).toEqual([]);
    });

    it('renews every missed month, and issues nothing for a month without charges', () => {
      const events = decide([started], { type: 'BringUpToDate', accountId, at: utc('2025-04-10T00:00:00Z') });
      expect(events.map((e) => e.type)).toEqual(['SubscriptionPeriodRenewed', 'SubscriptionPeriodRenewed', 'SubscriptionPeriodRenewed']);
      expect(stateOf([started, ...events]).period.start).toBe(utc('2025-04-01T00:00:00Z'));
    });

    it('prorates a change after a renewal over the new period', () => {
      const events = decide([started], quantity('extra-custom-domain', 1, utc('2025-02-15T00:00:00Z')));
      expect(events.map((e) => e.type)).toEqual(['SubscriptionPeriodRenewed', 'AddonQuantityChanged']);
      // 14 of 28 days: half of 500 cents.
      expect(prorationOf(events).map((l) => l.amount_cents)).toEqual([250]);
    });
  });
});
