// Reporting queries, the pure part: the attribute and metric catalogue, request checks, time zones
// and report assembly (no engine, no transport).
export * from './catalogue/attributes';
export * from './catalogue/metrics';
export * from './catalogue/names';
export * from './time/zone-periods';
export * from './time/buckets';
export * from './request/window';
export * from './request/filters';
export * from './request/drilldown';
export * from './report/values';
export * from './report/assemble';
