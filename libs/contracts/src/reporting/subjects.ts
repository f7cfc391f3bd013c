/**
 * The reporting service's contract: updates to the hit warehouse (conversions, custom events,
 * costs, resets) accepted as durable jobs, the jobs' and postbacks' records, and hit ingestion.
 */

/** Request/reply subjects of the reporting service (NATS queue group `reporting`). */
export const ReportingSubjects = {
  conversions: 'reporting.update.conversions',
  customEvents: 'reporting.update.customevents',
  cost: 'reporting.update.cost',
  /** POST /reporting/update/reset/: the number of hits a reset would remove now. */
  resetCount: 'reporting.update.resetCount',
  /** DELETE /reporting/update/reset/: queues the reset. */
  reset: 'reporting.update.reset',
  jobsGet: 'reporting.jobs.get',
  postbacksList: 'reporting.postbacks.list',
  /** Internal (no gateway route): the tracking edge, the CLI and tests write hits here. */
  hitsIngest: 'reporting.hits.ingest',
  /** Internal (no gateway route): an account's hits by id, for tests and tools. */
  hitsGet: 'reporting.hits.get',
  /** Internal (no gateway route): the tracking edge hands over an incoming postback (IncomingPostback). */
  postbackIn: 'reporting.internal.postback',
} as const;

/** Subjects of the reporting service that the gateway may not call (internal callers only). */
export const REPORTING_INTERNAL_SUBJECTS: readonly string[] = [ReportingSubjects.hitsIngest, ReportingSubjects.hitsGet, ReportingSubjects.postbackIn];

/** The durable queues of the reporting service: stream (or table) names and subject prefixes. */
export const ReportingQueues = {
  updates: { name: 'REPORTING_UPDATES', subjectPrefix: 'reporting.updates' },
  postbacks: { name: 'REPORTING_POSTBACKS', subjectPrefix: 'reporting.postbacks.deliver' },
  /** Webhook events (fanned out to their configs) and deliveries. */
  webhooks: { name: 'REPORTING_WEBHOOKS', subjectPrefix: 'reporting.webhooks.deliver' },
  /** Ad-platform integration jobs: cost syncs (scheduled and on demand) and conversion uploads. */
  integrations: { name: 'REPORTING_INTEGRATIONS', subjectPrefix: 'reporting.integrationjobs.deliver' },
} as const;

/**
 * The hits of the tracking edge (distributed): the JetStream stream reporting-service creates and
 * consumes (`durableName`, shared by its replicas), one message per hit on
 * `<subjectPrefix>.<accountId>` with `Nats-Msg-Id` = hitId: what edges before hit batches publish.
 */
export const HitsStream = { name: 'HITS', subjectPrefix: 'hits', durableName: 'reporting-hits' } as const;

/**
 * The hits of the tracking edge in batches (distributed): a stream of its own beside HITS, which
 * reporting-service creates and consumes (`durableName`); the edge publishes one message per
 * request's hits of an account on `<subjectPrefix>.<accountId>` (`hits.batch.<accountId>`): a JSON
 * array of hits, `Nats-Msg-Id` = a hash of their ids. A reporting-service that predates it never
 * sees a batch: it neither creates nor consumes this stream.
 */
export const HitBatchesStream = { name: 'HITS_BATCHES', subjectPrefix: 'hits.batch', durableName: 'reporting-hit-batches' } as const;

/** The stream of hit batches beside a stream of hits named `name` on `<subjectPrefix>.*` (HITS: HitBatchesStream); tests name their own. */
export function hitBatchesStreamOf(name: string, subjectPrefix: string): { name: string; subjectPrefix: string; durableName: string } {
  return { name: `${name}_BATCHES`, subjectPrefix: `${subjectPrefix}.batch`, durableName: HitBatchesStream.durableName };
}

/** Error codes of the reporting routes (besides the shared `REQUEST.*` ones). */
export const ReportingErrorCodes = {
  /** More rows than a request may carry (conversions: 10,000). */
  TOO_MANY_ROWS: 'REPORTING.TOO_MANY_ROWS',
  /** A valid update whose job is larger, as stored, than the queue takes (JetStream: the server's max_payload). */
  UPDATE_TOO_LARGE: 'REPORTING.UPDATE_TOO_LARGE',
  JOB_NOT_FOUND: 'REPORTING.JOB_NOT_FOUND',
  IDEMPOTENCY_KEY_REUSED: 'REPORTING.IDEMPOTENCY_KEY_REUSED',
} as const;
