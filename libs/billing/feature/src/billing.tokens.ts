/** Nest tokens of the billing module's settings. */
export const BILLING_CATALOG = Symbol.for('funnel.billing.Catalog');
export const BILLING_CLOCK = Symbol.for('funnel.billing.Clock');
export const BILLING_SETTINGS = Symbol.for('funnel.billing.Settings');
export const BILLING_AUDIT_LOGGER = Symbol.for('funnel.billing.AuditLogger');

/** Settings of the custom-domain routes. */
export interface BillingSettings {
  /** Where users point their domains (EDGE_CNAME_TARGET). */
  edgeCnameTarget: string;
  /** The service's own domains (RESERVED_DOMAINS and the CNAME target's registrable domain), never registrable. */
  reservedDomains: string[];
}

/** The success half of the billing body shape, added to every successful answer. */
export const NO_ERROR = { error_code: '', error_message: '' } as const;
