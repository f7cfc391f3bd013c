/**
 * The billing service's contract: custom tracking domains and billing add-ons, under /v1/billing.
 * Every answer has the billing body shape `{ success, ..., error_code, error_message }` (errors
 * included: the gateway answers them in this shape for these routes).
 */

/** Request/reply subjects of the billing service. */
export const BillingSubjects = {
  domainsList: 'billing.domains.list',
  domainsCreate: 'billing.domains.create',
  domainsCheck: 'billing.domains.check',
  domainsGet: 'billing.domains.get',
  domainsDelete: 'billing.domains.delete',
  domainsRefresh: 'billing.domains.refresh',
  addonsQuantity: 'billing.addons.quantity',
  addonsSwitch: 'billing.addons.switch',
  subscriptionGet: 'billing.subscription.get',
  invoicesList: 'billing.invoices.list',
} as const;

/** The `error_code` values of billing answers (the spec names the first four). */
export const BillingErrorCodes = {
  DOMAIN_EXISTS: 'DOMAIN_EXISTS',
  DOMAIN_ALREADY_OWNED: 'DOMAIN_ALREADY_OWNED',
  NOT_FOUND: 'NOT_FOUND',
  INVALID_DOMAIN: 'INVALID_DOMAIN',
  /** A body field is missing or of the wrong type. */
  INVALID_REQUEST: 'INVALID_REQUEST',
  ADDON_NOT_FOUND: 'ADDON_NOT_FOUND',
  INVALID_QUANTITY: 'INVALID_QUANTITY',
  /** A switch the subscription does not allow: both ids null, a `current` the account does not have, a cross-tier switch ... */
  INVALID_SWITCH: 'INVALID_SWITCH',
  /** A quantity for an add-on whose tier already has another add-on: use /billing/addons/switch. */
  ADDON_TIER_CONFLICT: 'ADDON_TIER_CONFLICT',
  IDEMPOTENCY_KEY_REUSED: 'IDEMPOTENCY_KEY_REUSED',
  IDEMPOTENCY_KEY_IN_USE: 'IDEMPOTENCY_KEY_IN_USE',
  /** More than 30 domain checks (check or refresh) in a minute for the account. */
  RATE_LIMITED: 'RATE_LIMITED',
  /** Another request changed the same record meanwhile, several times over: try again. */
  CONFLICT: 'CONFLICT',
  EDGE_UNAVAILABLE: 'EDGE_UNAVAILABLE',
  EDGE_REJECTED: 'EDGE_REJECTED',
  BILLING_PROVIDER_UNAVAILABLE: 'BILLING_PROVIDER_UNAVAILABLE',
  BILLING_PROVIDER_REJECTED: 'BILLING_PROVIDER_REJECTED',
  /** The billing provider has no subscription for the account (Stripe: none with metadata account_id). */
  NO_PROVIDER_SUBSCRIPTION: 'NO_PROVIDER_SUBSCRIPTION',
} as const;

/** Our status of a custom domain (see the README's "Billing" section for the transitions). */
export const DOMAIN_STATUSES = ['pending', 'active', 'moved', 'deleted'] as const;
export type DomainStatus = (typeof DOMAIN_STATUSES)[number];
/** The edge's view of a hostname (the spec's edge_status values). */
export type EdgeStatus = 'pending' | 'active' | 'moved' | 'deleted';
/** The edge's certificate status (the spec's edge_ssl_status values). */
export type EdgeSslStatus = 'initializing' | 'pending_validation' | 'active';

export interface DomainSsl {
  status: EdgeSslStatus;
  /** The certificate-validation TXT record, when the edge validates by TXT (Cloudflare); '' otherwise. */
  txt_name: string;
  txt_value: string;
}

export interface OwnershipVerification {
  type: 'txt';
  name: string;
  value: string;
}

export interface DomainInfo {
  id: string;
  domain: string;
  /** The owning account's id. */
  owner: string;
  /** ISO 8601. */
  created_at: string;
  edge_id: string;
  status: DomainStatus;
  ssl: DomainSsl;
  ownership_verification: OwnershipVerification;
  verification_errors: string[];
  parsed: { subdomain: string; root_domain: string };
}

export interface DomainSummary {
  id: string;
  domain: string;
  edge_id: string;
  status: DomainStatus;
  ssl_status: EdgeSslStatus | '';
  verification_errors: string[];
  created_at: string;
}

export interface CheckDomainResponse {
  /** The check ran (whatever it found). */
  success: boolean;
  /** The domain answers from our edge. */
  found: boolean;
  ssl_valid: boolean;
  /** 0 when no HTTP answer came. */
  http_status: number;
  /** Why the certificate is not valid; '' when it is (or no TLS handshake took place). */
  ssl_error: string;
  response_time_ms: number;
  /** Why the domain was not found; '' when found. */
  error_message: string;
  /** Unix seconds. */
  check_timestamp: number;
  /** The edge's view of the domain when the account has it registered; '' otherwise. */
  edge_status: EdgeStatus | '';
  edge_ssl_status: EdgeSslStatus | '';
  error_code: string;
}

/** A subscription item as answers list it. */
export interface SubscriptionItemView {
  addon_id: string;
  quantity: number;
  unit_price_cents: number;
  tier: string;
}

export interface InvoiceLineView {
  addon_id: string;
  description: string;
  /** Negative for a credit. */
  amount_cents: number;
  /** Unix seconds. */
  period_start: number;
  period_end: number;
}

export interface InvoiceView {
  invoice_id: string;
  /** `proration`: issued at once for a change (invoice_immediately); `period`: issued when a period ends. */
  reason: 'proration' | 'period';
  currency: string;
  /** Unix seconds. */
  issued_at: number;
  period_start: number;
  period_end: number;
  lines: InvoiceLineView[];
  total_cents: number;
}

export interface SubscriptionView {
  account_id: string;
  plan_id: string;
  included_custom_domains: number;
  currency: string;
  /** Unix seconds: the current period, a calendar month UTC. */
  period_start: number;
  period_end: number;
  items: SubscriptionItemView[];
}

export interface ProrationView {
  amount_cents: number;
  lines: InvoiceLineView[];
}

/**
 * `billing.internal.domains` (no gateway route: only the `tracking-edge` NATS user may call it): one
 * page of the live custom domains of every account, by domain name, for the edge to find an account
 * from a request's host. Body `{ after?, limit? }` (`after`: the previous page's `next`).
 */
export const BILLING_EDGE_DOMAINS_SUBJECT = 'billing.internal.domains';
/** Subjects of the billing service that the gateway may not call (internal callers only). */
export const BILLING_INTERNAL_SUBJECTS: readonly string[] = [BILLING_EDGE_DOMAINS_SUBJECT];
export const BILLING_EDGE_DOMAINS_PAGE_MAX = 5000;

export interface EdgeDomain {
  /** The normalised host name (lower case, no trailing dot). */
  domain: string;
  accountId: string;
  status: DomainStatus;
}

export interface EdgeDomainsPage {
  domains: EdgeDomain[];
  next: string | null;
}
