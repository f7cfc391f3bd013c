/** The update types, one per route (`reset` is the DELETE of /reporting/update/reset/). */
export const REPORTING_UPDATE_TYPES = ['conversions', 'customevents', 'cost', 'reset'] as const;
export type ReportingUpdateType = (typeof REPORTING_UPDATE_TYPES)[number];

export const JOB_STATUSES = ['queued', 'running', 'done', 'failed'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

/** The answer to an accepted update (the reference API's shape for background jobs). */
export interface JobsAccepted {
  jobIds: string[];
  /** ISO 8601. */
  queuedAt: string;
}

export interface JobCounts {
  /** Rows of the update (conversions and custom events: hits; cost: segments; reset: 1). */
  rows: number;
  applied: number;
  noop: number;
  notFound: number;
  failed: number;
}

/** A row that was not applied (at most 100 are listed; the counts cover every row), or the job as a whole. */
export interface JobError {
  /** The row's index in the update's array; null for the job as a whole. */
  rowIndex: number | null;
  hitId?: string;
  /** `REPORTING.HIT_NOT_FOUND`, `REPORTING.ROW_FAILED`, `REPORTING.JOB_FAILED`. */
  code: string;
  message: string;
}

/** GET /v1/reporting/jobs/?jobId= */
export interface ReportingJob {
  jobId: string;
  type: ReportingUpdateType;
  status: JobStatus;
  queuedAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  counts: JobCounts;
  errors: JobError[];
}

export const POSTBACK_DELIVERY_STATUSES = ['queued', 'delivered', 'failed', 'recorded'] as const;
export type PostbackDeliveryStatus = (typeof POSTBACK_DELIVERY_STATUSES)[number];

/** One entry of GET /v1/reporting/postbacks/?jobId= */
export interface PostbackDeliveryView {
  hitId: string;
  /** The URL (or code) with the values of secret-looking query parameters masked. */
  url: string;
  /** `recorded`: a pixel URL or JavaScript postback, recorded and never called. */
  status: PostbackDeliveryStatus;
  attempts: number;
  lastError: string | null;
}
