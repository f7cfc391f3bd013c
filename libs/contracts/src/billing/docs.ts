import type { JsonSchema } from '../assets/asset-kind';
import { DOMAIN_STATUSES } from './index';

/*
 * The billing answers as the API document shows them (the TypeScript shapes are in ./index.ts).
 * Every successful answer is `{ success: true, ..., error_code: "", error_message: "" }`.
 */

const STRING = { type: 'string' };
const INTEGER = { type: 'integer' };
const SSL_STATUS = { type: 'string', enum: ['initializing', 'pending_validation', 'active'] };
const EDGE_STATUS = { type: 'string', enum: ['pending', 'active', 'moved', 'deleted'] };

function object(properties: Record<string, unknown>, optional: string[] = []): JsonSchema {
  return { type: 'object', required: Object.keys(properties).filter((p) => !optional.includes(p)), properties, additionalProperties: false };
}

/** A billing success answer: `fields` plus success, error_code and error_message. */
export function billingAnswer(fields: Record<string, unknown>): JsonSchema {
  return object({ success: { const: true }, ...fields, error_code: { const: '' }, error_message: { const: '' } });
}

export const DOMAIN_INFO_SCHEMA = object({
  id: STRING,
  domain: STRING,
  owner: STRING,
  created_at: { type: 'string', format: 'date-time' },
  edge_id: STRING,
  status: { type: 'string', enum: [...DOMAIN_STATUSES] },
  ssl: object({ status: SSL_STATUS, txt_name: STRING, txt_value: STRING }),
  ownership_verification: object({ type: { const: 'txt' }, name: STRING, value: STRING }),
  verification_errors: { type: 'array', items: STRING },
  parsed: object({ subdomain: STRING, root_domain: STRING }),
});

export const DOMAIN_SUMMARY_SCHEMA = object({
  id: STRING,
  domain: STRING,
  edge_id: STRING,
  status: { type: 'string', enum: [...DOMAIN_STATUSES] },
  ssl_status: { type: 'string', enum: [...(SSL_STATUS.enum as string[]), ''] },
  verification_errors: { type: 'array', items: STRING },
  created_at: { type: 'string', format: 'date-time' },
});

export const CHECK_DOMAIN_SCHEMA = object({
  success: { type: 'boolean' },
  found: { type: 'boolean' },
  ssl_valid: { type: 'boolean' },
  http_status: INTEGER,
  ssl_error: STRING,
  response_time_ms: { type: 'number' },
  error_message: STRING,
  check_timestamp: INTEGER,
  edge_status: { type: 'string', enum: [...(EDGE_STATUS.enum as string[]), ''] },
  edge_ssl_status: { type: 'string', enum: [...(SSL_STATUS.enum as string[]), ''] },
  error_code: STRING,
});

const INVOICE_LINE = object({ addon_id: STRING, description: STRING, amount_cents: INTEGER, period_start: INTEGER, period_end: INTEGER });

export const INVOICE_SCHEMA = object({
  invoice_id: STRING,
  reason: { type: 'string', enum: ['proration', 'period'] },
  currency: STRING,
  issued_at: INTEGER,
  period_start: INTEGER,
  period_end: INTEGER,
  lines: { type: 'array', items: INVOICE_LINE },
  total_cents: INTEGER,
});

export const SUBSCRIPTION_SCHEMA = object({
  account_id: STRING,
  plan_id: STRING,
  included_custom_domains: INTEGER,
  currency: STRING,
  period_start: INTEGER,
  period_end: INTEGER,
  items: { type: 'array', items: object({ addon_id: STRING, quantity: INTEGER, unit_price_cents: INTEGER, tier: STRING }) },
});

/** The answer of an add-on change (quantity, switch). */
export const SUBSCRIPTION_CHANGE_SCHEMA = billingAnswer({
  subscription: SUBSCRIPTION_SCHEMA,
  proration: object({ amount_cents: INTEGER, lines: { type: 'array', items: INVOICE_LINE } }),
  invoice: { oneOf: [{ type: 'null' }, INVOICE_SCHEMA] },
});

export const INVOICES_SCHEMA = billingAnswer({
  invoices: { type: 'array', items: INVOICE_SCHEMA },
  upcoming: object({ period_start: INTEGER, period_end: INTEGER, lines: { type: 'array', items: INVOICE_LINE }, amount_cents: INTEGER }),
});

/** `{ domain }`: the body of a domain create or check. */
export const DOMAIN_BODY_SCHEMA = object({ domain: { type: 'string', description: 'a host name, e.g. track.example.com' } });

export const ADDON_QUANTITY_BODY_SCHEMA = object(
  { addon_id: STRING, quantity: { type: 'integer', minimum: 0 }, invoice_immediately: { type: 'boolean', default: false } },
  ['invoice_immediately'],
);

export const ADDON_SWITCH_BODY_SCHEMA = object(
  { current_addon_id: { type: ['string', 'null'] }, new_addon_id: { type: ['string', 'null'] }, invoice_immediately: { type: 'boolean', default: true } },
  ['invoice_immediately'],
);
