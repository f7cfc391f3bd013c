import { createHash } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { BillingErrorCodes, CallerContext, InvoiceLineView, InvoiceView, ProrationView, ServiceError, SubscriptionView } from '@funnel/contracts';
import { EVENT_STORE, EventStore, FoldedStream, WrongExpectedRevisionError, foldStream } from '@funnel/eventstore';
import { READ_STORE, ReadStore } from '@funnel/readstore';
import {
  AddonQuantityChanged,
  Catalog,
  SUBSCRIPTION_EVENT_SCHEMA_VERSION,
  SubscriptionCommand,
  SubscriptionEvent,
  SubscriptionState,
  SubscriptionStreams,
  asSubscriptionEvent,
  decideSubscription,
  evolveSubscription,
  initialSubscriptionState,
  subscriptionViewOf,
  totalCents,
} from '@funnel/billing-domain';
import { BILLING_CATALOG, BILLING_CLOCK, NO_ERROR } from '../billing.tokens';
import { BILLING_PROVIDER, BillingChange, BillingProvider } from '../providers/billing-provider';
import { domainsCollection } from '../domains/domains.projector';

/** Appends lost to a concurrent writer are decided again this many times before a 409 CONFLICT. */
const MAX_ATTEMPTS = 5;

export interface SubscriptionChangeAnswer {
  success: true;
  subscription: SubscriptionView;
  proration: ProrationView;
  /** The invoice issued at once (invoice_immediately), or null. */
  invoice: InvoiceView | null;
  error_code: '';
  error_message: '';
}

const invalidRequest = (field: string, message: string) => ServiceError.invalidField(field, 'type', message, BillingErrorCodes.INVALID_REQUEST);

function bodyObject(body: unknown): Record<string, unknown> {
  if (body === undefined || body === null) return {};
  if (typeof body !== 'object' || Array.isArray(body)) throw invalidRequest('', 'the body must be a JSON object');
  return body as Record<string, unknown>;
}

function optionalBoolean(body: Record<string, unknown>, field: string, fallback: boolean): boolean {
  const value = body[field];
  if (value === undefined || value === null) return fallback;
  if (typeof value !== 'boolean') throw invalidRequest(field, `${field} must be true or false`);
  return value;
}

function addonIdOrNull(body: Record<string, unknown>, field: string): string | null {
  const value = body[field];
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string' || value === '') throw invalidRequest(field, `${field} must be an add-on id or null`);
  return value;
}

/**
 * The account's subscription, an event-sourced aggregate (`billingsubscription-<accountId>`):
 * read by folding its stream (it is small and every read may first renew an ended period),
 * changed by deciding on that state, applying the change at the billing provider, and appending
 * at the revision read (a lost race is decided again).
 */
@Injectable()
export class SubscriptionService {
  private readonly domains: ReturnType<typeof domainsCollection>;

  constructor(
    @Inject(EVENT_STORE) private readonly eventStore: EventStore,
    @Inject(READ_STORE) readStore: ReadStore,
    @Inject(BILLING_PROVIDER) private readonly provider: BillingProvider,
    @Inject(BILLING_CATALOG) private readonly catalog: Catalog,
    @Inject(BILLING_CLOCK) private readonly clock: () => number,
  ) {
    this.domains = domainsCollection(readStore);
  }

  async get(context: CallerContext): Promise<{ success: true; subscription: SubscriptionView; error_code: ''; error_message: '' }> {
    const { state } = await this.handle(context, () => ({ type: 'BringUpToDate', accountId: context.accountId, at: this.now() }));
    return { success: true, subscription: subscriptionViewOf(state, this.catalog), ...NO_ERROR };
  }

  /** The invoices issued, newest first, and the lines waiting for the period's invoice. */
  async invoices(context: CallerContext) {
    const { state } = await this.handle(context, () => ({ type: 'BringUpToDate', accountId: context.accountId, at: this.now() }));
    return {
      success: true as const,
      invoices: [...state.invoices].reverse(),
      upcoming: { period_start: state.period.start, period_end: state.period.end, lines: state.pendingLines, amount_cents: totalCents(state.pendingLines) },
      ...NO_ERROR,
    };
  }

  /** POST /billing/addons/quantity `{ addon_id, quantity, invoice_immediately? }` (default: the lines wait for the period's invoice). */
  changeQuantity(context: CallerContext, body: unknown, idempotencyKey?: string): Promise<SubscriptionChangeAnswer> {
    const request = bodyObject(body);
    if (typeof request.addon_id !== 'string' || request.addon_id === '') throw invalidRequest('addon_id', 'addon_id is required: an add-on id');
    const addonId = request.addon_id;
    const invoiceImmediately = optionalBoolean(request, 'invoice_immediately', false);
    return this.change(context, 'quantity', invoiceImmediately, idempotencyKey, (customDomains) => ({
      type: 'ChangeAddonQuantity',
      accountId: context.accountId,
      addonId,
      quantity: request.quantity,
      invoiceImmediately,
      customDomains,
      at: this.now(),
    }));
  }

  /** POST /billing/addons/switch `{ current_addon_id, new_addon_id, invoice_immediately (default true) }`. */
  switchAddon(context: CallerContext, body: unknown, idempotencyKey?: string): Promise<SubscriptionChangeAnswer> {
    const request = bodyObject(body);
    const currentAddonId = addonIdOrNull(request, 'current_addon_id');
    const newAddonId = addonIdOrNull(request, 'new_addon_id');
    const invoiceImmediately = optionalBoolean(request, 'invoice_immediately', true);
    return this.change(context, 'switch', invoiceImmediately, idempotencyKey, (customDomains) => ({
      type: 'SwitchAddon',
      accountId: context.accountId,
      currentAddonId,
      newAddonId,
      invoiceImmediately,
      customDomains,
      at: this.now(),
    }));
  }

  /** After a domain is added (`raise`) or deleted (`lower`): the domain add-on follows the account's domain count. */
  async followCustomDomains(context: CallerContext, direction: 'raise' | 'lower'): Promise<void> {
    await this.change(context, 'quantity', false, undefined, (customDomains) => ({
      type: 'FollowCustomDomains',
      accountId: context.accountId,
      customDomains,
      direction,
      at: this.now(),
    }));
  }

  private async change(
    context: CallerContext,
    kind: BillingChange['kind'],
    invoiceImmediately: boolean,
    idempotencyKey: string | undefined,
    command: (customDomains: number) => SubscriptionCommand,
  ): Promise<SubscriptionChangeAnswer> {
    const { state, events } = await this.handle(
      context,
      async () => command(await this.customDomains(context.accountId)),
      async (decided, revision) => {
        const changes = decided.filter((e): e is AddonQuantityChanged => e.type === 'AddonQuantityChanged').map((e) => e.data);
        if (!changes.length) return;
        const key = idempotencyKey
          ? `${context.accountId}:${idempotencyKey}`
          : `${context.accountId}:${revision}:${createHash('sha256').update(JSON.stringify(changes)).digest('hex').slice(0, 32)}`;
        await this.provider.apply({
          accountId: context.accountId,
          kind,
          changes: changes.map(({ addonId, fromQuantity, toQuantity }) => ({ addonId, fromQuantity, toQuantity })),
          invoiceImmediately,
          idempotencyKey: key,
        });
      },
    );
    const lines: InvoiceLineView[] = events.flatMap((e) => (e.type === 'AddonQuantityChanged' ? e.data.lines : []));
    const issued = events.filter((e) => e.type === 'InvoiceIssued').map((e) => e.data.invoice);
    const invoice = issued.find((i) => i.reason === 'proration') ?? null;
    return {
      success: true,
      subscription: subscriptionViewOf(state, this.catalog),
      proration: { amount_cents: totalCents(lines), lines },
      invoice,
      ...NO_ERROR,
    };
  }

  /** Load, decide, (apply at the provider,) append at the revision read; a lost race is decided again. */
  private async handle(
    context: CallerContext,
    command: () => SubscriptionCommand | Promise<SubscriptionCommand>,
    beforeAppend?: (events: SubscriptionEvent[], revision: number) => Promise<void>,
  ): Promise<{ state: SubscriptionState; events: SubscriptionEvent[] }> {
    const stream = SubscriptionStreams.subscription(context.accountId);
    for (let attempt = 1; ; attempt++) {
      const { state, revision } = await this.load(stream);
      const events = decideSubscription(await command(), state, this.catalog);
      if (!events.length) return { state, events };
      await beforeAppend?.(events, revision);
      try {
        await this.eventStore.append(
          stream,
          events.map((e) => ({
            type: e.type,
            data: e.data as unknown as Record<string, unknown>,
            metadata: {
              accountId: context.accountId,
              actorId: context.userId,
              correlationId: context.correlationId,
              occurredAt: new Date(this.clock()).toISOString(),
              schemaVersion: SUBSCRIPTION_EVENT_SCHEMA_VERSION,
            },
          })),
          { expectedRevision: revision < 0 ? 'no_stream' : revision },
        );
        return { state: events.reduce(evolveSubscription, state), events };
      } catch (error) {
        if (!(error instanceof WrongExpectedRevisionError)) throw error;
        if (attempt >= MAX_ATTEMPTS) throw ServiceError.conflict(BillingErrorCodes.CONFLICT, 'the subscription changed concurrently; try again');
      }
    }
  }

  private load(stream: string): Promise<FoldedStream<SubscriptionState>> {
    return foldStream(this.eventStore, stream, initialSubscriptionState(), asSubscriptionEvent, evolveSubscription);
  }

  private customDomains(accountId: string): Promise<number> {
    return this.domains.countDocuments({ accountId, live: true });
  }

  private now(): number {
    return Math.floor(this.clock() / 1000);
  }
}
