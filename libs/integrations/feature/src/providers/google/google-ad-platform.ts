import {
  type AdAccount,
  type AdPlatform,
  type AdPlatformCapabilities,
  AdPlatformError,
  type AdPlatformTokens,
  type AuthorizationRequest,
  type CampaignDayCost,
  type CodeExchange,
  type ConversionGoal,
  type ConversionToUpload,
  type CostWindow,
  type GoalTarget,
  type UploadOutcome,
} from '@funnel/integrations-domain';
import { OAuthClient } from '../../oauth/oauth-client';
import { type ProviderAnswer, callProvider } from '../../http/provider-http';
import type { ProviderExtraSetting, ProviderSettings } from '../provider-settings';
import { googleFailure, googleFieldViolations } from './google-api-error';

/**
 * Google's documented defaults: Google's OAuth 2 endpoints and the Google Ads API, its version
 * pinned here (v26, sunset November 2027; overridable with INTEGRATION_GOOGLE_API_URL).
 */
export const GOOGLE_DEFAULTS = {
  authUrl: 'https://accounts.google.com/o/oauth2/v2/auth',
  tokenUrl: 'https://oauth2.googleapis.com/token',
  apiUrl: 'https://googleads.googleapis.com/v26',
} as const;

/** Google's further settings: the Data Manager API (conversion upload) and the token revocation endpoint. */
export const GOOGLE_EXTRAS: readonly ProviderExtraSetting[] = [
  { key: 'dataManagerUrl', env: 'DATA_MANAGER_URL', kind: 'url', default: 'https://datamanager.googleapis.com' },
  { key: 'revokeUrl', env: 'REVOKE_URL', kind: 'url', default: 'https://oauth2.googleapis.com/revoke' },
];

/** Reading ad accounts, conversion actions and spend (Google Ads API), and sending conversions (Data Manager API). */
export const GOOGLE_SCOPES = ['https://www.googleapis.com/auth/adwords', 'https://www.googleapis.com/auth/datamanager'] as const;

/** Data Manager API `events:ingest`: at most 2,000 events per request. */
const INGEST_BATCH_LIMIT = 2000;
/** A fast-failed batch is sent again without the events Google named, at most this many times. */
const INGEST_RESENDS = 3;
/** Pages of one GAQL search followed at most (10,000 rows each). */
const MAX_PAGES = 50;

const CUSTOMER_ID = /^\d{1,20}$/;
const DAY = /^\d{4}-\d{2}-\d{2}$/;

/**
 * An ad account of this adapter: a Google Ads customer, reached directly (`1234567890`) or through
 * the manager account the login reaches (`1234567890@9876543210`, the manager after the `@`: its id
 * is the `login-customer-id` of the Google Ads API and the `loginAccount` of the Data Manager API).
 */
interface CustomerRef {
  customerId: string;
  managerId: string | null;
}

export function customerRefOf(adAccountId: string): CustomerRef {
  const [customerId, managerId, ...rest] = adAccountId.split('@');
  if (!CUSTOMER_ID.test(customerId ?? '') || rest.length || (managerId !== undefined && !CUSTOMER_ID.test(managerId))) {
    throw new AdPlatformError('refused', `${adAccountId.slice(0, 64)} is not a Google Ads customer id`);
  }
  return { customerId, managerId: managerId ?? null };
}

const adAccountIdOf = (ref: CustomerRef) => (ref.managerId ? `${ref.customerId}@${ref.managerId}` : ref.customerId);

interface GaqlCustomer {
  id?: unknown;
  descriptiveName?: unknown;
  currencyCode?: unknown;
  timeZone?: unknown;
  manager?: unknown;
}

/**
 * Google Ads (Google's OAuth 2 with PKCE, the Google Ads API for ad accounts, conversion actions
 * and spend, the Data Manager API for conversions). The authorization asks for offline access with
 * consent, so Google issues a refresh token (access tokens last about an hour; refresh tokens until
 * revoked, six months unused, or seven days for apps in testing). Developer tokens were sunset on
 * 2026-09-09: API access belongs to the Cloud project of the OAuth client, and none is sent.
 */
export class GoogleAdPlatform implements AdPlatform {
  readonly provider = 'google';
  readonly name = 'Google Ads';
  readonly capabilities: AdPlatformCapabilities = {
    costSync: true,
    conversionUpload: true,
    pkce: true,
    refresh: true,
    revoke: true,
    uploadBatchLimit: INGEST_BATCH_LIMIT,
    // Offline click conversions are taken up to 90 days after the click (the longest click-through window).
    uploadMaxAgeDays: 90,
    needs: { goalEventName: false, clickIdFields: ['gclid', 'external'] },
  };
  private readonly oauth: OAuthClient;

  constructor(private readonly settings: ProviderSettings) {
    this.oauth = new OAuthClient(settings, GOOGLE_SCOPES);
  }

  get configured(): boolean {
    return Boolean(this.settings.clientId && this.settings.clientSecret);
  }

  /** Offline access with the consent screen: Google then issues a refresh token, also on a reauthorization. */
  authorizationUrl(request: AuthorizationRequest): URL {
    return this.oauth.authorizationUrl(request, { access_type: 'offline', prompt: 'consent', include_granted_scopes: 'true' });
  }

  exchangeCode(exchange: CodeExchange): Promise<AdPlatformTokens> {
    return this.oauth.exchangeCode(exchange);
  }

  /** `grant_type=refresh_token`; Google answers no new refresh token, so the one held is kept. */
  refresh(tokens: AdPlatformTokens): Promise<AdPlatformTokens> {
    if (!tokens.refreshToken) return Promise.reject(new AdPlatformError('auth', 'no refresh token: reauthorize the integration'));
    return this.oauth.refresh(tokens.refreshToken);
  }

  /** `POST <revokeUrl>` with the refresh token (form-encoded): the whole grant ends, its access tokens too. */
  async revoke(tokens: AdPlatformTokens): Promise<boolean> {
    const answer = await callProvider(new URL(this.extra('revokeUrl')), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: tokens.refreshToken ?? tokens.accessToken }).toString(),
      timeoutMs: this.settings.timeoutMs,
    });
    return answer.status === 200;
  }

  /**
   * `GET customers:listAccessibleCustomers`, then per customer a GAQL search of `customer`; a
   * manager account stands for the client accounts under it (`customer_client`, queried with the
   * manager as `login-customer-id`), since a manager account has no spend of its own.
   */
  async listAdAccounts(tokens: AdPlatformTokens): Promise<AdAccount[]> {
    const listed = this.judge(
      await callProvider(this.api('customers:listAccessibleCustomers'), { headers: this.headers(tokens, null), timeoutMs: this.settings.timeoutMs }),
      'listing accessible customers',
    ) as { resourceNames?: unknown };
    const names = Array.isArray(listed.resourceNames) ? listed.resourceNames : [];
    const ids = names.map((name) => /^customers\/(\d+)$/.exec(String(name))?.[1]).filter((id): id is string => id !== undefined);
    const accounts = new Map<string, AdAccount>();
    const viaManager: AdAccount[] = [];
    for (const id of ids) {
      // A cancelled or suspended customer is still accessible but answers no query (CUSTOMER_NOT_ENABLED): it is left out.
      const [row] = await this.search<{ customer?: GaqlCustomer }>(
        tokens,
        { customerId: id, managerId: null },
        'SELECT customer.id, customer.descriptive_name, customer.currency_code, customer.time_zone, customer.manager FROM customer LIMIT 1',
        'reading a customer',
      ).catch((error: unknown) => {
        if (error instanceof AdPlatformError && error.kind === 'refused') return [];
        throw error;
      });
      const customer = row?.customer;
      if (!customer) continue;
      if (customer.manager !== true) {
        accounts.set(id, this.adAccountOf({ customerId: id, managerId: null }, customer));
        continue;
      }
      const clients = await this.search<{ customerClient?: GaqlCustomer }>(
        tokens,
        { customerId: id, managerId: id },
        'SELECT customer_client.id, customer_client.descriptive_name, customer_client.currency_code, customer_client.time_zone, customer_client.manager ' +
          "FROM customer_client WHERE customer_client.manager = FALSE AND customer_client.status = 'ENABLED'",
        'listing a manager account’s clients',
      );
      for (const client of clients) {
        const clientId = String(client.customerClient?.id ?? '');
        if (CUSTOMER_ID.test(clientId)) viaManager.push(this.adAccountOf({ customerId: clientId, managerId: id }, client.customerClient!));
      }
    }
    // A client reached directly and through managers is listed once: as reached directly, else through the first manager.
    for (const account of viaManager) {
      const { customerId } = customerRefOf(account.id);
      if (!accounts.has(customerId)) accounts.set(customerId, account);
    }
    return [...accounts.values()];
  }

  /** The customer's enabled conversion actions that take uploaded clicks (GAQL `conversion_action`, type UPLOAD_CLICKS). */
  async listConversionGoals(tokens: AdPlatformTokens, adAccountId: string): Promise<ConversionGoal[]> {
    const rows = await this.search<{ conversionAction?: { id?: unknown; name?: unknown } }>(
      tokens,
      customerRefOf(adAccountId),
      'SELECT conversion_action.id, conversion_action.name, conversion_action.type, conversion_action.status FROM conversion_action ' +
        "WHERE conversion_action.type = 'UPLOAD_CLICKS' AND conversion_action.status = 'ENABLED'",
      'listing conversion actions',
    );
    return rows
      .filter((row) => row.conversionAction?.id !== undefined)
      .map((row) => ({ id: String(row.conversionAction!.id), name: String(row.conversionAction!.name ?? ''), type: 'conversion_action' }));
  }

  /**
   * GAQL over `campaign`: `metrics.cost_micros` per `campaign.id` and `segments.date` (days of the
   * customer's time zone) for the window, every page; micros are millionths of the account currency.
   */
  async pullCosts(tokens: AdPlatformTokens, adAccountId: string, window: CostWindow): Promise<CampaignDayCost[]> {
    if (!DAY.test(window.since) || !DAY.test(window.until)) throw new AdPlatformError('refused', 'the window days are not YYYY-MM-DD');
    const rows = await this.search<{ campaign?: { id?: unknown }; segments?: { date?: unknown }; metrics?: { costMicros?: unknown }; customer?: GaqlCustomer }>(
      tokens,
      customerRefOf(adAccountId),
      'SELECT campaign.id, segments.date, metrics.cost_micros, customer.currency_code FROM campaign ' +
        `WHERE segments.date BETWEEN '${window.since}' AND '${window.until}' AND metrics.cost_micros > 0`,
      'pulling campaign costs',
    );
    return rows
      .filter((row) => row.campaign?.id !== undefined && typeof row.segments?.date === 'string')
      .map((row) => ({
        campaignId: String(row.campaign!.id),
        day: String(row.segments!.date),
        spend: Number(row.metrics?.costMicros ?? 0) / 1_000_000,
        currency: String(row.customer?.currencyCode ?? ''),
      }));
  }

  /**
   * Data Manager API `POST /v1/events:ingest`: the customer as operating account (its manager as
   * login account), the conversion action as product destination, one event per conversion with the
   * gclid as ad identifier and our event id as transaction id (Google deduplicates by it). No user
   * data is sent (so no hashing nor `encoding`): the gclid is the match key. The API fails a request
   * fast, processing none of it, when an event is invalid; the events it names are rejected and the
   * rest is sent again.
   */
  async uploadConversions(tokens: AdPlatformTokens, goal: GoalTarget, batch: readonly ConversionToUpload[]): Promise<UploadOutcome> {
    if (batch.length > INGEST_BATCH_LIMIT) throw new AdPlatformError('refused', `at most ${INGEST_BATCH_LIMIT} events per request`);
    if (!CUSTOMER_ID.test(goal.goalId)) throw new AdPlatformError('refused', `${goal.goalId.slice(0, 64)} is not a conversion action id`);
    const ref = customerRefOf(goal.adAccountId);
    const destination = {
      operatingAccount: { accountType: 'GOOGLE_ADS', accountId: ref.customerId },
      ...(ref.managerId ? { loginAccount: { accountType: 'GOOGLE_ADS', accountId: ref.managerId } } : {}),
      productDestinationId: goal.goalId,
    };
    const rejected: UploadOutcome['rejected'] = [];
    const requests: unknown[] = [];
    let pending: ConversionToUpload[] = [];
    for (const conversion of batch) {
      if (Number.isNaN(Date.parse(conversion.occurredAt)) || !conversion.clickId)
        rejected.push({ eventId: conversion.eventId, reason: 'no click id or conversion time' });
      else pending.push(conversion);
    }
    for (let attempt = 0; pending.length > 0; attempt++) {
      const answer = await callProvider(this.dataManager('v1/events:ingest'), {
        method: 'POST',
        headers: this.headers(tokens, null),
        body: JSON.stringify({ destinations: [destination], events: pending.map((conversion) => this.eventOf(conversion)) }),
        timeoutMs: this.settings.timeoutMs,
      });
      if (answer.status >= 200 && answer.status < 300) {
        requests.push({ requestId: (answer.body as { requestId?: unknown } | undefined)?.requestId ?? null, events: pending.length });
        return { accepted: pending.length, rejected, answer: { requests, rejected } };
      }
      const named = this.namedEvents(answer, pending.length);
      if (answer.status !== 400 || named.size === 0 || attempt >= INGEST_RESENDS) throw googleFailure(answer, 'sending conversions');
      for (const [index, reason] of named) rejected.push({ eventId: pending[index].eventId, reason });
      requests.push({ failed: answer.status, rejectedEvents: named.size });
      pending = pending.filter((_, index) => !named.has(index));
    }
    return { accepted: 0, rejected, answer: { requests, rejected } };
  }

  /** A Data Manager Event: https://developers.google.com/data-manager/api/reference/rest/v1/events/ingest#Event. */
  private eventOf(conversion: ConversionToUpload): Record<string, unknown> {
    return {
      transactionId: conversion.eventId,
      eventTimestamp: new Date(Date.parse(conversion.occurredAt)).toISOString(),
      eventSource: 'WEB',
      adIdentifiers: { gclid: conversion.clickId },
      ...(conversion.value !== null ? { conversionValue: conversion.value } : {}),
      ...(conversion.currency ? { currency: conversion.currency } : {}),
    };
  }

  /** The events a fast-failed request's BadRequest names (`events[3]...`), by index, with Google's description. */
  private namedEvents(answer: ProviderAnswer, count: number): Map<number, string> {
    const named = new Map<number, string>();
    for (const violation of googleFieldViolations(answer.body)) {
      const index = /(?:^|\.)events\[(\d+)\]/.exec(violation.field)?.[1];
      if (index === undefined || Number(index) >= count) continue;
      const reason = `${violation.field}: ${violation.description}`.slice(0, 300);
      named.set(Number(index), named.has(Number(index)) ? `${named.get(Number(index))}; ${reason}`.slice(0, 300) : reason);
    }
    return named;
  }

  private adAccountOf(ref: CustomerRef, customer: GaqlCustomer): AdAccount {
    return {
      id: adAccountIdOf(ref),
      name: String(customer.descriptiveName ?? ''),
      currency: String(customer.currencyCode ?? ''),
      timezone: String(customer.timeZone ?? 'UTC'),
    };
  }

  /**
   * Every page of a GAQL query: `POST customers/<id>/googleAds:search` `{ query, pageToken }`, up to
   * 10,000 rows a page, `nextPageToken` until the last.
   */
  private async search<T>(tokens: AdPlatformTokens, ref: CustomerRef, query: string, what: string): Promise<T[]> {
    const rows: T[] = [];
    let pageToken: string | undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      const body = this.judge(
        await callProvider(this.api(`customers/${ref.customerId}/googleAds:search`), {
          method: 'POST',
          headers: this.headers(tokens, ref.managerId),
          body: JSON.stringify(pageToken ? { query, pageToken } : { query }),
          timeoutMs: this.settings.timeoutMs,
        }),
        what,
      ) as { results?: T[]; nextPageToken?: unknown };
      rows.push(...(body.results ?? []));
      pageToken = typeof body.nextPageToken === 'string' && body.nextPageToken ? body.nextPageToken : undefined;
      if (!pageToken) break;
    }
    return rows;
  }

  private headers(tokens: AdPlatformTokens, loginCustomerId: string | null): Record<string, string> {
    return { authorization: `Bearer ${tokens.accessToken}`, ...(loginCustomerId ? { 'login-customer-id': loginCustomerId } : {}) };
  }

  private api(path: string): URL {
    return joined(this.settings.apiUrl, path);
  }

  private dataManager(path: string): URL {
    return joined(this.extra('dataManagerUrl'), path);
  }

  private extra(key: string): string {
    const value = this.settings.extra[key] ?? GOOGLE_EXTRAS.find((extra) => extra.key === key)?.default;
    if (!value) throw new AdPlatformError('refused', `the Google setting ${key} is not configured`);
    return value;
  }

  /** The body of a successful answer; else Google's error as the port's. */
  private judge(answer: ProviderAnswer, what: string): unknown {
    if (answer.status >= 200 && answer.status < 300 && answer.body !== undefined) return answer.body;
    throw googleFailure(answer, what);
  }
}

/** `path` under `base` (`./` first: `customers:listAccessibleCustomers` would otherwise read as a URL of scheme `customers:`). */
function joined(base: string, path: string): URL {
  return new URL(`./${path}`, base.endsWith('/') ? base : `${base}/`);
}
