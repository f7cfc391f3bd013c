export { hitCountryOf, hitIpOf, hitVisitorOf, reportingHitOf, reportingHitsOf, requestHitContext } from './reporting-hit';
export type { HitVisitorSource, RequestHitContext } from './reporting-hit';
