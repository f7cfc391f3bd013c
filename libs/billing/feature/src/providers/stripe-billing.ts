import Stripe from 'stripe';
import { BillingErrorCodes, ServiceError } from '@funnel/contracts';
import { Catalog, findAddon } from '@funnel/billing-domain';
import { BillingChange, BillingProvider } from './billing-provider';

export interface StripeBillingOptions {
  /** STRIPE_SECRET_KEY. */
  secretKey: string;
  /** The catalog, whose add-ons carry their `stripe_price_id`. */
  catalog: Catalog;
  /** STRIPE_API_URL: another API address (stripe-mock, tests); Stripe's own by default. */
  apiUrl?: string;
  /** Bound of one API call (default 3000 ms). */
  timeoutMs?: number;
}

type Item = { id: string; price: { id: string }; quantity?: number };

/**
 * The account's Stripe subscription, found by its metadata `account_id`, changed with the official
 * SDK: a quantity with `subscriptionItems.update` (or `create` when the subscription has no item
 * of the price yet), a switch with one `subscriptions.update` of both items; `proration_behavior`
 * `always_invoice` when the change is invoiced at once, else `create_prorations`; every call with
 * the change's idempotency key.
 */
export class StripeBilling implements BillingProvider {
  readonly name = 'stripe';
  private readonly stripe: Stripe;
  /** Account id -> Stripe subscription id, once found. */
  private readonly subscriptionIds = new Map<string, string>();

  constructor(private readonly options: StripeBillingOptions) {
    const api = options.apiUrl ? new URL(options.apiUrl) : undefined;
    this.stripe = new Stripe(options.secretKey, {
      maxNetworkRetries: 1,
      timeout: options.timeoutMs ?? 3000,
      ...(api ? { host: api.hostname, port: api.port || (api.protocol === 'http:' ? 80 : 443), protocol: api.protocol === 'http:' ? 'http' : 'https' } : {}),
    });
  }

  async apply(change: BillingChange): Promise<void> {
    try {
      const subscription = await this.subscriptionOf(change.accountId);
      const items = subscription.items.data as Item[];
      const proration_behavior = change.invoiceImmediately ? 'always_invoice' : 'create_prorations';
      const request = { idempotencyKey: change.idempotencyKey };
      const itemOf = (price: string) => items.find((item) => item.price.id === price);
      if (change.kind === 'quantity') {
        for (const { addonId, toQuantity } of change.changes) {
          const price = this.priceOf(addonId);
          const item = itemOf(price);
          if (item) await this.stripe.subscriptionItems.update(item.id, { quantity: toQuantity, proration_behavior }, request);
          else if (toQuantity > 0)
            await this.stripe.subscriptionItems.create({ subscription: subscription.id, price, quantity: toQuantity, proration_behavior }, request);
        }
        return;
      }
      const updates = change.changes.flatMap(({ addonId, toQuantity }): Stripe.SubscriptionUpdateParams.Item[] => {
        const price = this.priceOf(addonId);
        const item = itemOf(price);
        if (toQuantity === 0) return item ? [{ id: item.id, deleted: true }] : [];
        return [item ? { id: item.id, quantity: toQuantity } : { price, quantity: toQuantity }];
      });
      await this.stripe.subscriptions.update(subscription.id, { items: updates, proration_behavior }, request);
    } catch (error) {
      throw error instanceof ServiceError ? error : stripeFailure(error);
    }
  }

  private priceOf(addonId: string): string {
    const price = findAddon(this.options.catalog, addonId)?.stripe_price_id;
    if (!price) throw ServiceError.conflict(BillingErrorCodes.BILLING_PROVIDER_REJECTED, `add-on ${addonId} has no stripe_price_id in the catalog`);
    return price;
  }

  private async subscriptionOf(accountId: string): Promise<Stripe.Subscription> {
    const known = this.subscriptionIds.get(accountId);
    if (known) return this.stripe.subscriptions.retrieve(known);
    const found = await this.stripe.subscriptions.search({ query: `metadata['account_id']:'${accountId.replace(/['\\]/g, '')}'`, limit: 1 });
    const subscription = found.data[0];
    if (!subscription) {
      throw ServiceError.conflict(BillingErrorCodes.NO_PROVIDER_SUBSCRIPTION, 'the account has no Stripe subscription (metadata account_id) to change');
    }
    this.subscriptionIds.set(accountId, subscription.id);
    return subscription;
  }
}

/** A Stripe failure as a ServiceError: outages 503, refusals 409 with Stripe's message (never the key). */
function stripeFailure(error: unknown): ServiceError {
  const { type, message } = error as { type?: string; message?: string };
  switch (type) {
    case 'StripeConnectionError':
    case 'StripeAPIError':
    case 'StripeRateLimitError':
      return new ServiceError(503, BillingErrorCodes.BILLING_PROVIDER_UNAVAILABLE, 'Stripe is not reachable right now; try again');
    case 'StripeAuthenticationError':
    case 'StripePermissionError':
      return new ServiceError(503, BillingErrorCodes.BILLING_PROVIDER_UNAVAILABLE, 'the Stripe key is refused: check STRIPE_SECRET_KEY');
    case 'StripeInvalidRequestError':
    case 'StripeIdempotencyError':
    case 'StripeCardError':
      return ServiceError.conflict(BillingErrorCodes.BILLING_PROVIDER_REJECTED, `Stripe refused the change: ${(message ?? 'no reason given').slice(0, 300)}`);
    default:
      throw error;
  }
}
