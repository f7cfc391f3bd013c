import type { JsonSchema } from '../assets/asset-kind';
import { CLICK_ID_FIELDS } from './integration.dto';
import { INTEGRATION_STATUSES, SYNC_JOB_STATUSES, SYNC_KINDS } from './subjects';

/* The integration answers as the API document shows them (the TypeScript shapes are in ./integration.dto.ts). */

const STRING = { type: 'string' };
const NULLABLE_STRING = { type: ['string', 'null'] };
const DATE_TIME = { type: 'string', format: 'date-time' };

function object(properties: Record<string, unknown>): JsonSchema {
  return { type: 'object', required: Object.keys(properties), properties, additionalProperties: false };
}

export const INTEGRATION_SCHEMA = object({
  idIntegration: STRING,
  provider: STRING,
  integrationName: STRING,
  status: { type: 'string', enum: [...INTEGRATION_STATUSES] },
  lastError: NULLABLE_STRING,
  expiresAt: { type: ['string', 'null'], format: 'date-time' },
  scopes: { type: 'array', items: STRING },
  createdAt: DATE_TIME,
});

export const INTEGRATION_ANSWER_SCHEMA = object({ integration: INTEGRATION_SCHEMA });
export const INTEGRATIONS_SCHEMA = object({ integrations: { type: 'array', items: INTEGRATION_SCHEMA } });
export const INTEGRATION_DELETED_SCHEMA = object({ idIntegration: STRING, revoked: { type: 'boolean' } });

export const AUTHORIZATION_START_SCHEMA = object({
  authorizationUrl: { type: 'string', format: 'uri' },
  state: STRING,
  codeChallengeMethod: { enum: ['S256', null] },
  expiresAt: DATE_TIME,
});

export const AD_ACCOUNT_SCHEMA = object({ id: STRING, name: STRING, currency: STRING, timezone: STRING, idTrafficSource: NULLABLE_STRING });
export const AD_ACCOUNTS_SCHEMA = object({ adAccounts: { type: 'array', items: AD_ACCOUNT_SCHEMA } });
export const AD_ACCOUNT_ANSWER_SCHEMA = object({ adAccount: AD_ACCOUNT_SCHEMA });

const GOAL_LINK_SCHEMA = object({ idTrafficSource: STRING, eventName: NULLABLE_STRING, clickIdField: { type: 'string', enum: [...CLICK_ID_FIELDS] } });
export const CONVERSION_GOAL_SCHEMA = object({ id: STRING, name: STRING, type: STRING, link: { oneOf: [GOAL_LINK_SCHEMA, { type: 'null' }] } });
export const CONVERSION_GOALS_SCHEMA = object({ goals: { type: 'array', items: CONVERSION_GOAL_SCHEMA } });
export const CONVERSION_GOAL_ANSWER_SCHEMA = object({ goal: CONVERSION_GOAL_SCHEMA });

export const PROVIDER_CAPABILITIES_SCHEMA = object({
  provider: STRING,
  name: STRING,
  configured: { type: 'boolean' },
  costSync: { type: 'boolean' },
  conversionUpload: { type: 'boolean' },
  pkce: { type: 'boolean' },
  refresh: { type: 'boolean' },
  revoke: { type: 'boolean' },
  needs: object({ goalEventName: { type: 'boolean' }, clickIdFields: { type: 'array', items: STRING } }),
});
export const CAPABILITIES_SCHEMA = object({ providers: { type: 'array', items: PROVIDER_CAPABILITIES_SCHEMA } });

export const SYNC_ACCEPTED_SCHEMA = object({ jobId: STRING });
const NUMBER = { type: 'integer' };
export const SYNC_JOB_SCHEMA = object({
  jobId: STRING,
  idIntegration: STRING,
  kind: { type: 'string', enum: [...SYNC_KINDS] },
  trigger: { type: 'string', enum: ['schedule', 'request', 'conversions'] },
  timeStart: DATE_TIME,
  timeEnd: DATE_TIME,
  status: { type: 'string', enum: [...SYNC_JOB_STATUSES] },
  attempts: NUMBER,
  queuedAt: DATE_TIME,
  finishedAt: { type: ['string', 'null'], format: 'date-time' },
  error: NULLABLE_STRING,
  parts: {
    type: 'array',
    items: object({ adAccountId: STRING, costJobIds: { type: 'array', items: STRING }, rows: NUMBER, rejected: NUMBER, error: NULLABLE_STRING }),
  },
});
export const SYNC_JOB_ANSWER_SCHEMA = object({ job: SYNC_JOB_SCHEMA });
