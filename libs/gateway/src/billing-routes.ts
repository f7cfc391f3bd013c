import {
  ADDON_QUANTITY_BODY_SCHEMA,
  ADDON_SWITCH_BODY_SCHEMA,
  BillingSubjects,
  CHECK_DOMAIN_SCHEMA,
  DOMAIN_BODY_SCHEMA,
  DOMAIN_INFO_SCHEMA,
  DOMAIN_SUMMARY_SCHEMA,
  INVOICES_SCHEMA,
  SUBSCRIPTION_CHANGE_SCHEMA,
  SUBSCRIPTION_SCHEMA,
  billingAnswer,
} from '@funnel/contracts';
import type { RouteDoc } from './docs/openapi/route-doc';
import { ForwardedRoute } from './route-table';

/**
 * Custom domains and billing add-ons, served by the billing service under /v1/billing: permission
 * `billing:manage`, the billing body shape on every answer (errors included), and the
 * `Idempotency-Key` header forwarded on the mutations.
 */
export function billingRoutes(): ForwardedRoute[] {
  const route = (method: ForwardedRoute['method'], path: string, subject: string, doc: RouteDoc, idempotent = false): ForwardedRoute => ({
    method,
    path,
    subject,
    permission: 'billing:manage',
    reply: 'whole',
    errorBody: 'billing',
    ...(idempotent ? { forwardHeaders: ['idempotency-key'] } : {}),
    doc: { tag: 'billing', ...doc },
  });
  const domain = billingAnswer({ domain: DOMAIN_INFO_SCHEMA });
  const quantity: RouteDoc = { summary: 'Set an add-on quantity', body: ADDON_QUANTITY_BODY_SCHEMA, answer: SUBSCRIPTION_CHANGE_SCHEMA };
  return [
    route('GET', '/billing/domains', BillingSubjects.domainsList, {
      summary: 'Custom domains',
      answer: billingAnswer({ domains: { type: 'array', items: DOMAIN_SUMMARY_SCHEMA } }),
    }),
    route(
      'POST',
      '/billing/domains',
      BillingSubjects.domainsCreate,
      { summary: 'Register a custom domain', body: DOMAIN_BODY_SCHEMA, answer: billingAnswer({ domain: DOMAIN_INFO_SCHEMA, message: { type: 'string' } }) },
      true,
    ),
    route('POST', '/billing/domains/check', BillingSubjects.domainsCheck, {
      summary: 'Check that a domain routes to the service',
      body: DOMAIN_BODY_SCHEMA,
      answer: CHECK_DOMAIN_SCHEMA,
    }),
    route('GET', '/billing/domains/:domain', BillingSubjects.domainsGet, { summary: 'One custom domain', answer: domain }),
    route(
      'DELETE',
      '/billing/domains/:domain',
      BillingSubjects.domainsDelete,
      { summary: 'Delete a custom domain', answer: billingAnswer({ message: { type: 'string' } }) },
      true,
    ),
    route('POST', '/billing/domains/:domain/refresh', BillingSubjects.domainsRefresh, {
      summary: 'Check a domain again and update its status',
      answer: billingAnswer({ domain: DOMAIN_INFO_SCHEMA, check: CHECK_DOMAIN_SCHEMA }),
    }),
    route('POST', '/billing/addons/quantity', BillingSubjects.addonsQuantity, quantity, true),
    // Deprecated alias of /billing/addons/quantity (spec: Versioning).
    route('POST', '/billing/addons', BillingSubjects.addonsQuantity, { ...quantity, description: 'Deprecated: use /billing/addons/quantity.' }, true),
    route(
      'POST',
      '/billing/addons/switch',
      BillingSubjects.addonsSwitch,
      { summary: 'Switch an add-on for another of its tier', body: ADDON_SWITCH_BODY_SCHEMA, answer: SUBSCRIPTION_CHANGE_SCHEMA },
      true,
    ),
    route('GET', '/billing/subscription', BillingSubjects.subscriptionGet, {
      summary: 'The subscription',
      answer: billingAnswer({ subscription: SUBSCRIPTION_SCHEMA }),
    }),
    route('GET', '/billing/invoices', BillingSubjects.invoicesList, { summary: 'Invoices, newest first, and the upcoming lines', answer: INVOICES_SCHEMA }),
  ];
}
