import { duration } from '@funnel/platform';

/**
 * The edge's session variables (add them to the tracking edge's and the standalone's config spec):
 * - SESSION_TTL: how long a session lives after its last request (default 24h, 1m..30d); in
 *   distributed mode the max age of the KV bucket EDGE_SESSIONS, which a start with another value updates.
 * - SESSION_SWEEP_INTERVAL: how often the embedded store deletes expired sessions from its file (default 5m).
 */
export const sessionConfig = {
  SESSION_TTL: duration({ default: '24h', min: '1m', max: '30d' }),
  SESSION_SWEEP_INTERVAL: duration({ default: '5m', min: '1s', max: '1d' }),
};

/** The embedded store's file under DATA_DIR. */
export const SESSION_STORE_FILE = 'edge-sessions.sqlite';
