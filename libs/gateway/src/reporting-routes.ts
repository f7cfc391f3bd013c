import {
  ConversionsUpdateDto,
  CostUpdateDto,
  CustomEventsUpdateDto,
  INTEGER_VALUE_SCHEMA,
  JOBS_ACCEPTED_SCHEMA,
  POSTBACK_DELIVERIES_SCHEMA,
  REPORTING_JOB_SCHEMA,
  ReportingSubjects,
  ResetUpdateDto,
} from '@funnel/contracts';
import type { RouteDoc } from './docs/openapi/route-doc';
import { ForwardedRoute } from './route-table';
import { LARGEST_BODY_BYTES } from './limits/json-body';

const IDEMPOTENCY_KEY = {
  name: 'Idempotency-Key',
  description: 'a retried request with the same key (and body) answers the first job instead of queueing a second; another body with the key is a 409',
};
const JOB_ID = [{ name: 'jobId', required: true, description: 'a job id from an update answer (`jobIds`)' }];

/**
 * Reporting updates, served by the reporting service: permission `reporting:write`; the updates
 * take an `Idempotency-Key` header. `reporting.hits.*` have no route (internal callers only).
 */
export function reportingRoutes(): ForwardedRoute[] {
  const route = (
    method: ForwardedRoute['method'],
    path: string,
    subject: string,
    doc: RouteDoc,
    idempotent = false,
    maxBodyBytes?: number,
  ): ForwardedRoute => ({
    method,
    path,
    subject,
    permission: 'reporting:write',
    reply: 'whole',
    doc: { tag: 'reporting', ...doc, ...(idempotent ? { headers: [IDEMPOTENCY_KEY] } : {}) },
    ...(idempotent ? { forwardHeaders: ['idempotency-key'] } : {}),
    ...(maxBodyBytes ? { maxBodyBytes } : {}),
  });
  const update = (summary: string, body: RouteDoc['body']): RouteDoc => ({ summary, body, answer: JOBS_ACCEPTED_SCHEMA });
  return [
    route(
      'PUT',
      '/reporting/update/conversions',
      ReportingSubjects.conversions,
      update('Queue conversions of hits (1..10,000 rows; a body of up to 16 MiB)', ConversionsUpdateDto),
      true,
      // 10,000 rows with 256-character transaction ids are ~3.1 MB of JSON (more with escapes).
      LARGEST_BODY_BYTES,
    ),
    route(
      'PUT',
      '/reporting/update/customevents',
      ReportingSubjects.customEvents,
      update('Queue custom events of hits (1..10 rows)', CustomEventsUpdateDto),
      true,
    ),
    route('PUT', '/reporting/update/cost', ReportingSubjects.cost, update('Queue costs of entrances (1..1000 segments)', CostUpdateDto), true),
    route('POST', '/reporting/update/reset', ReportingSubjects.resetCount, {
      summary: 'The number of hits the DELETE would remove now',
      body: ResetUpdateDto,
      answer: INTEGER_VALUE_SCHEMA,
    }),
    route('DELETE', '/reporting/update/reset', ReportingSubjects.reset, update('Queue the removal of the hits the filter matches', ResetUpdateDto), true),
    route('GET', '/reporting/jobs', ReportingSubjects.jobsGet, { summary: 'One job: status, counts and errors', query: JOB_ID, answer: REPORTING_JOB_SCHEMA }),
    route('GET', '/reporting/postbacks', ReportingSubjects.postbacksList, {
      summary: "A conversions job's postback deliveries (URLs with secrets masked)",
      query: JOB_ID,
      answer: POSTBACK_DELIVERIES_SCHEMA,
    }),
  ];
}
