/**
 * The tracking edge's visitor sessions in distributed mode: one JetStream KV bucket shared by every
 * edge replica (stream `KV_EDGE_SESSIONS`), keys `<accountId>.<visitorId>`, max age SESSION_TTL.
 */
export const EDGE_SESSIONS_BUCKET = 'EDGE_SESSIONS';
