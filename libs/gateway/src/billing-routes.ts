import { BillingSubjects } from '@funnel/contracts';
import { ForwardedRoute } from './route-table';

/**
 * Custom domains and billing add-ons, served by the billing service under /v1/billing: permission
 * `billing:manage`, the billing body shape on every answer (errors included), and the
 * `Idempotency-Key` header forwarded on the mutations.
 */
export function billingRoutes(): ForwardedRoute[] {
  const route = (method: ForwardedRoute['method'], path: string, subject: string, idempotent = false): ForwardedRoute => ({
    method,
    path,
    subject,
    permission: 'billing:manage',
    reply: 'whole',
    errorBody: 'billing',
    ...(idempotent ? { forwardHeaders: ['idempotency-key'] } : {}),
  });
  return [
    route('GET', '/billing/domains', BillingSubjects.domainsList),
    route('POST', '/billing/domains', BillingSubjects.domainsCreate, true),
    route('POST', '/billing/domains/check', BillingSubjects.domainsCheck),
    route('GET', '/billing/domains/:domain', BillingSubjects.domainsGet),
    route('DELETE', '/billing/domains/:domain', BillingSubjects.domainsDelete, true),
    route('POST', '/billing/domains/:domain/refresh', BillingSubjects.domainsRefresh),
    route('POST', '/billing/addons/quantity', BillingSubjects.addonsQuantity, true),
    // Deprecated alias of /billing/addons/quantity (spec: Versioning).
    route('POST', '/billing/addons', BillingSubjects.addonsQuantity, true),
    route('POST', '/billing/addons/switch', BillingSubjects.addonsSwitch, true),
    route('GET', '/billing/subscription', BillingSubjects.subscriptionGet),
    route('GET', '/billing/invoices', BillingSubjects.invoicesList),
  ];
}
