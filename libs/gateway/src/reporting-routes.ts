import { ReportingSubjects } from '@funnel/contracts';
import { ForwardedRoute } from './route-table';

/**
 * Reporting updates, served by the reporting service: permission `reporting:write`; the updates
 * take an `Idempotency-Key` header. `reporting.hits.*` have no route (internal callers only).
 */
export function reportingRoutes(): ForwardedRoute[] {
  const route = (method: ForwardedRoute['method'], path: string, subject: string, idempotent = false): ForwardedRoute => ({
    method,
    path,
    subject,
    permission: 'reporting:write',
    reply: 'whole',
    ...(idempotent ? { forwardHeaders: ['idempotency-key'] } : {}),
  });
  return [
    route('PUT', '/reporting/update/conversions', ReportingSubjects.conversions, true),
    route('PUT', '/reporting/update/customevents', ReportingSubjects.customEvents, true),
    route('PUT', '/reporting/update/cost', ReportingSubjects.cost, true),
    route('POST', '/reporting/update/reset', ReportingSubjects.resetCount),
    route('DELETE', '/reporting/update/reset', ReportingSubjects.reset, true),
    route('GET', '/reporting/jobs', ReportingSubjects.jobsGet),
    route('GET', '/reporting/postbacks', ReportingSubjects.postbacksList),
  ];
}
