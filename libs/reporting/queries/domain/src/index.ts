// Reporting queries, the pure part: the attribute and metric catalogue, request checks, time zones
// and report assembly (no engine, no transport).
export {};
