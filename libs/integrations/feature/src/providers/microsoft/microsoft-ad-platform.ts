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
import { OutboundFailure, OutboundHttp, OutboundRefusedError } from '@funnel/platform';
import { OAuthClient } from '../../oauth/oauth-client';
import { type ProviderAnswer, callProvider, retryAfterOf } from '../../http/provider-http';
import type { ProviderExtraSetting, ProviderSettings } from '../provider-settings';
import { campaignDayCostsOf, reportCsvOf } from './microsoft-report';
import { ianaZoneOf } from './microsoft-time-zones';

/** Microsoft identity platform (v2.0, multi-tenant) and the Campaign Management REST API (v13). */
export const MICROSOFT_DEFAULTS = {
  authUrl: 'https://login.microsoftonline.com/common/oauth2/v2.0/authorize',
  tokenUrl: 'https://login.microsoftonline.com/common/oauth2/v2.0/token',
  apiUrl: 'https://campaign.api.bingads.microsoft.com/CampaignManagement/v13',
} as const;

const CUSTOMER_MANAGEMENT_URL = 'https://clientcenter.api.bingads.microsoft.com/CustomerManagement/v13';
const REPORTING_URL = 'https://reporting.api.bingads.microsoft.com/Reporting/v13';

/** The two other REST services' documented addresses, and the developer token every call carries. */
export const MICROSOFT_EXTRAS: readonly ProviderExtraSetting[] = [
  { key: 'customerUrl', env: 'CUSTOMER_URL', kind: 'url', default: CUSTOMER_MANAGEMENT_URL },
  { key: 'reportingUrl', env: 'REPORTING_URL', kind: 'url', default: REPORTING_URL },
  { key: 'developerToken', env: 'DEVELOPER_TOKEN', kind: 'secret' },
];

/** Managing the user's Microsoft Advertising accounts, with a refresh token (`offline_access`). */
export const MICROSOFT_SCOPES = ['https://ads.microsoft.com/msads.manage', 'offline_access'] as const;

/** ApplyOfflineConversions: at most 1,000 offline conversions per request. */
const UPLOAD_BATCH_LIMIT = 1000;
/** Offline conversions are taken for clicks of the last 90 days. */
const MAX_CLICK_AGE_DAYS = 90;
const DAY_MS = 86_400_000;
/** SearchAccounts answers pages of at most 1,000 accounts. */
const ACCOUNTS_PAGE_SIZE = 1000;
const MAX_ACCOUNT_PAGES = 20;
/** The most of a report download that is read (it is a zip of a small daily CSV). */
const MAX_DOWNLOAD_BYTES = 32 * 1024 * 1024;

/** Operation error codes of an expired or invalid access token (a new login fixes them). */
const AUTH_CODES = new Set([105, 109]);
const AUTH_ERROR_CODES = new Set(['InvalidCredentials', 'AuthenticationTokenExpired']);
/** Operation error code of the per-minute call limit. */
const RATE_CODES = new Set([117]);

/** How long a report is waited for: the pauses between polls (the last one repeats), and the bounds of the whole wait. */
export interface MicrosoftReportPolling {
  pausesMs: readonly number[];
  maxPolls: number;
  maxWaitMs: number;
}

const DEFAULT_POLLING: MicrosoftReportPolling = { pausesMs: [500, 1000, 2000, 4000, 8000, 15000], maxPolls: 30, maxWaitMs: 120_000 };

interface AccountRef {
  customerId: string;
  accountId: string;
}

interface FaultError {
  Code?: unknown;
  ErrorCode?: unknown;
  Message?: unknown;
}

/** A long identifier of a REST answer (text per the API's schema, a number from some serializers), or null. */
function idOf(value: unknown): string | null {
  if (typeof value === 'string' && /^\d+$/.test(value)) return value;
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return String(value);
  return null;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Microsoft Advertising over its REST API (v13). OAuth is the Microsoft identity platform's
 * authorization code flow with PKCE and the scopes sent with every token request; refresh tokens
 * rotate (the new one is kept). Microsoft has no revocation endpoint for these grants. Every call
 * carries `Authorization: Bearer`, the `DeveloperToken`, and, where it is about one ad account,
 * `CustomerId` and `CustomerAccountId`: an ad account's id here is `<customer id>-<account id>`
 * (its manager account, then the account) so each call can name both.
 * Ad accounts: Customer Management GetUser, then SearchAccounts by user (currency, time zone).
 * Goals: Campaign Management GetConversionGoalsByIds (offline conversion goals).
 * Costs: Reporting SubmitGenerateReport (campaign performance, daily), PollGenerateReport, and the
 * zipped CSV at ReportDownloadUrl. Upload: Campaign Management ApplyOfflineConversions.
 */
export class MicrosoftAdPlatform implements AdPlatform {
  readonly provider = 'microsoft';
  readonly name = 'Microsoft Advertising';
  readonly capabilities: AdPlatformCapabilities = {
    costSync: true,
    conversionUpload: true,
    pkce: true,
    refresh: true,
    revoke: false,
    uploadBatchLimit: UPLOAD_BATCH_LIMIT,
    uploadMaxAgeDays: MAX_CLICK_AGE_DAYS,
    needs: { goalEventName: false, clickIdFields: ['msclkid', 'external'] },
  };
  private readonly oauth: OAuthClient;
  private readonly polling: MicrosoftReportPolling;
  private readonly customerUrl: string;
  private readonly reportingUrl: string;

  constructor(
    private readonly settings: ProviderSettings,
    options: { polling?: Partial<MicrosoftReportPolling> } = {},
  ) {
    this.oauth = new OAuthClient(settings, MICROSOFT_SCOPES, { scopeOnTokenRequests: true });
    this.polling = { ...DEFAULT_POLLING, ...options.polling };
    this.customerUrl = settings.extra.customerUrl ?? CUSTOMER_MANAGEMENT_URL;
    this.reportingUrl = settings.extra.reportingUrl ?? REPORTING_URL;
  }

  /** The OAuth client and the developer token are set. */
  get configured(): boolean {
    return Boolean(this.settings.clientId && this.settings.clientSecret && this.settings.extra.developerToken);
  }

  authorizationUrl(request: AuthorizationRequest): URL {
    return this.oauth.authorizationUrl(request);
  }

  exchangeCode(exchange: CodeExchange): Promise<AdPlatformTokens> {
    return this.oauth.exchangeCode(exchange);
  }

  /** `grant_type=refresh_token` with the scopes; Microsoft answers a new refresh token, which replaces the old one. */
  refresh(tokens: AdPlatformTokens): Promise<AdPlatformTokens> {
    if (!tokens.refreshToken) return Promise.reject(new AdPlatformError('auth', 'the Microsoft login has no refresh token: reauthorize the integration'));
    return this.oauth.refresh(tokens.refreshToken);
  }

  /** The Microsoft identity platform has no endpoint revoking one app's grant: the user removes it in their account. */
  revoke(): Promise<boolean> {
    return Promise.resolve(false);
  }

  /** GetUser (`POST /User/Query`, the token's user), then SearchAccounts by that user (`POST /Accounts/Search`), every page. */
  async listAdAccounts(tokens: AdPlatformTokens): Promise<AdAccount[]> {
    const user = (await this.post(this.customerApi('User/Query'), { UserId: null }, tokens, null, 'reading the user')) as { User?: { Id?: unknown } };
    const userId = idOf(user.User?.Id);
    if (!userId) throw new AdPlatformError('refused', 'reading the user: Microsoft Advertising answered no user id');
    const rows: Record<string, unknown>[] = [];
    for (let index = 0; index < MAX_ACCOUNT_PAGES; index++) {
      const page = (await this.post(
        this.customerApi('Accounts/Search'),
        {
          Predicates: [{ Field: 'UserId', Operator: 'Equals', Value: userId }],
          Ordering: [{ Field: 'Id', Order: 'Ascending' }],
          PageInfo: { Index: index, Size: ACCOUNTS_PAGE_SIZE },
        },
        tokens,
        null,
        'searching the ad accounts',
      )) as { Accounts?: Record<string, unknown>[] | null };
      const accounts = page.Accounts ?? [];
      rows.push(...accounts);
      if (accounts.length < ACCOUNTS_PAGE_SIZE) break;
    }
    return rows.flatMap((row) => {
      const customerId = idOf(row.ParentCustomerId);
      const accountId = idOf(row.Id);
      // Inactive accounts are deleted ones: nothing to sync from or upload to.
      if (!customerId || !accountId || row.AccountLifeCycleStatus === 'Inactive') return [];
      return [
        {
          id: `${customerId}-${accountId}`,
          name: String(row.Name ?? ''),
          currency: String(row.CurrencyCode ?? ''),
          timezone: ianaZoneOf(row.TimeZone) ?? 'UTC',
        },
      ];
    });
  }

  /** The ad account's offline conversion goals: GetConversionGoalsByIds (`POST /ConversionGoals/QueryByIds`) with no ids, by type. */
  async listConversionGoals(tokens: AdPlatformTokens, adAccountId: string): Promise<ConversionGoal[]> {
    const goals = await this.offlineGoals(tokens, this.accountOf(adAccountId), null);
    return goals.map((goal) => ({ id: goal.id, name: goal.name, type: 'offline_goal' }));
  }

  /**
   * A campaign performance report, aggregated daily over the window's days (the ad account's
   * time zone: Microsoft reports days of the account's zone), submitted, polled until it is ready
   * (bounded in polls and time), then downloaded (no token sent with it) and read.
   */
  async pullCosts(tokens: AdPlatformTokens, adAccountId: string, window: CostWindow): Promise<CampaignDayCost[]> {
    const account = this.accountOf(adAccountId);
    const date = (day: string) => ({ Year: Number(day.slice(0, 4)), Month: Number(day.slice(5, 7)), Day: Number(day.slice(8, 10)) });
    const submitted = (await this.post(
      this.reportingApi('GenerateReport/Submit'),
      {
        ReportRequest: {
          Type: 'CampaignPerformanceReportRequest',
          ReportName: `Spend ${window.since}..${window.until}`,
          Format: 'Csv',
          FormatVersion: '2.0',
          ExcludeReportHeader: true,
          ExcludeReportFooter: true,
          ExcludeColumnHeaders: false,
          ReturnOnlyCompleteData: false,
          Aggregation: 'Daily',
          Columns: ['TimePeriod', 'CampaignId', 'CurrencyCode', 'Spend'],
          Scope: { AccountIds: [account.accountId] },
          Time: { CustomDateRangeStart: date(window.since), CustomDateRangeEnd: date(window.until) },
        },
      },
      tokens,
      account,
      'submitting the spend report',
    )) as { ReportRequestId?: unknown };
    if (typeof submitted.ReportRequestId !== 'string' || !submitted.ReportRequestId)
      throw new AdPlatformError('refused', 'submitting the spend report: Microsoft Advertising answered no ReportRequestId');
    const downloadUrl = await this.pollReport(tokens, account, submitted.ReportRequestId);
    // Success without a download address: the report has no rows.
    if (!downloadUrl) return [];
    return campaignDayCostsOf(reportCsvOf(await this.download(downloadUrl)), window);
  }

  /**
   * ApplyOfflineConversions (`POST /OfflineConversions/Apply`) to the goal by its name (read with
   * GetConversionGoalsByIds: a renamed goal keeps working), the click id as MicrosoftClickId.
   * Microsoft takes no event id: it counts one conversion per click id and conversion time of a
   * goal, so a batch sent again is taken once. No user data is sent (nothing to hash). Clicks older
   * than 90 days are refused here; the ones Microsoft refuses come back as PartialErrors by index.
   */
  async uploadConversions(tokens: AdPlatformTokens, goal: GoalTarget, batch: readonly ConversionToUpload[]): Promise<UploadOutcome> {
    if (batch.length > UPLOAD_BATCH_LIMIT) throw new AdPlatformError('refused', `at most ${UPLOAD_BATCH_LIMIT} offline conversions per request`);
    const account = this.accountOf(goal.adAccountId);
    const [found] = await this.offlineGoals(tokens, account, [goal.goalId]);
    if (!found || found.id !== goal.goalId)
      throw new AdPlatformError('refused', `ad account ${goal.adAccountId} has no offline conversion goal ${goal.goalId.slice(0, 64)}`);
    const oldest = Date.now() - MAX_CLICK_AGE_DAYS * DAY_MS;
    const rejected: UploadOutcome['rejected'] = [];
    const sent: ConversionToUpload[] = [];
    for (const conversion of batch) {
      if (!Number.isFinite(Date.parse(conversion.occurredAt))) rejected.push({ eventId: conversion.eventId, reason: 'the conversion has no valid time' });
      else if (Date.parse(conversion.clickedAt) < oldest)
        rejected.push({ eventId: conversion.eventId, reason: `the click is older than ${MAX_CLICK_AGE_DAYS} days` });
      else sent.push(conversion);
    }
    if (!sent.length) return { accepted: 0, rejected, answer: { PartialErrors: [] } };
    const body = (await this.post(
      this.campaignApi('OfflineConversions/Apply'),
      {
        OfflineConversions: sent.map((conversion) => ({
          MicrosoftClickId: conversion.clickId,
          ConversionName: found.name,
          ConversionTime: new Date(Date.parse(conversion.occurredAt)).toISOString(),
          ...(conversion.value !== null ? { ConversionValue: conversion.value } : {}),
          ...(conversion.currency ? { ConversionCurrencyCode: conversion.currency } : {}),
        })),
      },
      tokens,
      account,
      'applying offline conversions',
    )) as { PartialErrors?: { Index?: unknown; Code?: unknown; ErrorCode?: unknown; Message?: unknown }[] | null };
    const refusedAt = new Map<number, string>();
    for (const error of body.PartialErrors ?? []) {
      if (typeof error.Index !== 'number' || !sent[error.Index]) continue;
      const reason = [error.ErrorCode, error.Code, error.Message].filter((part) => part !== undefined && part !== null).join(' ');
      refusedAt.set(error.Index, reason.slice(0, 300) || 'refused');
    }
    for (const [index, reason] of refusedAt) rejected.push({ eventId: sent[index].eventId, reason });
    return { accepted: sent.length - refusedAt.size, rejected, answer: body };
  }

  /** The offline conversion goals of the account (all of them, or those of `ids`), deleted ones left out. */
  private async offlineGoals(tokens: AdPlatformTokens, account: AccountRef, ids: string[] | null): Promise<{ id: string; name: string }[]> {
    const body = (await this.post(
      this.campaignApi('ConversionGoals/QueryByIds'),
      { ConversionGoalIds: ids, ConversionGoalTypes: 'OfflineConversion' },
      tokens,
      account,
      'listing offline conversion goals',
    )) as { ConversionGoals?: ({ Id?: unknown; Name?: unknown; Type?: unknown; Status?: unknown } | null)[] | null };
    return (body.ConversionGoals ?? []).flatMap((goal) => {
      const id = idOf(goal?.Id);
      if (!goal || !id || goal.Type !== 'OfflineConversion' || goal.Status === 'Deleted' || typeof goal.Name !== 'string') return [];
      return [{ id, name: goal.Name }];
    });
  }

  /** PollGenerateReport (`POST /GenerateReport/Poll`) until Success (its ReportDownloadUrl, null when the report is empty) or Error. */
  private async pollReport(tokens: AdPlatformTokens, account: AccountRef, reportRequestId: string): Promise<string | null> {
    const { pausesMs, maxPolls, maxWaitMs } = this.polling;
    const started = Date.now();
    for (let poll = 0; poll < maxPolls; poll++) {
      const body = (await this.post(
        this.reportingApi('GenerateReport/Poll'),
        { ReportRequestId: reportRequestId },
        tokens,
        account,
        'polling the spend report',
      )) as {
        ReportRequestStatus?: { Status?: unknown; ReportDownloadUrl?: unknown };
      };
      const status = body.ReportRequestStatus?.Status;
      if (status === 'Success') {
        const url = body.ReportRequestStatus?.ReportDownloadUrl;
        return typeof url === 'string' && url ? url : null;
      }
      if (status === 'Error') throw new AdPlatformError('unavailable', 'Microsoft Advertising could not generate the spend report (status Error)');
      const pause = pausesMs[Math.min(poll, pausesMs.length - 1)] ?? 1000;
      if (Date.now() - started + pause > maxWaitMs) break;
      await sleep(pause);
    }
    throw new AdPlatformError(
      'unavailable',
      `the spend report was not ready after ${Math.round((Date.now() - started) / 1000)} s: it is asked for again later`,
    );
  }

  /**
   * The report archive at ReportDownloadUrl: an address Microsoft answered (its signed storage),
   * fetched without the token through the outbound guard (https to public addresses only), bounded
   * in time and size. An address on the configured reporting service's own origin (configuration,
   * e.g. a local server) is exempt from the address rule.
   */
  private async download(raw: string): Promise<Uint8Array> {
    let own = false;
    try {
      own = new URL(raw).origin === new URL(this.reportingUrl).origin;
    } catch {
      throw new AdPlatformError('refused', 'the report download address is not a URL');
    }
    if (!own && !raw.startsWith('https://')) throw new AdPlatformError('refused', 'the report download address is not https');
    const http = new OutboundHttp({ allowPrivate: own, timeoutMs: this.settings.timeoutMs, maxResponseBytes: MAX_DOWNLOAD_BYTES });
    try {
      const answer = await http.request({ url: raw });
      if (answer.status !== 200) throw new AdPlatformError('unavailable', `the report download answered ${answer.status}`);
      if (answer.truncated) throw new AdPlatformError('unavailable', `the report download is larger than ${MAX_DOWNLOAD_BYTES} bytes`);
      return new Uint8Array(answer.body);
    } catch (error) {
      if (error instanceof OutboundRefusedError) throw new AdPlatformError('refused', `the report download address was refused: ${error.message}`);
      if (error instanceof OutboundFailure) throw new AdPlatformError('unavailable', `the report download failed: ${error.message}`);
      throw error;
    } finally {
      await http.close();
    }
  }

  /** `<customer id>-<account id>`, as listAdAccounts names an ad account. */
  private accountOf(adAccountId: string): AccountRef {
    const match = /^(\d+)-(\d+)$/.exec(adAccountId);
    if (!match) throw new AdPlatformError('refused', `${adAccountId.slice(0, 64)} is not a Microsoft Advertising ad account id (<customer id>-<account id>)`);
    return { customerId: match[1], accountId: match[2] };
  }

  private campaignApi(path: string): URL {
    return this.under(this.settings.apiUrl, path);
  }

  private customerApi(path: string): URL {
    return this.under(this.customerUrl, path);
  }

  private reportingApi(path: string): URL {
    return this.under(this.reportingUrl, path);
  }

  private under(base: string, path: string): URL {
    return new URL(path, base.endsWith('/') ? base : `${base}/`);
  }

  /** A REST call: JSON body, the bearer token and developer token, the account's headers when it is about one. */
  private async post(url: URL, body: unknown, tokens: AdPlatformTokens, account: AccountRef | null, what: string): Promise<unknown> {
    const developerToken = this.settings.extra.developerToken;
    if (!developerToken)
      throw new AdPlatformError('refused', 'Microsoft Advertising has no developer token configured (INTEGRATION_MICROSOFT_DEVELOPER_TOKEN)');
    const headers: Record<string, string> = { Authorization: `Bearer ${tokens.accessToken}`, DeveloperToken: developerToken };
    if (account) {
      headers.CustomerId = account.customerId;
      headers.CustomerAccountId = account.accountId;
    }
    const answer = await callProvider(url, { method: 'POST', headers, body: JSON.stringify(body), timeoutMs: this.settings.timeoutMs });
    return this.judge(answer, what);
  }

  /**
   * The body of a successful answer; a fault (ApplicationFault: AdApiFaultDetail `Errors`,
   * ApiFault / ApiFaultDetail `OperationErrors`, `BatchErrors`) as the port's error, by HTTP status
   * and error code, with Microsoft's codes, messages and TrackingId (never a token).
   */
  private judge(answer: ProviderAnswer, what: string): unknown {
    if (answer.status >= 200 && answer.status < 300 && answer.body !== undefined && answer.body !== null) return answer.body;
    const fault = (answer.body ?? {}) as {
      TrackingId?: unknown;
      Errors?: FaultError[] | null;
      OperationErrors?: FaultError[] | null;
      BatchErrors?: FaultError[] | null;
    };
    const errors = [...(fault.Errors ?? []), ...(fault.OperationErrors ?? []), ...(fault.BatchErrors ?? [])];
    const codes = errors.map((error) => (typeof error.Code === 'number' ? error.Code : undefined)).filter((code): code is number => code !== undefined);
    const names = errors
      .map((error) => (typeof error.ErrorCode === 'string' ? error.ErrorCode : undefined))
      .filter((name): name is string => name !== undefined);
    const first = errors[0];
    const detail = first
      ? ` (${[first.ErrorCode, first.Code].filter((part) => part !== undefined && part !== null).join(' ')})${typeof first.Message === 'string' ? `: ${first.Message.slice(0, 300)}` : ''}`
      : '';
    const tracking = typeof fault.TrackingId === 'string' ? ` [TrackingId ${fault.TrackingId.slice(0, 64)}]` : '';
    const message = `${what}: Microsoft Advertising answered ${answer.status}${detail}${tracking}`;
    if (answer.status === 401 || codes.some((code) => AUTH_CODES.has(code)) || names.some((name) => AUTH_ERROR_CODES.has(name)))
      throw new AdPlatformError('auth', message);
    if (answer.status === 429 || codes.some((code) => RATE_CODES.has(code)) || names.includes('CallRateExceeded'))
      throw new AdPlatformError('rate_limited', message, retryAfterOf(answer.headers));
    if (answer.status >= 500 || (answer.status < 300 && errors.length === 0)) throw new AdPlatformError('unavailable', message, retryAfterOf(answer.headers));
    throw new AdPlatformError('refused', message);
  }
}
