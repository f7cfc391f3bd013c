import { Inject, Injectable, Logger } from '@nestjs/common';
import {
  AdAccountView,
  AuthorizationStartView,
  CallerContext,
  CompleteAuthorizationDto,
  ConversionGoalView,
  ErrorCodes,
  IntegrationErrorCodes,
  IntegrationView,
  LinkAdAccountDto,
  LinkGoalDto,
  OAUTH_STATE_TTL_MS,
  RenameIntegrationDto,
  ServiceError,
  StartAuthorizationDto,
  TRAFFIC_SOURCE_KIND,
  generateAssetId,
  validateBody,
} from '@funnel/contracts';
import { EVENT_STORE, EventStore, FoldedStream, WrongExpectedRevisionError, foldStream } from '@funnel/eventstore';
import { READ_STORE, ReadStore } from '@funnel/readstore';
import { type ServiceClient, requestAssetRecord } from '@funnel/platform';
import type { SecretCipher } from '@funnel/assets-domain';
import {
  type AdPlatform,
  AdPlatformError,
  AdPlatformRegistry,
  type AdPlatformTokens,
  type AuthorizationCommand,
  type AuthorizationState,
  AuthorizationStreams,
  type Grant,
  INTEGRATION_EVENT_SCHEMA_VERSION,
  type IntegrationCommand,
  type IntegrationRecord,
  type IntegrationState,
  IntegrationStreams,
  adAccountNotFound,
  asAuthorizationEvent,
  asIntegrationEvent,
  decideAuthorization,
  decideIntegration,
  evolveAuthorization,
  evolveIntegration,
  initialAuthorizationState,
  initialIntegrationState,
  integrationNotFound,
  integrationViewOf,
  invalidState,
} from '@funnel/integrations-domain';
import { newOAuthState, newPkcePair } from '../oauth/oauth-client';
import {
  INTEGRATION_ASSETS,
  INTEGRATION_CLOCK,
  INTEGRATION_PLATFORMS,
  INTEGRATION_SECRETS,
  INTEGRATION_SETTINGS,
  IntegrationSettings,
} from '../integrations.tokens';
import { IntegrationsProjector, integrationsCollection } from './integrations.projector';

/**
 * A refreshable token is refreshed this long before it expires, so that a call (or a job's calls:
 * a report polled for minutes) does not run into its end; one that cannot be refreshed is used to
 * its end.
 */
const REFRESH_MARGIN_MS = 5 * 60_000;

/** A provider's capabilities as GET /v1/integrations/capabilities answers them. */
export interface ProviderCapabilitiesView {
  provider: string;
  name: string;
  configured: boolean;
  costSync: boolean;
  conversionUpload: boolean;
  pkce: boolean;
  refresh: boolean;
  revoke: boolean;
  needs: { goalEventName: boolean; clickIdFields: string[] };
}

/**
 * Ad-platform integrations of an account: one event-sourced stream per integration (tokens
 * encrypted in it), one per OAuth `state` (single use), the read model for lists and lookups, and
 * the provider adapters behind the AdPlatform port. Never answers, logs or records a token in clear.
 */
@Injectable()
export class IntegrationsService {
  private readonly logger = new Logger('Integrations');
  private readonly integrations: ReturnType<typeof integrationsCollection>;

  constructor(
    @Inject(EVENT_STORE) private readonly eventStore: EventStore,
    @Inject(READ_STORE) readStore: ReadStore,
    @Inject(INTEGRATION_PLATFORMS) private readonly platforms: AdPlatformRegistry,
    @Inject(INTEGRATION_SECRETS) private readonly secrets: SecretCipher,
    @Inject(INTEGRATION_CLOCK) private readonly clock: () => number,
    @Inject(INTEGRATION_ASSETS) private readonly assets: ServiceClient,
    @Inject(INTEGRATION_SETTINGS) private readonly settings: IntegrationSettings,
    private readonly projector: IntegrationsProjector,
  ) {
    this.integrations = integrationsCollection(readStore);
  }

  async list(context: CallerContext): Promise<{ integrations: IntegrationView[] }> {
    const docs = await this.integrations.find({ accountId: context.accountId, live: true }, { sort: { createdAt: 1, _id: 1 } });
    return { integrations: docs.map((doc) => integrationViewOf(doc.record!)) };
  }

  async get(context: CallerContext, idIntegration: unknown): Promise<{ integration: IntegrationView }> {
    return { integration: integrationViewOf(await this.liveRecord(context, idIntegration)) };
  }

  capabilities(): { providers: ProviderCapabilitiesView[] } {
    return {
      providers: this.platforms.all().map((platform) => {
        const { costSync, conversionUpload, pkce, refresh, revoke, needs } = platform.capabilities;
        const configured = platform.configured && this.settings.redirectUri !== undefined;
        return { provider: platform.provider, name: platform.name, configured, costSync, conversionUpload, pkce, refresh, revoke, needs };
      }),
    };
  }

  /** POST /integrations/oauth/start: a new connection's authorization URL. */
  async start(context: CallerContext, body: unknown): Promise<AuthorizationStartView> {
    const input = validateBody(StartAuthorizationDto, body);
    const platform = this.configuredPlatform(input.provider);
    const idIntegration = generateAssetId(this.clock());
    return this.startAuthorization(context, platform, { idIntegration, purpose: 'connect', integrationName: input.integrationName ?? platform.name });
  }

  /** POST /integrations/:id/reauthorize: the same flow for an existing integration, which keeps its links. */
  async reauthorize(context: CallerContext, idIntegration: unknown): Promise<AuthorizationStartView> {
    const { state } = await this.load(context, idIntegration);
    const record = state.record!;
    const platform = this.configuredPlatform(record.provider);
    return this.startAuthorization(context, platform, { idIntegration: record.idIntegration, purpose: 'reauthorize', integrationName: record.integrationName });
  }

  /**
   * POST /integrations/oauth/complete `{ state, code }`: uses the state up (once, by its user, within
   * 10 minutes), exchanges the code, lists the ad accounts, and stores the connection (or the new
   * grant of a reauthorized one).
   */
  async complete(context: CallerContext, body: unknown): Promise<{ integration: IntegrationView }> {
    const input = validateBody(CompleteAuthorizationDto, body);
    const started = await this.useAuthorization(context, input.state);
    if (input.error !== undefined) {
      throw ServiceError.badRequest(
        IntegrationErrorCodes.AUTHORIZATION_FAILED,
        `the provider did not authorize: ${input.error}${input.errorDescription ? ` (${input.errorDescription})` : ''}`,
      );
    }
    const platform = this.configuredPlatform(started.provider);
    const codeVerifier = started.codeVerifier ? this.secrets.decrypt(started.codeVerifier) : null;
    const tokens = await this.provider(
      () => platform.exchangeCode({ code: input.code!, state: input.state, redirectUri: started.redirectUri, codeVerifier }),
      true,
    );
    const adAccounts = await this.provider(() => platform.listAdAccounts(tokens), true);
    const grant = this.grantOf(tokens);
    const at = this.isoNow();
    if (started.purpose === 'connect') {
      const command: IntegrationCommand = {
        type: 'ConnectIntegration',
        accountId: context.accountId,
        idIntegration: started.idIntegration,
        provider: started.provider,
        integrationName: started.integrationName,
        grant,
        adAccounts,
        userId: context.userId,
        at,
      };
      const record = await this.append(context, started.idIntegration, { state: initialIntegrationState(), revision: -1 }, command);
      this.logger.log({
        msg: 'integration connected',
        accountId: context.accountId,
        idIntegration: record.idIntegration,
        provider: record.provider,
        adAccounts: adAccounts.length,
      });
      return { integration: integrationViewOf(record) };
    }
    const loaded = await this.load(context, started.idIntegration);
    const record = await this.append(context, started.idIntegration, loaded, { type: 'ReauthorizeIntegration', grant, adAccounts, userId: context.userId, at });
    this.logger.log({ msg: 'integration reauthorized', accountId: context.accountId, idIntegration: record.idIntegration, provider: record.provider });
    return { integration: integrationViewOf(record) };
  }

  async rename(context: CallerContext, idIntegration: unknown, body: unknown): Promise<{ integration: IntegrationView }> {
    const input = validateBody(RenameIntegrationDto, body);
    const loaded = await this.load(context, idIntegration);
    const record = await this.append(context, loaded.state.record!.idIntegration, loaded, {
      type: 'RenameIntegration',
      integrationName: input.integrationName,
      at: this.isoNow(),
    });
    return { integration: integrationViewOf(record) };
  }

  /** DELETE /integrations/:id: revokes the grant at the provider where it can (a failure there is logged, not fatal), then deletes. */
  async delete(context: CallerContext, idIntegration: unknown): Promise<{ idIntegration: string; revoked: boolean }> {
    const loaded = await this.load(context, idIntegration);
    const record = loaded.state.record!;
    const platform = this.platforms.get(record.provider);
    let revoked = false;
    if (platform?.capabilities.revoke) {
      try {
        revoked = await platform.revoke(this.tokensOf(record));
      } catch (error) {
        this.logger.warn({
          msg: 'the provider did not revoke the grant',
          accountId: context.accountId,
          idIntegration: record.idIntegration,
          reason: (error as Error).message,
        });
      }
    }
    await this.append(context, record.idIntegration, loaded, { type: 'DeleteIntegration', revoked, at: this.isoNow() });
    return { idIntegration: record.idIntegration, revoked };
  }

  /** GET /integrations/:id/adaccounts: the ad accounts the login reaches (as last listed), with their links. */
  async adAccounts(context: CallerContext, idIntegration: unknown): Promise<{ adAccounts: AdAccountView[] }> {
    return { adAccounts: adAccountViews(await this.liveRecord(context, idIntegration)) };
  }

  /** POST /integrations/:id/adaccounts/refresh: lists them again at the provider. */
  async refreshAdAccounts(context: CallerContext, idIntegration: unknown): Promise<{ adAccounts: AdAccountView[] }> {
    const loaded = await this.load(context, idIntegration);
    const { value: adAccounts, loaded: after } = await this.withTokens(context, loaded, (platform, tokens) => platform.listAdAccounts(tokens));
    const record = await this.append(context, after.state.record!.idIntegration, after, { type: 'RecordAdAccounts', adAccounts, at: this.isoNow() });
    return { adAccounts: adAccountViews(record) };
  }

  /** PUT /integrations/:id/adaccounts/:adAccountId/link `{ idTrafficSource }` (null unlinks). */
  async linkAdAccount(context: CallerContext, idIntegration: unknown, adAccountId: unknown, body: unknown): Promise<{ adAccount: AdAccountView }> {
    const input = validateBody(LinkAdAccountDto, body === null || typeof body !== 'object' ? body : { idTrafficSource: null, ...body });
    const loaded = await this.load(context, idIntegration);
    const account = String(adAccountId ?? '');
    if (input.idTrafficSource !== null) await this.checkTrafficSource(context, input.idTrafficSource);
    const record = await this.append(context, loaded.state.record!.idIntegration, loaded, {
      type: 'LinkAdAccount',
      adAccountId: account,
      idTrafficSource: input.idTrafficSource,
      at: this.isoNow(),
    });
    return { adAccount: adAccountViews(record).find((a) => a.id === account)! };
  }

  /** GET /integrations/:id/adaccounts/:adAccountId/goals: the ad account's conversion goals at the provider, with their links. */
  async goals(context: CallerContext, idIntegration: unknown, adAccountId: unknown): Promise<{ goals: ConversionGoalView[] }> {
    const loaded = await this.load(context, idIntegration);
    const account = this.adAccountOf(loaded.state.record!, adAccountId);
    const { value: goals, loaded: after } = await this.withTokens(context, loaded, (platform, tokens) => platform.listConversionGoals(tokens, account));
    const links = after.state.record!.goalLinks.filter((l) => l.adAccountId === account);
    return {
      goals: goals.map((goal) => {
        const link = links.find((l) => l.goalId === goal.id);
        return { ...goal, link: link ? { idTrafficSource: link.idTrafficSource, eventName: link.eventName, clickIdField: link.clickIdField } : null };
      }),
    };
  }

  /** PUT /integrations/:id/adaccounts/:adAccountId/goals/:goalId/link `{ idTrafficSource, eventName?, clickIdField? }` (null unlinks). */
  async linkGoal(context: CallerContext, idIntegration: unknown, adAccountId: unknown, goalId: unknown, body: unknown): Promise<{ goal: ConversionGoalView }> {
    const input = validateBody(LinkGoalDto, body === null || typeof body !== 'object' ? body : { idTrafficSource: null, ...body });
    let loaded = await this.load(context, idIntegration);
    const account = this.adAccountOf(loaded.state.record!, adAccountId);
    const id = String(goalId ?? '');
    let goal = loaded.state.record!.goalLinks.find((l) => l.adAccountId === account && l.goalId === id);
    let found = goal ? { id, name: goal.goalName, type: goal.goalType } : undefined;
    const platform = this.platformOf(loaded.state.record!);
    if (input.idTrafficSource !== null) {
      const listed = await this.withTokens(context, loaded, (p, tokens) => p.listConversionGoals(tokens, account));
      loaded = listed.loaded;
      found = listed.value.find((g) => g.id === id);
      if (!found) throw ServiceError.notFound(IntegrationErrorCodes.GOAL_NOT_FOUND, `ad account ${account} has no conversion goal ${id}`);
      await this.checkTrafficSource(context, input.idTrafficSource);
    } else if (!found) {
      return { goal: { id, name: '', type: '', link: null } };
    }
    const record = await this.append(context, loaded.state.record!.idIntegration, loaded, {
      type: 'LinkConversionGoal',
      adAccountId: account,
      goal: found!,
      link:
        input.idTrafficSource === null
          ? null
          : { idTrafficSource: input.idTrafficSource, eventName: input.eventName ?? null, clickIdField: input.clickIdField ?? 'external' },
      needsEventName: platform.capabilities.needs.goalEventName,
      at: this.isoNow(),
    });
    goal = record.goalLinks.find((l) => l.adAccountId === account && l.goalId === id);
    return {
      goal: { ...found!, link: goal ? { idTrafficSource: goal.idTrafficSource, eventName: goal.eventName, clickIdField: goal.clickIdField } : null },
    };
  }

  /** For the jobs: the live integrations (of one account, or of all), from the read model. */
  async liveRecords(accountId?: string): Promise<IntegrationRecord[]> {
    const docs = await this.integrations.find(accountId === undefined ? { live: true } : { accountId, live: true }, { sort: { createdAt: 1, _id: 1 } });
    return docs.map((doc) => doc.record!).filter(Boolean);
  }

  /** For the jobs: the account's live integration, or null. */
  async liveRecordOrNull(accountId: string, idIntegration: string): Promise<IntegrationRecord | null> {
    const doc = await this.integrations.findOne({ _id: `${accountId}.${idIntegration}`, accountId, live: true });
    return doc?.record ?? null;
  }

  /** For the jobs: the account's live integration (404 otherwise), read with the caller's account. */
  async recordFor(context: CallerContext, idIntegration: unknown): Promise<IntegrationRecord> {
    return this.liveRecord(context, idIntegration);
  }

  /**
   * For the jobs: a provider call with the integration's usable tokens, as a route makes it (an
   * expired or refused token marks the integration needs_reauth and fails NEEDS_REAUTH; a rate limit
   * is a 429 with the provider's Retry-After).
   */
  async callAsJob<T>(
    accountId: string,
    idIntegration: string,
    correlationId: string,
    call: (platform: AdPlatform, tokens: AdPlatformTokens) => Promise<T>,
  ): Promise<T> {
    const context: CallerContext = { accountId, userId: 'integration-jobs', permissions: [], correlationId };
    return (await this.withTokens(context, await this.load(context, idIntegration), call)).value;
  }

  /** For the jobs: a traffic source's tracking-field slots (slot -> its field's name). */
  async trackingFieldNames(accountId: string, idTrafficSource: string): Promise<Record<string, string>> {
    const context: CallerContext = { accountId, userId: 'integration-jobs', permissions: ['assets:read'], correlationId: 'integration-jobs' };
    try {
      const source = await requestAssetRecord<{ trackingFieldSlots?: Record<string, { name?: string }> }>(
        this.assets,
        TRAFFIC_SOURCE_KIND,
        context,
        idTrafficSource,
      );
      return Object.fromEntries(Object.entries(source?.trackingFieldSlots ?? {}).map(([slot, field]) => [slot, String(field?.name ?? '')]));
    } catch (error) {
      if ((error as { status?: number })?.status === 404) return {};
      throw error;
    }
  }

  platformFor(record: IntegrationRecord): AdPlatform {
    return this.platformOf(record);
  }

  private async startAuthorization(
    context: CallerContext,
    platform: AdPlatform,
    what: { idIntegration: string; purpose: 'connect' | 'reauthorize'; integrationName: string },
  ): Promise<AuthorizationStartView> {
    const state = newOAuthState();
    const pkce = platform.capabilities.pkce ? await newPkcePair() : null;
    const now = this.clock();
    const expiresAt = new Date(now + OAUTH_STATE_TTL_MS).toISOString();
    const redirectUri = this.settings.redirectUri!;
    const command: AuthorizationCommand = {
      type: 'StartAuthorization',
      authorization: {
        state,
        accountId: context.accountId,
        userId: context.userId,
        provider: platform.provider,
        ...what,
        redirectUri,
        codeVerifier: pkce ? this.secrets.encrypt(pkce.verifier) : null,
        startedAt: new Date(now).toISOString(),
        expiresAt,
      },
    };
    await this.appendAuthorization(context, state, -1, initialAuthorizationState(), command);
    const authorizationUrl = platform.authorizationUrl({ state, redirectUri, codeChallenge: pkce?.challenge ?? null });
    return { authorizationUrl: authorizationUrl.href, state, codeChallengeMethod: pkce ? 'S256' : null, expiresAt };
  }

  /** Uses the state up: an append at the revision it was read at, so two completions of one state give one winner. */
  private async useAuthorization(context: CallerContext, state: string) {
    // A state is 43 base64url characters; anything else was never issued.
    if (!/^[A-Za-z0-9_-]{16,128}$/.test(state)) throw invalidState();
    const stream = AuthorizationStreams.authorization(state);
    const folded = await foldStream<AuthorizationState, ReturnType<typeof asAuthorizationEvent> & object>(
      this.eventStore,
      stream,
      initialAuthorizationState(),
      asAuthorizationEvent,
      evolveAuthorization,
    );
    const command: AuthorizationCommand = { type: 'UseAuthorization', accountId: context.accountId, userId: context.userId, at: this.isoNow() };
    await this.appendAuthorization(context, state, folded.revision, folded.state, command);
    return folded.state.started!;
  }

  private async appendAuthorization(
    context: CallerContext,
    state: string,
    revision: number,
    current: AuthorizationState,
    command: AuthorizationCommand,
  ): Promise<void> {
    const events = decideAuthorization(command, current);
    try {
      await this.eventStore.append(
        AuthorizationStreams.authorization(state),
        events.map((e) => this.stored(context, e)),
        {
          expectedRevision: revision < 0 ? 'no_stream' : revision,
        },
      );
    } catch (error) {
      if (error instanceof WrongExpectedRevisionError) throw invalidState();
      throw error;
    }
  }

  /** Calls the provider with usable tokens (refreshed when near their end): an expired token that cannot be refreshed marks the integration needs_reauth, and so does the provider refusing it. */
  private async withTokens<T>(
    context: CallerContext,
    loaded: FoldedStream<IntegrationState>,
    call: (platform: AdPlatform, tokens: AdPlatformTokens) => Promise<T>,
  ): Promise<{ value: T; loaded: FoldedStream<IntegrationState> }> {
    let record = loaded.state.record!;
    const platform = this.platformOf(record);
    if (record.status === 'needs_reauth' || record.status === 'disconnected') throw needsReauth(record);
    let tokens = this.tokensOf(record);
    const refreshable = platform.capabilities.refresh && tokens.refreshToken !== null;
    if (record.expiresAt !== null && Date.parse(record.expiresAt) - (refreshable ? REFRESH_MARGIN_MS : 0) <= this.clock()) {
      if (!refreshable) {
        await this.markNeedsReauth(context, loaded, `the access token expired at ${record.expiresAt}`);
        throw needsReauth(record);
      }
      try {
        tokens = await this.provider(() => platform.refresh(tokens));
      } catch (error) {
        if (error instanceof ServiceError && error.code === IntegrationErrorCodes.NEEDS_REAUTH) {
          await this.markNeedsReauth(context, loaded, error.message);
        }
        throw error;
      }
      record = await this.append(context, record.idIntegration, loaded, { type: 'RecordTokenRefresh', grant: this.grantOf(tokens), at: this.isoNow() });
      loaded = await this.load(context, record.idIntegration);
    }
    try {
      return { value: await this.provider(() => call(platform, tokens)), loaded };
    } catch (error) {
      if (error instanceof ServiceError && error.code === IntegrationErrorCodes.NEEDS_REAUTH) {
        loaded = await this.markNeedsReauth(context, loaded, error.message);
      }
      throw error;
    }
  }

  private async markNeedsReauth(context: CallerContext, loaded: FoldedStream<IntegrationState>, reason: string): Promise<FoldedStream<IntegrationState>> {
    const record = loaded.state.record!;
    this.logger.warn({
      msg: 'integration needs reauthorization',
      accountId: context.accountId,
      idIntegration: record.idIntegration,
      provider: record.provider,
      reason,
    });
    await this.append(context, record.idIntegration, loaded, { type: 'ChangeIntegrationStatus', status: 'needs_reauth', lastError: reason, at: this.isoNow() });
    return this.load(context, record.idIntegration);
  }

  /** A provider call, its failures as service errors (`auth` is NEEDS_REAUTH; during a connect, AUTHORIZATION_FAILED). */
  private async provider<T>(call: () => Promise<T>, connecting = false): Promise<T> {
    try {
      return await call();
    } catch (error) {
      if (!(error instanceof AdPlatformError)) throw error;
      switch (error.kind) {
        case 'auth':
          throw connecting
            ? ServiceError.badRequest(IntegrationErrorCodes.AUTHORIZATION_FAILED, error.message)
            : ServiceError.conflict(IntegrationErrorCodes.NEEDS_REAUTH, `${error.message}; reauthorize the integration`);
        case 'rate_limited':
          throw ServiceError.tooManyRequests(error.message, error.retryAfterSeconds ?? 60, IntegrationErrorCodes.PROVIDER_RATE_LIMITED);
        case 'unavailable':
          throw new ServiceError(503, IntegrationErrorCodes.PROVIDER_UNAVAILABLE, error.message);
        case 'refused':
          throw ServiceError.badRequest(connecting ? IntegrationErrorCodes.AUTHORIZATION_FAILED : IntegrationErrorCodes.PROVIDER_REFUSED, error.message);
      }
    }
  }

  private configuredPlatform(provider: string): AdPlatform {
    const platform = this.platforms.get(provider);
    if (!platform || !platform.configured || this.settings.redirectUri === undefined) {
      throw ServiceError.invalidField(
        'provider',
        'isProvider',
        `provider ${provider} is not ${platform ? 'configured' : 'known'}: see GET /v1/integrations/capabilities`,
        IntegrationErrorCodes.UNKNOWN_PROVIDER,
      );
    }
    return platform;
  }

  private platformOf(record: IntegrationRecord): AdPlatform {
    const platform = this.platforms.get(record.provider);
    if (!platform) throw new ServiceError(503, IntegrationErrorCodes.PROVIDER_UNAVAILABLE, `provider ${record.provider} has no adapter in this service`);
    return platform;
  }

  private adAccountOf(record: IntegrationRecord, adAccountId: unknown): string {
    const id = String(adAccountId ?? '');
    if (!record.adAccounts.some((account) => account.id === id)) throw adAccountNotFound(id);
    return id;
  }

  /** A link names a traffic source of the account (read with the account's context, whatever the caller's key may read). */
  private async checkTrafficSource(context: CallerContext, idTrafficSource: string): Promise<void> {
    const asReader: CallerContext = {
      accountId: context.accountId,
      userId: context.userId,
      permissions: ['assets:read'],
      correlationId: context.correlationId,
    };
    try {
      await requestAssetRecord(this.assets, TRAFFIC_SOURCE_KIND, asReader, idTrafficSource);
    } catch (error) {
      if ((error as { status?: number })?.status !== 404) throw error;
      throw ServiceError.invalidField(
        'idTrafficSource',
        'isReference',
        `idTrafficSource names no traffic source of this account: ${idTrafficSource}`,
        ErrorCodes.INVALID_REFERENCE,
      );
    }
  }

  private tokensOf(record: IntegrationRecord): AdPlatformTokens {
    return {
      accessToken: this.secrets.decrypt(record.tokens.accessToken),
      refreshToken: record.tokens.refreshToken ? this.secrets.decrypt(record.tokens.refreshToken) : null,
      expiresAt: record.expiresAt,
      scopes: record.scopes,
    };
  }

  private grantOf(tokens: AdPlatformTokens): Grant {
    return {
      tokens: { accessToken: this.secrets.encrypt(tokens.accessToken), refreshToken: tokens.refreshToken ? this.secrets.encrypt(tokens.refreshToken) : null },
      expiresAt: tokens.expiresAt,
      scopes: tokens.scopes,
    };
  }

  private async liveRecord(context: CallerContext, idIntegration: unknown): Promise<IntegrationRecord> {
    const id = typeof idIntegration === 'string' ? idIntegration : '';
    const doc = await this.integrations.findOne({ _id: `${context.accountId}.${id}`, accountId: context.accountId, live: true });
    if (!doc?.record) throw integrationNotFound(id.slice(0, 64));
    return doc.record;
  }

  /** The integration's stream, folded; 404 when the account has no such (live) integration. */
  private async load(context: CallerContext, idIntegration: unknown): Promise<FoldedStream<IntegrationState>> {
    const id = typeof idIntegration === 'string' ? idIntegration : '';
    if (!/^[0-9A-Za-z]{12}$/.test(id)) throw integrationNotFound(id.slice(0, 64));
    const folded = await foldStream(
      this.eventStore,
      IntegrationStreams.integration(context.accountId, id),
      initialIntegrationState(),
      asIntegrationEvent,
      evolveIntegration,
    );
    if (!folded.state.record) throw integrationNotFound(id);
    return folded;
  }

  /** Decides, appends at the revision it was read at, waits until the read model has it; answers the resulting record (the last one for a delete). */
  private async append(
    context: CallerContext,
    idIntegration: string,
    loaded: FoldedStream<IntegrationState>,
    command: IntegrationCommand,
  ): Promise<IntegrationRecord> {
    const events = decideIntegration(command, loaded.state, idIntegration);
    const next = events.reduce(evolveIntegration, loaded.state);
    if (!events.length) return next.record!;
    try {
      const { position } = await this.eventStore.append(
        IntegrationStreams.integration(context.accountId, idIntegration),
        events.map((e) => this.stored(context, e)),
        { expectedRevision: loaded.revision < 0 ? 'no_stream' : loaded.revision },
      );
      await this.projector.waitFor(position);
    } catch (error) {
      if (error instanceof WrongExpectedRevisionError)
        throw ServiceError.conflict(IntegrationErrorCodes.CONFLICT, `integration ${idIntegration} changed meanwhile; try again`);
      throw error;
    }
    return next.record ?? loaded.state.record!;
  }

  private stored(context: CallerContext, event: { type: string; data: object }) {
    return {
      type: event.type,
      data: event.data as Record<string, unknown>,
      metadata: {
        accountId: context.accountId,
        actorId: context.userId,
        correlationId: context.correlationId,
        occurredAt: this.isoNow(),
        schemaVersion: INTEGRATION_EVENT_SCHEMA_VERSION,
      },
    };
  }

  private isoNow(): string {
    return new Date(this.clock()).toISOString();
  }
}

function needsReauth(record: IntegrationRecord): ServiceError {
  return ServiceError.conflict(
    IntegrationErrorCodes.NEEDS_REAUTH,
    `integration ${record.idIntegration} needs a reauthorization${record.lastError ? ` (${record.lastError})` : ''}: POST /v1/integrations/${record.idIntegration}/reauthorize`,
  );
}

function adAccountViews(record: IntegrationRecord): AdAccountView[] {
  return record.adAccounts.map((account) => ({ ...account, idTrafficSource: record.adAccountLinks[account.id] ?? null }));
}
