import { randomBytes } from 'node:crypto';
import { Inject, Injectable, LoggerService } from '@nestjs/common';
import {
  BILLING_EDGE_DOMAINS_PAGE_MAX,
  BillingErrorCodes,
  CallerContext,
  EdgeDomainsPage,
  CheckDomainResponse,
  DomainInfo,
  DomainSummary,
  ServiceError,
  generateAssetId,
} from '@funnel/contracts';
import { EVENT_STORE, EventStore, FoldedStream, WrongExpectedRevisionError, foldStream } from '@funnel/eventstore';
import { READ_STORE, ReadStore } from '@funnel/readstore';
import {
  CUSTOM_DOMAIN_EVENT_SCHEMA_VERSION,
  CustomDomainCommand,
  CustomDomainState,
  DomainRecord,
  DomainStreams,
  asCustomDomainEvent,
  decideCustomDomain,
  dnsInstructions,
  domainExists,
  domainInfoOf,
  domainNotFound,
  domainSummaryOf,
  evolveCustomDomain,
  initialCustomDomainState,
  normaliseDomain,
} from '@funnel/billing-domain';
import { BILLING_AUDIT_LOGGER, BILLING_CLOCK, BILLING_SETTINGS, BillingSettings, NO_ERROR } from '../billing.tokens';
import { EDGE_PROVIDER, EdgeProvider } from '../edge/edge-provider';
import { DomainChecker, RoutingCheck } from '../checks/domain-checker';
import { CheckRateLimit } from '../checks/check-rate-limit';
import { SubscriptionService } from '../subscription/subscription.service';
import { DomainClaims } from './domain-claims';
import { DomainsProjector, domainsCollection } from './domains.projector';

/** Appends lost to a concurrent writer are decided again this many times before failing. */
const MAX_ATTEMPTS = 3;

type BillingAnswer<T> = { success: true; error_code: ''; error_message: '' } & T;

/**
 * Custom tracking domains: one event-sourced stream per domain of an account, a global claim of the
 * name across accounts, the edge provider that serves it, and the routing check. Lists and lookups
 * read the read model (billing_domains); commands decide on the stream and answer once the read
 * model has their write.
 */
@Injectable()
export class DomainsService {
  private readonly domains: ReturnType<typeof domainsCollection>;
  private readonly claims: DomainClaims;
  private readonly rateLimit: CheckRateLimit;

  constructor(
    @Inject(EVENT_STORE) private readonly eventStore: EventStore,
    @Inject(READ_STORE) readStore: ReadStore,
    @Inject(EDGE_PROVIDER) private readonly edge: EdgeProvider,
    @Inject(BILLING_SETTINGS) private readonly settings: BillingSettings,
    @Inject(BILLING_CLOCK) private readonly clock: () => number,
    @Inject(BILLING_AUDIT_LOGGER) private readonly audit: LoggerService,
    private readonly checker: DomainChecker,
    private readonly projector: DomainsProjector,
    private readonly subscription: SubscriptionService,
  ) {
    this.domains = domainsCollection(readStore);
    this.claims = new DomainClaims(eventStore, clock);
    this.rateLimit = new CheckRateLimit(readStore, clock);
  }

  /** GET /billing/domains: the account's live domains, oldest first, from the read model only. */
  async list(context: CallerContext): Promise<BillingAnswer<{ domains: DomainSummary[] }>> {
    const docs = await this.domains.find({ accountId: context.accountId, live: true }, { sort: { createdAt: 1, _id: 1 } });
    return { success: true, domains: docs.map((doc) => domainSummaryOf(doc.record!)), ...NO_ERROR };
  }

  /**
   * `billing.internal.domains` (the tracking edge only, no caller context): one page of every
   * account's live domains in document id order, from the read model.
   */
  async edgeDomains(body: unknown): Promise<EdgeDomainsPage> {
    const input = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
    const { after, limit = 1000 } = input;
    if (after !== undefined && (typeof after !== 'string' || after.length > 600))
      throw ServiceError.invalidField('after', 'isString', "after must be the previous page's next (text)");
    if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > BILLING_EDGE_DOMAINS_PAGE_MAX) {
      throw ServiceError.invalidField('limit', 'isInt', `limit must be a whole number from 1 to ${BILLING_EDGE_DOMAINS_PAGE_MAX}`);
    }
    const filter: Record<string, unknown> = { live: true };
    if (after !== undefined) filter['_id'] = { $gt: after };
    const docs = await this.domains.find(filter, { sort: { _id: 1 }, limit: limit + 1 });
    const page = docs.slice(0, limit).filter((doc) => doc.record);
    return {
      domains: page.map((doc) => ({ domain: doc.domain, accountId: doc.accountId, status: doc.record!.status })),
      next: docs.length > limit ? docs[limit - 1]._id : null,
    };
  }

  /** GET /billing/domains/{domain}: 404 NOT_FOUND when the account has no such domain (another account's included). */
  async get(context: CallerContext, domain: unknown): Promise<BillingAnswer<{ domain: DomainInfo }>> {
    const record = await this.liveRecord(context, domain);
    return { success: true, domain: domainInfoOf(record), ...NO_ERROR };
  }

  /**
   * POST /billing/domains `{ domain }`: normalise and validate, 409 DOMAIN_EXISTS when the account
   * has it, claim the name across accounts (409 DOMAIN_ALREADY_OWNED), provision it at the edge,
   * record it as pending, and raise the domain add-on when the plan's included domains are used up.
   */
  async create(context: CallerContext, body: unknown): Promise<BillingAnswer<{ domain: DomainInfo; message: string }>> {
    const name = normaliseDomain((body as { domain?: unknown } | null)?.domain, this.settings.reservedDomains);
    const stream = DomainStreams.domain(context.accountId, name.domain);
    const { state, revision } = await this.load(stream);
    if (state.record) throw domainExists(name.domain);
    const domainId = generateAssetId(this.clock());
    await this.claims.claim(context, name.domain, domainId);
    let recorded: DomainRecord;
    try {
      const edge = await this.edge.provision({ domain: name.domain, verificationToken: randomBytes(24).toString('base64url') });
      try {
        recorded = await this.append(
          context,
          stream,
          revision,
          state,
          { type: 'RegisterDomain', accountId: context.accountId, domainId, name, edge, at: this.isoNow() },
          name.domain,
        );
      } catch (error) {
        await this.edge.deprovision({ id: domainId, accountId: context.accountId, ...name, createdAt: '', status: 'pending', edge }).catch(() => undefined);
        throw error instanceof WrongExpectedRevisionError ? domainExists(name.domain) : error;
      }
    } catch (error) {
      await this.claims.release(context, name.domain, domainId);
      throw error;
    }
    await this.followDomains(context, 'raise', name.domain);
    return { success: true, domain: domainInfoOf(recorded), message: dnsInstructions(recorded, this.settings.edgeCnameTarget), ...NO_ERROR };
  }

  /** DELETE /billing/domains/{domain}: deprovision at the edge, record the delete, release the claim, lower the domain add-on. */
  async delete(context: CallerContext, domain: unknown): Promise<BillingAnswer<{ message: string }>> {
    const name = this.pathDomain(domain);
    const stream = DomainStreams.domain(context.accountId, name);
    const { state, revision } = await this.load(stream);
    if (!state.record) throw domainNotFound(name);
    await this.edge.deprovision(state.record);
    await this.append(context, stream, revision, state, { type: 'DeleteDomain', accountId: context.accountId, at: this.isoNow() }, name).catch(
      (error: unknown) => {
        throw error instanceof WrongExpectedRevisionError
          ? ServiceError.conflict(BillingErrorCodes.CONFLICT, `${name} changed concurrently; try again`)
          : error;
      },
    );
    await this.claims.release(context, name, state.record.id);
    await this.followDomains(context, 'lower', name);
    return { success: true, message: `${name} deleted`, ...NO_ERROR };
  }

  /** POST /billing/domains/check `{ domain }`: the routing check of any domain (counted against the account's 30 a minute). */
  async check(context: CallerContext, body: unknown): Promise<CheckDomainResponse> {
    const name = normaliseDomain((body as { domain?: unknown } | null)?.domain);
    await this.rateLimit.take(context.accountId);
    const doc = await this.domains.findOne({ _id: `${context.accountId}.${name.domain}`, accountId: context.accountId, live: true });
    const result = await this.checker.check(name.domain);
    this.logCheck(context, name.domain, 'check', result);
    return { ...result, edge_status: doc?.record?.edge.status ?? '', edge_ssl_status: doc?.record?.edge.sslStatus ?? '' };
  }

  /**
   * POST /billing/domains/{domain}/refresh: fetch the edge's current view (`{ "recheck": true }` asks
   * the edge to validate again), run the routing check, store both with the resulting status.
   */
  async refresh(context: CallerContext, domain: unknown, body: unknown): Promise<BillingAnswer<{ domain: DomainInfo; check: CheckDomainResponse }>> {
    const name = this.pathDomain(domain);
    const recheck = (body as { recheck?: unknown } | null)?.recheck === true;
    const stream = DomainStreams.domain(context.accountId, name);
    let { state, revision } = await this.load(stream);
    if (!state.record) throw domainNotFound(name);
    await this.rateLimit.take(context.accountId);
    // The edge is asked while the check runs, so both fit in the gateway's time for one request.
    const routing = this.checker.check(name);
    const [observed, routed] = await Promise.allSettled([this.edge.observe(state.record, routing, { recheck }), routing]);
    if (observed.status === 'rejected') throw observed.reason;
    if (routed.status === 'rejected') throw routed.reason;
    const edge = observed.value;
    const check: CheckDomainResponse = { ...routed.value, edge_status: edge.status, edge_ssl_status: edge.sslStatus };
    this.logCheck(context, name, 'refresh', check);
    for (let attempt = 1; ; attempt++) {
      try {
        const record = await this.append(
          context,
          stream,
          revision,
          state,
          { type: 'RecordDomainRefresh', accountId: context.accountId, edge, check, at: this.isoNow() },
          name,
        );
        return { success: true, domain: domainInfoOf(record), check, ...NO_ERROR };
      } catch (error) {
        if (!(error instanceof WrongExpectedRevisionError) || attempt >= MAX_ATTEMPTS) throw error;
        // Another write came first (a delete, another refresh): decide again on what it left.
        ({ state, revision } = await this.load(stream));
      }
    }
  }

  /** A domain in a path: normalised like a new one; a name that cannot be a domain is simply not found. */
  private pathDomain(domain: unknown): string {
    try {
      return normaliseDomain(domain).domain;
    } catch {
      throw domainNotFound(typeof domain === 'string' ? domain.slice(0, 253) : '');
    }
  }

  private async liveRecord(context: CallerContext, domain: unknown): Promise<DomainRecord> {
    const name = this.pathDomain(domain);
    const doc = await this.domains.findOne({ _id: `${context.accountId}.${name}`, accountId: context.accountId, live: true });
    if (!doc?.record) throw domainNotFound(name);
    return doc.record;
  }

  private load(stream: string): Promise<FoldedStream<CustomDomainState>> {
    return foldStream(this.eventStore, stream, initialCustomDomainState(), asCustomDomainEvent, evolveCustomDomain);
  }

  /** Decides, appends at `revision`, waits until the read model has it; answers the resulting record (the last one for a delete). */
  private async append(
    context: CallerContext,
    stream: string,
    revision: number,
    state: CustomDomainState,
    command: CustomDomainCommand,
    domain: string,
  ): Promise<DomainRecord> {
    const events = decideCustomDomain(command, state, domain);
    const { position } = await this.eventStore.append(
      stream,
      events.map((e) => ({
        type: e.type,
        data: e.data as unknown as Record<string, unknown>,
        metadata: {
          accountId: context.accountId,
          actorId: context.userId,
          correlationId: context.correlationId,
          occurredAt: this.isoNow(),
          schemaVersion: CUSTOM_DOMAIN_EVENT_SCHEMA_VERSION,
        },
      })),
      { expectedRevision: revision < 0 ? 'no_stream' : revision },
    );
    await this.projector.waitFor(position);
    const next = events.reduce(evolveCustomDomain, state);
    return next.record ?? state.record!;
  }

  /**
   * The domain add-on follows the domain count. The domain change is recorded by then, so a failure
   * here (the billing provider down) does not fail it: it is logged, and the next domain change
   * brings the add-on in line again.
   */
  private async followDomains(context: CallerContext, direction: 'raise' | 'lower', domain: string): Promise<void> {
    try {
      await this.subscription.followCustomDomains(context, direction);
    } catch (error) {
      this.audit.error(
        {
          msg: 'the domain add-on could not follow the domain count',
          event: 'billing.domain_addon_sync_failed',
          accountId: context.accountId,
          correlationId: context.correlationId,
          domain,
          direction,
          code: error instanceof ServiceError ? error.code : 'INTERNAL',
        },
        'BillingAudit',
      );
    }
  }

  /** The audit line of every check: who checked which domain, and what came out. */
  private logCheck(context: CallerContext, domain: string, via: 'check' | 'refresh', result: RoutingCheck): void {
    this.audit.log(
      {
        msg: 'domain check',
        event: 'billing.domain_check',
        via,
        accountId: context.accountId,
        userId: context.userId,
        correlationId: context.correlationId,
        domain,
        found: result.found,
        sslValid: result.ssl_valid,
        httpStatus: result.http_status,
        outcome: result.found ? 'found' : result.error_message,
      },
      'BillingAudit',
    );
  }

  private isoNow(): string {
    return new Date(this.clock()).toISOString();
  }
}
