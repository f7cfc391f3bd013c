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
  addDays,
  knownTimezone,
} from '@funnel/integrations-domain';
import { type ProviderAnswer, callProvider, retryAfterOf } from '../../http/provider-http';
import type { ProviderSettings } from '../provider-settings';

/** TikTok's hashing of user data (Events API `external_id`): SHA-256 (hex) of the trimmed value. */
export function tiktokHash(value: string): string {
  return createHash('sha256').update(value.trim()).digest('hex');
}

/** TikTok API for Business's documented addresses (v1.3, overridable with INTEGRATION_TIKTOK_*_URL). */
export const TIKTOK_DEFAULTS = {
  authUrl: 'https://business-api.tiktok.com/portal/auth',
  tokenUrl: 'https://business-api.tiktok.com/open_api/v1.3/oauth2/access_token/',
  apiUrl: 'https://business-api.tiktok.com/open_api/v1.3',
} as const;

/** Return codes meaning the access token is expired, missing, wrong or revoked (a reauthorization fixes them). */
const AUTH_CODES = new Set([40102, 40104, 40105]);
/** Too many requests (the app's or advertiser's QPS, QPM or QPD limit). */
const RATE_CODES = new Set([40100]);
/** 5xxxx: TikTok's own errors (a retry may succeed). */
const isServerCode = (code: number) => code >= 50000 && code < 60000;

/** `advertiser_ids` of one advertiser/info call at most. */
const ADVERTISER_INFO_BATCH = 100;
/** pixel/list `page_size` at most. */
const PIXEL_PAGE_SIZE = 20;
/** report/integrated/get `page_size` at most. */
const REPORT_PAGE_SIZE = 1000;
/** report/integrated/get with the `stat_time_day` dimension: at most 30 days per request. */
const REPORT_MAX_DAYS = 30;
/** Pages followed at most per list (a runaway `total_page` cannot loop forever). */
const MAX_PAGES = 200;

interface TikTokPage {
  page_info?: { page?: unknown; total_page?: unknown };
}

interface ReportRow {
  dimensions?: { campaign_id?: unknown; stat_time_day?: unknown };
  metrics?: { spend?: unknown };
}

/**
 * TikTok (API for Business v1.3: Marketing API + Events API 2.0). Its authorization is not
 * standard OAuth 2: the user is sent to the advertiser authorization page (`app_id`, `state`,
 * `redirect_uri`; no scope, no PKCE), which redirects back with `auth_code` and `state`; the
 * auth code is exchanged with a JSON POST of `{ app_id, secret, auth_code }`. The long-term token
 * does not expire and comes without a refresh token; it is revoked with `oauth2/revoke_token/`.
 * Every call sends it in the `Access-Token` header, and success is `code: 0` in the answer's body
 * (TikTok answers most errors with HTTP 200). Ad accounts are the advertisers that authorized the
 * app; the conversion goals of an advertiser are its pixels, each linked with an event name.
 */
export class TikTokAdPlatform implements AdPlatform {
  readonly provider = 'tiktok';
  readonly name = 'TikTok';
  readonly capabilities: AdPlatformCapabilities = {
    costSync: true,
    conversionUpload: true,
    pkce: false,
    refresh: false,
    revoke: true,
    // Events API 2.0 (event/track): up to 1,000 events in `data`.
    uploadBatchLimit: 1000,
    // Events API: web events at most 7 days old.
    uploadMaxAgeDays: 7,
    needs: { goalEventName: true, clickIdFields: ['ttclid', 'external'] },
  };

  constructor(private readonly settings: ProviderSettings) {}

  get configured(): boolean {
    return Boolean(this.settings.clientId && this.settings.clientSecret);
  }

  /** The advertiser authorization page: `app_id`, `state`, `redirect_uri` (the permissions are the app's, chosen in TikTok's developer portal). */
  authorizationUrl(request: AuthorizationRequest): URL {
    const url = new URL(this.settings.authUrl);
    url.searchParams.set('app_id', this.app().appId);
    url.searchParams.set('state', request.state);
    url.searchParams.set('redirect_uri', request.redirectUri);
    return url;
  }

  /** `POST oauth2/access_token/` `{ app_id, secret, auth_code }` → `data: { access_token, advertiser_ids, scope }`; the token never expires. */
  async exchangeCode(exchange: CodeExchange): Promise<AdPlatformTokens> {
    const { appId, secret } = this.app();
    const answer = await callProvider(new URL(this.settings.tokenUrl), {
      method: 'POST',
      body: JSON.stringify({ app_id: appId, secret, auth_code: exchange.code }),
      timeoutMs: this.settings.timeoutMs,
    });
    const data = this.judge(answer, 'the auth code exchange') as { access_token?: unknown; scope?: unknown };
    if (typeof data.access_token !== 'string' || !data.access_token) throw new AdPlatformError('refused', 'the auth code exchange answered no access_token');
    // `scope`: the permission ids the advertiser granted (numbers).
    const scopes = Array.isArray(data.scope) ? data.scope.map(String) : [];
    return { accessToken: data.access_token, refreshToken: null, expiresAt: null, scopes };
  }

  refresh(): Promise<AdPlatformTokens> {
    return Promise.reject(new AdPlatformError('auth', 'TikTok tokens cannot be refreshed: reauthorize the integration'));
  }

  /** `POST oauth2/revoke_token/` `{ app_id, secret, access_token }`: the token stops working. */
  async revoke(tokens: AdPlatformTokens): Promise<boolean> {
    const { appId, secret } = this.app();
    const answer = await callProvider(this.api('oauth2/revoke_token/'), {
      method: 'POST',
      body: JSON.stringify({ app_id: appId, secret, access_token: tokens.accessToken }),
      timeoutMs: this.settings.timeoutMs,
    });
    return answer.status >= 200 && answer.status < 300 && (answer.body as { code?: unknown } | undefined)?.code === 0;
  }

  /**
   * The advertisers that authorized the app (`GET oauth2/advertiser/get/` with `app_id` and
   * `secret`), then their currency and time zone (`GET advertiser/info/`, 100 at a time).
   */
  async listAdAccounts(tokens: AdPlatformTokens): Promise<AdAccount[]> {
    const { appId, secret } = this.app();
    const url = this.api('oauth2/advertiser/get/');
    url.searchParams.set('app_id', appId);
    url.searchParams.set('secret', secret);
    const data = (await this.get(url, tokens, 'listing advertisers')) as { list?: { advertiser_id?: unknown; advertiser_name?: unknown }[] };
    const advertisers = (data.list ?? []).filter((row) => typeof row.advertiser_id === 'string' || typeof row.advertiser_id === 'number');
    const ids = advertisers.map((row) => String(row.advertiser_id));
    const info = new Map<string, AdvertiserInfo>();
    for (let i = 0; i < ids.length; i += ADVERTISER_INFO_BATCH) {
      for (const row of await this.advertiserInfo(tokens, ids.slice(i, i + ADVERTISER_INFO_BATCH))) info.set(row.id, row);
    }
    return advertisers.map((row) => {
      const id = String(row.advertiser_id);
      const known = info.get(id);
      return { id, name: known?.name || String(row.advertiser_name ?? ''), currency: known?.currency ?? '', timezone: known?.timezone ?? 'UTC' };
    });
  }

  /** The advertiser's pixels (`GET pixel/list/`, paged): the goal id is the pixel code, the Events API's `event_source_id`. */
  async listConversionGoals(tokens: AdPlatformTokens, adAccountId: string): Promise<ConversionGoal[]> {
    const goals: ConversionGoal[] = [];
    await this.pages(
      (page) => {
        const url = this.api('pixel/list/');
        url.searchParams.set('advertiser_id', adAccountId);
        url.searchParams.set('page', String(page));
        url.searchParams.set('page_size', String(PIXEL_PAGE_SIZE));
        return url;
      },
      tokens,
      'listing pixels',
      (data) => {
        for (const pixel of (data as { pixels?: { pixel_code?: unknown; pixel_name?: unknown }[] }).pixels ?? []) {
          if (typeof pixel.pixel_code === 'string' && pixel.pixel_code)
            goals.push({ id: pixel.pixel_code, name: String(pixel.pixel_name ?? ''), type: 'pixel' });
        }
      },
    );
    return goals;
  }

  /**
   * Spend per campaign and day of the advertiser's time zone: `GET report/integrated/get/`
   * (`report_type` BASIC, `data_level` AUCTION_CAMPAIGN, dimensions `campaign_id` +
   * `stat_time_day`, metric `spend`), paged, in windows of at most 30 days (the daily report's
   * bound); the currency is the advertiser's (`advertiser/info/`).
   */
  async pullCosts(tokens: AdPlatformTokens, adAccountId: string, window: CostWindow): Promise<CampaignDayCost[]> {
    const [advertiser] = await this.advertiserInfo(tokens, [adAccountId]);
    const currency = advertiser?.currency ?? '';
    const costs: CampaignDayCost[] = [];
    for (let since = window.since; since <= window.until; since = addDays(since, REPORT_MAX_DAYS)) {
      const last = addDays(since, REPORT_MAX_DAYS - 1);
      const until = last < window.until ? last : window.until;
      await this.pages(
        (page) => {
          const url = this.api('report/integrated/get/');
          url.searchParams.set('advertiser_id', adAccountId);
          url.searchParams.set('report_type', 'BASIC');
          url.searchParams.set('data_level', 'AUCTION_CAMPAIGN');
          url.searchParams.set('dimensions', JSON.stringify(['campaign_id', 'stat_time_day']));
          url.searchParams.set('metrics', JSON.stringify(['spend']));
          url.searchParams.set('start_date', since);
          url.searchParams.set('end_date', until);
          url.searchParams.set('page', String(page));
          url.searchParams.set('page_size', String(REPORT_PAGE_SIZE));
          return url;
        },
        tokens,
        'pulling the campaign report',
        (data) => {
          for (const row of (data as { list?: ReportRow[] }).list ?? []) {
            const campaignId = row.dimensions?.campaign_id;
            const day = row.dimensions?.stat_time_day;
            // stat_time_day is `YYYY-MM-DD 00:00:00`, a day of the advertiser's time zone.
            if ((typeof campaignId !== 'string' && typeof campaignId !== 'number') || typeof day !== 'string') continue;
            costs.push({ campaignId: String(campaignId), day: day.slice(0, 10), spend: Number(row.metrics?.spend ?? 0), currency });
          }
        },
      );
    }
    return costs;
  }

  /**
   * Events API 2.0: `POST event/track/` `{ event_source: 'web', event_source_id: <pixel code>,
   * data: [...] }`, each event with its event id (TikTok deduplicates by it), the click id as
   * `user.ttclid` and the IP unhashed, our visitor id as `user.external_id` SHA-256 hashed.
   */
  async uploadConversions(tokens: AdPlatformTokens, goal: GoalTarget, batch: readonly ConversionToUpload[]): Promise<UploadOutcome> {
    if (batch.length > this.capabilities.uploadBatchLimit)
      throw new AdPlatformError('refused', `at most ${this.capabilities.uploadBatchLimit} events per request`);
    const data = batch.map((conversion) => {
      const user: Record<string, string> = { ttclid: conversion.clickId };
      if (conversion.clientIp) user.ip = conversion.clientIp;
      if (conversion.externalId) user.external_id = tiktokHash(conversion.externalId);
      const properties: Record<string, unknown> = {};
      if (conversion.value !== null) properties.value = conversion.value;
      if (conversion.currency) properties.currency = conversion.currency;
      return {
        event: goal.eventName ?? 'CompletePayment',
        event_time: Math.floor(Date.parse(conversion.occurredAt) / 1000),
        event_id: conversion.eventId,
        user,
        ...(Object.keys(properties).length ? { properties } : {}),
      };
    });
    const answer = await callProvider(this.api('event/track/'), {
      method: 'POST',
      headers: this.auth(tokens),
      body: JSON.stringify({ event_source: 'web', event_source_id: goal.goalId, data }),
      timeoutMs: this.settings.timeoutMs,
    });
    this.judge(answer, 'sending events');
    const { code, message, request_id } = answer.body as { code: number; message?: unknown; request_id?: unknown };
    return { accepted: batch.length, rejected: [], answer: { code, message, request_id } };
  }

  /** `GET advertiser/info/` of some advertisers: name, currency, and the IANA zone of their days. */
  private async advertiserInfo(tokens: AdPlatformTokens, ids: readonly string[]): Promise<AdvertiserInfo[]> {
    if (!ids.length) return [];
    const url = this.api('advertiser/info/');
    url.searchParams.set('advertiser_ids', JSON.stringify(ids));
    url.searchParams.set('fields', JSON.stringify(['advertiser_id', 'name', 'currency', 'timezone', 'display_timezone']));
    const data = (await this.get(url, tokens, 'reading advertisers')) as {
      list?: { advertiser_id?: unknown; name?: unknown; currency?: unknown; timezone?: unknown; display_timezone?: unknown }[];
    };
    return (data.list ?? [])
      .filter((row) => typeof row.advertiser_id === 'string' || typeof row.advertiser_id === 'number')
      .map((row) => ({
        id: String(row.advertiser_id),
        name: String(row.name ?? ''),
        currency: String(row.currency ?? ''),
        timezone: zoneOf(row.display_timezone, row.timezone),
      }));
  }

  private app(): { appId: string; secret: string } {
    const { clientId, clientSecret } = this.settings;
    if (!clientId || !clientSecret) throw new AdPlatformError('refused', 'the provider has no client id and secret configured');
    return { appId: clientId, secret: clientSecret };
  }

  private api(path: string): URL {
    const base = this.settings.apiUrl.endsWith('/') ? this.settings.apiUrl : `${this.settings.apiUrl}/`;
    return new URL(path, base);
  }

  private auth(tokens: AdPlatformTokens): Record<string, string> {
    return { 'access-token': tokens.accessToken };
  }

  private async get(url: URL, tokens: AdPlatformTokens, what: string): Promise<unknown> {
    return this.judge(await callProvider(url, { headers: this.auth(tokens), timeoutMs: this.settings.timeoutMs }), what);
  }

  /** Every page of a paged list (`page` from 1 up to `page_info.total_page`). */
  private async pages(urlOf: (page: number) => URL, tokens: AdPlatformTokens, what: string, take: (data: unknown) => void): Promise<void> {
    for (let page = 1; page <= MAX_PAGES; page++) {
      const data = (await this.get(urlOf(page), tokens, what)) as TikTokPage;
      take(data);
      const total = Number(data.page_info?.total_page ?? 1);
      if (!Number.isFinite(total) || page >= total) return;
    }
  }

  /**
   * The `data` of a successful answer (`code: 0`); else the port's error by TikTok's return code
   * (its message, never the token): an invalid or revoked token is `auth`, 40100 `rate_limited`,
   * 5xxxx and HTTP 5xx `unavailable`, any other code (a wrong parameter, an unknown pixel, a used
   * auth code) `refused`.
   */
  private judge(answer: ProviderAnswer, what: string): unknown {
    const body = answer.body as { code?: unknown; message?: unknown; data?: unknown } | undefined;
    const code = typeof body?.code === 'number' ? body.code : undefined;
    if (answer.status >= 200 && answer.status < 300 && code === 0) return body?.data ?? {};
    const message = `${what}: TikTok answered ${answer.status}${code !== undefined ? ` (code ${code})` : ''}${typeof body?.message === 'string' ? `: ${body.message.slice(0, 300)}` : ''}`;
    if (answer.status === 401 || (code !== undefined && AUTH_CODES.has(code))) throw new AdPlatformError('auth', message);
    if (answer.status === 429 || (code !== undefined && RATE_CODES.has(code))) throw new AdPlatformError('rate_limited', message, retryAfterOf(answer.headers));
    if (answer.status >= 500 || (code !== undefined && isServerCode(code))) throw new AdPlatformError('unavailable', message, retryAfterOf(answer.headers));
    // A 2xx without TikTok's envelope is not TikTok answering (a proxy's page): try again later.
    if (code === undefined && answer.status < 300) throw new AdPlatformError('unavailable', `${what}: TikTok answered ${answer.status} without a return code`);
    throw new AdPlatformError('refused', message);
  }
}

interface AdvertiserInfo {
  id: string;
  name: string;
  currency: string;
  timezone: string;
}

/** The advertiser's zone: its `display_timezone` (an IANA name) when Intl knows it, else its `timezone` (`Etc/GMT-8` style), else UTC. */
function zoneOf(display: unknown, timezone: unknown): string {
  for (const zone of [display, timezone]) if (typeof zone === 'string' && zone && knownTimezone(zone) === zone) return zone;
  return 'UTC';
}
