import { setImmediate as nextTurn } from 'node:timers/promises';
import { Controller, Inject, UseFilters } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { RpcErrorFilter } from '@funnel/platform';
import {
  CallerContext,
  ReportingSubjects,
  RpcRequest,
  ServiceError,
  parseConversionsUpdateInSlices,
  parseCostUpdate,
  parseCustomEventsUpdate,
  parseResetUpdate,
} from '@funnel/contracts';
import { resetFilterOf } from '@funnel/reporting-domain';
import { HIT_STORE, HitStore } from './hits/hit-store';
import { IngestHitsResult, ingestHits } from './hits/ingest-hits';
import { JobRecords } from './service/job-records';
import { ReportingUpdates, jobIdOf } from './service/reporting-updates';
import { AcceptedUpdate } from './service/reporting.tokens';

interface ForwardedBody {
  query?: Record<string, unknown>;
  body?: unknown;
  headers?: Record<string, string | undefined>;
}

type ReportingRequest = RpcRequest<ForwardedBody>;

function callerOf(request: ReportingRequest): CallerContext {
  const context = request?.context;
  if (!context || typeof context.accountId !== 'string' || context.accountId === '') throw ServiceError.unauthorized();
  return context;
}

/** The largest ingest batch (hits per message). */
export const INGEST_MAX_HITS = 10_000;

/**
 * The reporting routes (queue group `reporting`): the four updates become durable jobs; jobs and
 * postbacks are read back by id; `reporting.hits.ingest` and `reporting.hits.get` are internal.
 */
@Controller()
@UseFilters(new RpcErrorFilter())
export class ReportingMessageController {
  constructor(
    private readonly updates: ReportingUpdates,
    private readonly records: JobRecords,
    @Inject(HIT_STORE) private readonly hits: HitStore,
  ) {}

  @MessagePattern(ReportingSubjects.conversions)
  async conversions(@Payload() request: ReportingRequest) {
    // Up to 10,000 rows: checked in slices, the event loop running between them.
    const update = await parseConversionsUpdateInSlices(request?.body?.body, () => nextTurn());
    return this.accept(request, { type: 'conversions', update });
  }

  @MessagePattern(ReportingSubjects.customEvents)
  customEvents(@Payload() request: ReportingRequest) {
    return this.accept(request, { type: 'customevents', update: parseCustomEventsUpdate(request?.body?.body) });
  }

  @MessagePattern(ReportingSubjects.cost)
  cost(@Payload() request: ReportingRequest) {
    return this.accept(request, { type: 'cost', update: parseCostUpdate(request?.body?.body) });
  }

  @MessagePattern(ReportingSubjects.reset)
  reset(@Payload() request: ReportingRequest) {
    return this.accept(request, { type: 'reset', update: parseResetUpdate(request?.body?.body) });
  }

  /** IntegerValue: the number of hits the DELETE would remove now. */
  @MessagePattern(ReportingSubjects.resetCount)
  async resetCount(@Payload() request: ReportingRequest) {
    const context = callerOf(request);
    const update = parseResetUpdate(request?.body?.body);
    return { value: await this.hits.countHits(context.accountId, resetFilterOf(update)) };
  }

  @MessagePattern(ReportingSubjects.jobsGet)
  async job(@Payload() request: ReportingRequest) {
    const context = callerOf(request);
    return this.records.require(context.accountId, jobIdOf(request?.body?.query));
  }

  @MessagePattern(ReportingSubjects.postbacksList)
  async postbacks(@Payload() request: ReportingRequest) {
    const context = callerOf(request);
    const jobId = jobIdOf(request?.body?.query);
    await this.records.require(context.accountId, jobId);
    return { jobId, postbacks: await this.records.postbacks(context.accountId, jobId) };
  }

  /**
   * Internal: `{ hits: Hit[] }` from the tracking edge (or the CLI); each hit names its account. Not an
   * array of 1..INGEST_MAX_HITS is a 400; otherwise the valid hits are stored and the others listed
   * by index (see `ingestHits`).
   */
  @MessagePattern(ReportingSubjects.hitsIngest)
  async ingest(@Payload() request: { body?: { hits?: unknown } }): Promise<IngestHitsResult> {
    const rows = request?.body?.hits;
    if (!Array.isArray(rows) || rows.length === 0 || rows.length > INGEST_MAX_HITS) {
      throw ServiceError.invalidField('hits', 'isArray', `hits must be an array of 1..${INGEST_MAX_HITS} hits`);
    }
    return ingestHits(this.hits, rows);
  }

  /** Internal (tests, tools): the caller's account's hits among `hitIds`. */
  @MessagePattern(ReportingSubjects.hitsGet)
  async getHits(@Payload() request: RpcRequest<{ hitIds?: unknown }>) {
    const context = callerOf(request as ReportingRequest);
    const ids = request?.body?.hitIds;
    if (!Array.isArray(ids) || !ids.every((id) => typeof id === 'string'))
      throw ServiceError.invalidField('hitIds', 'isArray', 'hitIds must be an array of strings');
    return { hits: await this.hits.getHits(context.accountId, ids as string[]) };
  }

  private accept(request: ReportingRequest, accepted: AcceptedUpdate) {
    const context = callerOf(request);
    return this.updates.accept(context, accepted, request?.body?.headers?.['idempotency-key']);
  }
}
