// The tracking edge: visitor routes on tracking domains, the in-memory asset snapshot fed by asset
// events, visitor sessions, and the hits handed to reporting. Each part lives in its own folder.

// Visitor context (issue 22): VisitorResolver, its configuration (GEOIP_DB, GEOIP_ISP_DB, USER_AGENT_CACHE_SIZE) and Nest provider.
export * from './visitor';
