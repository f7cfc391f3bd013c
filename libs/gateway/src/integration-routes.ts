import {
  AD_ACCOUNTS_SCHEMA,
  AD_ACCOUNT_ANSWER_SCHEMA,
  AUTHORIZATION_START_SCHEMA,
  CAPABILITIES_SCHEMA,
  CONVERSION_GOALS_SCHEMA,
  CONVERSION_GOAL_ANSWER_SCHEMA,
  CompleteAuthorizationDto,
  INTEGRATIONS_SCHEMA,
  INTEGRATION_ANSWER_SCHEMA,
  INTEGRATION_DELETED_SCHEMA,
  IntegrationSubjects,
  LinkAdAccountDto,
  LinkGoalDto,
  RenameIntegrationDto,
  StartAuthorizationDto,
  SYNC_ACCEPTED_SCHEMA,
  SYNC_JOB_ANSWER_SCHEMA,
  SyncIntegrationDto,
} from '@funnel/contracts';
import type { RouteDoc } from './docs/openapi/route-doc';
import { ForwardedRoute } from './route-table';

/**
 * Ad-platform integrations under /v1/integrations, served by the reporting service: reads with
 * `assets:read`, changes with `integrations:manage`; the standard error body.
 */
export function integrationRoutes(): ForwardedRoute[] {
  const route = (method: ForwardedRoute['method'], path: string, subject: string, manage: boolean, doc: RouteDoc): ForwardedRoute => ({
    method,
    path,
    subject,
    permission: manage ? 'integrations:manage' : 'assets:read',
    reply: 'whole',
    doc: { tag: 'integrations', ...doc },
  });
  const one = '/integrations/:idIntegration';
  const account = `${one}/adaccounts/:adAccountId`;
  return [
    route('GET', '/integrations', IntegrationSubjects.list, false, { summary: "The account's ad-platform integrations", answer: INTEGRATIONS_SCHEMA }),
    route('GET', '/integrations/capabilities', IntegrationSubjects.capabilities, false, {
      summary: 'What each provider can do (cost sync, conversion upload) and needs',
      answer: CAPABILITIES_SCHEMA,
    }),
    route('POST', '/integrations/oauth/start', IntegrationSubjects.oauthStart, true, {
      summary: 'Start connecting a provider: its authorization URL, with state (10 minutes, single use) and PKCE',
      body: StartAuthorizationDto,
      answer: AUTHORIZATION_START_SCHEMA,
    }),
    route('POST', '/integrations/oauth/complete', IntegrationSubjects.oauthComplete, true, {
      summary: "Complete it with the redirect's code and state: stores the tokens, lists the ad accounts",
      body: CompleteAuthorizationDto,
      answer: INTEGRATION_ANSWER_SCHEMA,
    }),
    route('GET', one, IntegrationSubjects.get, false, { summary: 'One integration', answer: INTEGRATION_ANSWER_SCHEMA }),
    route('PUT', one, IntegrationSubjects.rename, true, { summary: 'Rename an integration', body: RenameIntegrationDto, answer: INTEGRATION_ANSWER_SCHEMA }),
    route('DELETE', one, IntegrationSubjects.delete, true, {
      summary: 'Delete an integration (its grant revoked at the provider where it can be)',
      answer: INTEGRATION_DELETED_SCHEMA,
    }),
    route('POST', `${one}/reauthorize`, IntegrationSubjects.reauthorize, true, {
      summary: 'Authorize an integration again (same flow; its links are kept)',
      answer: AUTHORIZATION_START_SCHEMA,
    }),
    route('GET', `${one}/adaccounts`, IntegrationSubjects.adAccounts, false, {
      summary: 'The ad accounts the login reaches, with their links',
      answer: AD_ACCOUNTS_SCHEMA,
    }),
    route('POST', `${one}/adaccounts/refresh`, IntegrationSubjects.adAccountsRefresh, true, {
      summary: 'List the ad accounts at the provider again',
      answer: AD_ACCOUNTS_SCHEMA,
    }),
    route('PUT', `${account}/link`, IntegrationSubjects.adAccountLink, true, {
      summary: 'Link an ad account to a traffic source (null unlinks)',
      body: LinkAdAccountDto,
      answer: AD_ACCOUNT_ANSWER_SCHEMA,
    }),
    route('GET', `${account}/goals`, IntegrationSubjects.goals, false, {
      summary: "The ad account's conversion goals at the provider, with their links",
      answer: CONVERSION_GOALS_SCHEMA,
    }),
    route('PUT', `${account}/goals/:goalId/link`, IntegrationSubjects.goalLink, true, {
      summary: "Link a conversion goal to a traffic source's conversions (null unlinks)",
      body: LinkGoalDto,
      answer: CONVERSION_GOAL_ANSWER_SCHEMA,
    }),
    route('POST', `${one}/sync`, IntegrationSubjects.sync, true, {
      summary: 'Sync now: pull the costs of a window into the linked traffic sources, or send its conversions to the linked goals (202, a job)',
      body: SyncIntegrationDto,
      answer: SYNC_ACCEPTED_SCHEMA,
      status: 202,
    }),
    route('GET', '/integrations/sync/:jobId', IntegrationSubjects.syncStatus, false, {
      summary: "A sync job's status: per ad account, what was pulled or sent, and the reporting cost jobs it queued",
      answer: SYNC_JOB_ANSWER_SCHEMA,
    }),
  ];
}
