/** One add-on's quantity change within a subscription change. */
export interface ItemChange {
  addonId: string;
  fromQuantity: number;
  toQuantity: number;
}

/** A decided change of an account's subscription, to apply at the billing provider before it is recorded. */
export interface BillingChange {
  accountId: string;
  /** `quantity`: one item's quantity; `switch`: one add-on replaced by another (or added, or removed). */
  kind: 'quantity' | 'switch';
  changes: ItemChange[];
  /** Invoice the proration at once (Stripe: proration_behavior always_invoice), else with the period (create_prorations). */
  invoiceImmediately: boolean;
  /** The same change sent twice is applied once (the request's Idempotency-Key, or one derived from the decision). */
  idempotencyKey: string;
}

/**
 * The billing provider port. `ledger` (the default) is the embedded ledger: the subscription's own
 * event stream holds the items, the proration lines and the invoices, so there is nothing to call.
 * `stripe` applies every change to the account's Stripe subscription first.
 */
export interface BillingProvider {
  readonly name: string;
  apply(change: BillingChange): Promise<void>;
}

export const BILLING_PROVIDER = Symbol.for('funnel.billing.BillingProvider');

/** The embedded ledger: the subscription stream is the record of account; no provider to tell. */
export const EMBEDDED_LEDGER: BillingProvider = {
  name: 'ledger',
  apply: () => Promise.resolve(),
};
