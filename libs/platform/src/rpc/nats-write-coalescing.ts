import type { NatsConnection } from 'nats';

/** The two members of nats.js's (v2) protocol handler this relies on; checked before use. */
interface ProtocolHandlerInternals {
  flushPending(): void;
  _close(error?: Error): Promise<void>;
}

/**
 * Makes a NATS connection write its pending protocol data once per event-loop turn instead of
 * once per microtask checkpoint. nats.js flushes in a microtask after the first publish, which on
 * a busy server means one socket write per message, since every HTTP request or NATS message is
 * handled in its own I/O callback. Deferring the flush to setImmediate (the same loop turn, after
 * the I/O callbacks) sends all of a turn's messages in one write: on the gateway and the services
 * that write was the largest single cost per request, and nats-server reads fewer, larger frames.
 * Closing flushes first, so nothing published before close() is dropped.
 *
 * It reaches into nats.js internals (pinned by the lockfile); if their shape differs, the
 * connection is left as it is.
 */
export function coalesceWritesPerLoopTurn(connection: NatsConnection): boolean {
  const protocol = (connection as unknown as { protocol?: Partial<ProtocolHandlerInternals> }).protocol;
  if (typeof protocol?.flushPending !== 'function' || typeof protocol._close !== 'function') return false;
  const flushNow = protocol.flushPending.bind(protocol);
  const closeNow = protocol._close.bind(protocol);
  let scheduled = false;
  const flushScheduled = () => {
    scheduled = false;
    flushNow();
  };
  protocol.flushPending = () => {
    if (scheduled) return;
    scheduled = true;
    setImmediate(flushScheduled);
  };
  protocol._close = (error?: Error) => {
    flushNow();
    return closeNow(error);
  };
  return true;
}
