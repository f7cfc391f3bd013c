// The tracking edge: visitor routes on tracking domains, the in-memory asset snapshot fed by asset
// events, visitor sessions, and the hits handed to reporting. Each part lives in its own folder.

// Visitor sessions: the SessionStore port, its embedded (SQLite) and JetStream KV adapters, config.
export * from './sessions';
// hits: the HitSink port (durable hand-off of hits to reporting, group commit), its JetStream and inbox adapters.
export * from './hits';
// The asset snapshot: loads every routing asset and custom domain, follows the asset events, answers compiled funnels.
export * from './snapshot';
// Visitor context (issue 22): VisitorResolver, its configuration (GEOIP_DB, GEOIP_ISP_DB, USER_AGENT_CACHE_SIZE) and Nest provider.
export * from './visitor';
// Visitor routes (issue 22): /fts/<token>, /action/<n>, /js/funnel (custom domains and /a/<accountId>/ on EDGE_DEFAULT_DOMAIN), the domain check, probes; TrackingEdge assembles the parts.
export * from './routes';
// Incoming postbacks (issue 23): /pb/ and isConversion actions handed to reporting (reporting.internal.postback).
export * from './postbacks';
// Middleware calls (issue 23): the destinations called through the SSRF guard, bounded per origin and by the request's budget; their secrets from the assets service.
export * from './middleware';
