import { JOB_STATUSES, POSTBACK_DELIVERY_STATUSES, REPORTING_UPDATE_TYPES } from './jobs';
import { STRING_SCHEMA as STRING, COUNT_SCHEMA as COUNT, TIME_SCHEMA as TIME, closedObjectSchema as object } from '../json-schema-parts';

/* The reporting answers as the API document shows them (the TypeScript shapes are in ./jobs.ts). */

/** An accepted update (JobsAccepted): the reference API's shape for background jobs. */
export const JOBS_ACCEPTED_SCHEMA = object({ jobIds: { type: 'array', items: STRING, minItems: 1 }, queuedAt: TIME });

/** POST /reporting/update/reset/: the number of hits the DELETE would remove now (IntegerValue). */
export const INTEGER_VALUE_SCHEMA = object({ value: COUNT });

/** GET /reporting/jobs/?jobId= (ReportingJob). */
export const REPORTING_JOB_SCHEMA = object({
  jobId: STRING,
  type: { type: 'string', enum: [...REPORTING_UPDATE_TYPES] },
  status: { type: 'string', enum: [...JOB_STATUSES] },
  queuedAt: TIME,
  startedAt: { type: ['string', 'null'], format: 'date-time' },
  finishedAt: { type: ['string', 'null'], format: 'date-time' },
  counts: object({ rows: COUNT, applied: COUNT, noop: COUNT, notFound: COUNT, failed: COUNT }),
  errors: {
    type: 'array',
    items: object({ rowIndex: { type: ['integer', 'null'] }, hitId: STRING, code: STRING, message: STRING }, ['hitId']),
  },
});

/** GET /reporting/postbacks/?jobId=: `{ jobId, postbacks: PostbackDeliveryView[] }`. */
export const POSTBACK_DELIVERIES_SCHEMA = object({
  jobId: STRING,
  postbacks: {
    type: 'array',
    items: object({
      hitId: STRING,
      url: STRING,
      status: { type: 'string', enum: [...POSTBACK_DELIVERY_STATUSES] },
      attempts: COUNT,
      lastError: { type: ['string', 'null'] },
    }),
  },
});
