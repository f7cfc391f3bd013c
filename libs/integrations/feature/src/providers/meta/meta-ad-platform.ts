import { createHash } from 'node:crypto';
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
import { type ProviderAnswer, callProvider, retryAfterOf } from '../../http/provider-http';
import type { ProviderSettings } from '../provider-settings';

/** Meta's hashing of user data: SHA-256 (hex) of the trimmed, lower-cased value. */
export function metaHash(value: string): string {
  return createHash('sha256').update(value.trim().toLowerCase()).digest('hex');
}

/** Meta's documented defaults (Graph API version pinned here, overridable with INTEGRATION_META_*_URL). */
export const META_DEFAULTS = {
  authUrl: 'https://www.facebook.com/v21.0/dialog/oauth',
  tokenUrl: 'https://graph.facebook.com/v21.0/oauth/access_token',
  apiUrl: 'https://graph.facebook.com/v21.0',
} as const;

/** Reading ad accounts and insights, and sending Conversions API events to datasets. */
export const META_SCOPES = ['ads_read', 'ads_management', 'business_management'] as const;

/** Graph error codes that mean the token is expired, revoked or lacks the permission (re-login fixes them). */
const AUTH_CODES = new Set([102, 190, 200, 10]);
/** Graph throttling codes (application, user, ad account). */
const RATE_CODES = new Set([4, 17, 32, 613, 80000, 80004]);

interface GraphPage<T> {
  data?: T[];
  paging?: { next?: string };
}

/**
 * Meta (Facebook Login for Business + Marketing API + Conversions API). OAuth is the standard
 * authorization code flow with PKCE; the short-lived user token is then exchanged for a long-lived
 * one (`grant_type=fb_exchange_token`, about 60 days). Meta issues no refresh token: a token near its
 * end needs the user again (a reauthorization). Ad accounts are `/me/adaccounts`; the conversion goals
 * of an ad account are its datasets (`/act_<id>/adspixels`), each linked with an event name.
 */
export class MetaAdPlatform implements AdPlatform {
  readonly provider = 'meta';
  readonly name = 'Meta';
  readonly capabilities: AdPlatformCapabilities = {
    costSync: true,
    conversionUpload: true,
    pkce: true,
    refresh: false,
    revoke: true,
    // Conversions API: up to 1,000 events per request.
    uploadBatchLimit: 1000,
    // Conversions API: events at most 7 days old.
    uploadMaxAgeDays: 7,
    needs: { goalEventName: true, clickIdFields: ['fbclid', 'external'] },
  };
  private readonly oauth: OAuthClient;

  constructor(private readonly settings: ProviderSettings) {
    this.oauth = new OAuthClient(settings, META_SCOPES, { scopeSeparator: ',' });
  }

  get configured(): boolean {
    return Boolean(this.settings.clientId && this.settings.clientSecret);
  }

  authorizationUrl(request: AuthorizationRequest): URL {
    return this.oauth.authorizationUrl(request);
  }

  /** The code for a short-lived token, then that for a long-lived one. */
  async exchangeCode(exchange: CodeExchange): Promise<AdPlatformTokens> {
    const short = await this.oauth.exchangeCode(exchange);
    const url = this.api('oauth/access_token');
    url.searchParams.set('grant_type', 'fb_exchange_token');
    url.searchParams.set('client_id', this.settings.clientId ?? '');
    url.searchParams.set('client_secret', this.settings.clientSecret ?? '');
    url.searchParams.set('fb_exchange_token', short.accessToken);
    const body = this.judge(await callProvider(url, { timeoutMs: this.settings.timeoutMs }), 'the long-lived token exchange') as {
      access_token?: unknown;
      expires_in?: unknown;
    };
    if (typeof body.access_token !== 'string') throw new AdPlatformError('refused', 'the long-lived token exchange answered no access_token');
    const expiresAt = typeof body.expires_in === 'number' ? new Date(Date.now() + body.expires_in * 1000).toISOString() : short.expiresAt;
    return { accessToken: body.access_token, refreshToken: null, expiresAt, scopes: short.scopes };
  }

  refresh(): Promise<AdPlatformTokens> {
    return Promise.reject(new AdPlatformError('auth', 'Meta tokens cannot be refreshed: reauthorize the integration'));
  }

  /** Removes the app's permissions for the user (`DELETE /me/permissions`): the token stops working. */
  async revoke(tokens: AdPlatformTokens): Promise<boolean> {
    const answer = await callProvider(this.api('me/permissions'), { method: 'DELETE', headers: this.auth(tokens), timeoutMs: this.settings.timeoutMs });
    if (answer.status >= 400) return false;
    return (answer.body as { success?: unknown } | undefined)?.success === true;
  }

  async listAdAccounts(tokens: AdPlatformTokens): Promise<AdAccount[]> {
    const url = this.api('me/adaccounts');
    url.searchParams.set('fields', 'id,name,currency,timezone_name');
    url.searchParams.set('limit', '100');
    const rows = await this.pages<{ id?: unknown; name?: unknown; currency?: unknown; timezone_name?: unknown }>(url, tokens, 'listing ad accounts');
    return rows
      .filter((row) => typeof row.id === 'string')
      .map((row) => ({ id: String(row.id), name: String(row.name ?? ''), currency: String(row.currency ?? ''), timezone: String(row.timezone_name ?? 'UTC') }));
  }

  /** The ad account's datasets (Meta pixels), each a goal linked with an event name. */
  async listConversionGoals(tokens: AdPlatformTokens, adAccountId: string): Promise<ConversionGoal[]> {
    const url = this.api(`${encodeURIComponent(adAccountId)}/adspixels`);
    url.searchParams.set('fields', 'id,name');
    url.searchParams.set('limit', '100');
    const rows = await this.pages<{ id?: unknown; name?: unknown }>(url, tokens, 'listing datasets');
    return rows.filter((row) => typeof row.id === 'string').map((row) => ({ id: String(row.id), name: String(row.name ?? ''), type: 'dataset' }));
  }

  /** Insights at campaign level, one row per campaign and day of the ad account's time zone. */
  async pullCosts(tokens: AdPlatformTokens, adAccountId: string, window: CostWindow): Promise<CampaignDayCost[]> {
    const url = this.api(`${encodeURIComponent(adAccountId)}/insights`);
    url.searchParams.set('level', 'campaign');
    url.searchParams.set('time_increment', '1');
    url.searchParams.set('fields', 'campaign_id,spend,account_currency,date_start');
    url.searchParams.set('time_range', JSON.stringify({ since: window.since, until: window.until }));
    url.searchParams.set('limit', '500');
    const rows = await this.pages<{ campaign_id?: unknown; spend?: unknown; account_currency?: unknown; date_start?: unknown }>(
      url,
      tokens,
      'pulling insights',
    );
    return rows
      .filter((row) => typeof row.campaign_id === 'string' && typeof row.date_start === 'string')
      .map((row) => ({
        campaignId: String(row.campaign_id),
        day: String(row.date_start),
        spend: Number(row.spend ?? 0),
        currency: String(row.account_currency ?? ''),
      }));
  }

  /** Conversions API: `POST /<dataset>/events`, the click id as `fbc` (`fb.1.<ms>.<fbclid>`, not hashed), deduplicated by event_name + event_id. */
  async uploadConversions(tokens: AdPlatformTokens, goal: GoalTarget, batch: readonly ConversionToUpload[]): Promise<UploadOutcome> {
    if (batch.length > this.capabilities.uploadBatchLimit)
      throw new AdPlatformError('refused', `at most ${this.capabilities.uploadBatchLimit} events per request`);
    const data = batch.map((conversion) => {
      const ms = Date.parse(conversion.occurredAt);
      // fbc is the click id with the time it was clicked, not hashed; client IP (and user agent) are sent unhashed; other user data SHA-256 of the normalised value.
      const user_data: Record<string, unknown> = { fbc: `fb.1.${Date.parse(conversion.clickedAt)}.${conversion.clickId}` };
      if (conversion.clientIp) user_data.client_ip_address = conversion.clientIp;
      if (conversion.externalId) user_data.external_id = [metaHash(conversion.externalId)];
      return {
        event_name: goal.eventName ?? 'Purchase',
        event_time: Math.floor(ms / 1000),
        event_id: conversion.eventId,
        action_source: 'website',
        user_data,
        ...(conversion.value !== null ? { custom_data: { value: conversion.value, currency: conversion.currency ?? undefined } } : {}),
      };
    });
    const answer = await callProvider(this.api(`${encodeURIComponent(goal.goalId)}/events`), {
      method: 'POST',
      headers: this.auth(tokens),
      body: JSON.stringify({ data }),
      timeoutMs: this.settings.timeoutMs,
    });
    const body = this.judge(answer, 'sending conversions') as { events_received?: unknown };
    return { accepted: typeof body.events_received === 'number' ? body.events_received : batch.length, rejected: [], answer: body };
  }

  private api(path: string): URL {
    const base = this.settings.apiUrl.endsWith('/') ? this.settings.apiUrl : `${this.settings.apiUrl}/`;
    return new URL(path, base);
  }

  private auth(tokens: AdPlatformTokens): Record<string, string> {
    return { authorization: `Bearer ${tokens.accessToken}` };
  }

  /** Every page of a Graph list (`paging.next`, followed on the API's own origin only). */
  private async pages<T>(first: URL, tokens: AdPlatformTokens, what: string): Promise<T[]> {
    const rows: T[] = [];
    const origin = new URL(this.settings.apiUrl).origin;
    let url: URL | undefined = first;
    for (let page = 0; url && page < 50; page++) {
      const body = this.judge(await callProvider(url, { headers: this.auth(tokens), timeoutMs: this.settings.timeoutMs }), what) as GraphPage<T>;
      rows.push(...(body.data ?? []));
      const next: string | undefined = body.paging?.next;
      url = next && new URL(next).origin === origin ? new URL(next) : undefined;
    }
    return rows;
  }

  /** The body of a successful answer; a Graph error as the port's error (its message, never the token). */
  private judge(answer: ProviderAnswer, what: string): unknown {
    if (answer.status >= 200 && answer.status < 300 && answer.body !== undefined) return answer.body;
    const error = (answer.body as { error?: { message?: unknown; code?: unknown } } | undefined)?.error;
    const code = typeof error?.code === 'number' ? error.code : undefined;
    const message = `${what}: Meta answered ${answer.status}${code !== undefined ? ` (code ${code})` : ''}${typeof error?.message === 'string' ? `: ${error.message.slice(0, 300)}` : ''}`;
    if (answer.status === 401 || (code !== undefined && AUTH_CODES.has(code))) throw new AdPlatformError('auth', message);
    if (answer.status === 429 || (code !== undefined && RATE_CODES.has(code))) throw new AdPlatformError('rate_limited', message, retryAfterOf(answer.headers));
    if (answer.status >= 500) throw new AdPlatformError('unavailable', message, retryAfterOf(answer.headers));
    throw new AdPlatformError('refused', message);
  }
}
