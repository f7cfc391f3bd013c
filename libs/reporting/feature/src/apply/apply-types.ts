import type { JobCounts } from '@funnel/contracts';
import type {
  ConvertedHit,
  CostSegment,
  CustomEventRow,
  PostbackCalls,
  PostbackIntent,
  ResetUpdateParams,
  TrafficSourcePostbackSettings,
} from '@funnel/reporting-domain';
import type { JobEnvelope } from '../queue/job-queue';

/** The update types a reporting job applies (also its JobEnvelope `type`). */
export const REPORTING_UPDATE_TYPES = ['conversions', 'customevents', 'cost', 'reset'] as const;
export type ReportingUpdateType = (typeof REPORTING_UPDATE_TYPES)[number];

/** A conversions job (the spec's ConversionsUpdateParams, validated when it was accepted). */
export interface ConversionsJobPayload {
  hits: ConvertedHit[];
  postbackCalls?: PostbackCalls;
  overridePayout?: string | null;
  disablePostbacks?: boolean;
  forcePostbacks?: boolean;
}

/** A custom events job (the spec's CustomEventsUpdateParams). Custom events call no postbacks (see README). */
export interface CustomEventsJobPayload {
  hits: CustomEventRow[];
  postbackCalls?: PostbackCalls;
  disablePostbacks?: boolean;
}

/** A cost job (the spec's CostUpdateParams); each segment is a row. */
export interface CostJobPayload {
  funnelIDs: string[];
  trafficSourceIDs: string[];
  timeStart: string;
  timeEnd: string;
  segments: CostSegment[];
}

/** A reset job (the spec's ResetUpdateParams with `restrictToTrackingFields`); one row. */
export type ResetJobPayload = ResetUpdateParams;

export type ReportingJobPayload = ConversionsJobPayload | CustomEventsJobPayload | CostJobPayload | ResetJobPayload;

/** What an applier needs of a job: its id (the applied-row markers' key), account, acceptance time and payload. */
export type ApplyJob<P> = Pick<JobEnvelope<P>, 'jobId' | 'accountId' | 'queuedAt' | 'payload'>;

export interface ApplyDeps {
  /**
   * The traffic source's postback settings (the service asks the assets service), or undefined when it
   * does not exist. Called at most once per source and job. A rejection stops the job (it is retried).
   */
  trafficSource(idTrafficSource: string): Promise<TrafficSourcePostbackSettings | undefined>;
  /**
   * The funnel's `postbackOverrides` entry for a traffic source, which replaces the source's own
   * `postback` for that funnel's hits; undefined when it has none. Optional: without it, sources'
   * postbacks are used as they are. Called at most once per funnel and source and job.
   */
  funnelPostback?(idFunnel: string, idTrafficSource: string): Promise<TrafficSourcePostbackSettings['postback'] | undefined>;
  /** A uniform draw in [0, 1) for `outgoingPostbackProbability` (default Math.random). */
  random?: () => number;
  /** Rows applied per store transaction, one slice of the event loop (default 500). */
  batchSize?: number;
}

export const ROW_ERROR_CODES = { notFound: 'REPORTING.HIT_NOT_FOUND', failed: 'REPORTING.ROW_FAILED' } as const;
/** Errors listed per job at most (the counts cover every row). */
export const MAX_JOB_ERRORS = 100;

/** A row that was not applied: an unknown hit, or a row that failed. */
export interface RowError {
  rowIndex: number;
  hitId?: string;
  code: (typeof ROW_ERROR_CODES)[keyof typeof ROW_ERROR_CODES];
  message: string;
}

export interface ApplyResult {
  counts: JobCounts;
  /** The first MAX_JOB_ERRORS rows not applied, in row order. */
  errors: RowError[];
  /** The postbacks the job decided on, in row order: the service queues them (their deliveryId is stable). */
  postbacks: PostbackIntent[];
  /** Hits the job changed (or, for a reset, removed). */
  hits: number;
  /** The indexes of the rows applied (not noop, notFound or failed), ascending: what changed, for the webhook events. */
  appliedRows: number[];
}
