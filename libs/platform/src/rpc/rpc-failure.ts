import { ServiceError } from '@funnel/contracts';
import { EmptyResponseException } from '@nestjs/microservices/errors/empty-response.exception';
import { NO_MESSAGE_HANDLER } from '@nestjs/microservices/constants';
import { ErrorCode as NatsErrorCode } from 'nats';
import { TimeoutError } from 'rxjs';

/** What a failed request means for the caller. */
export type RpcFailureKind = 'service-error' | 'unavailable' | 'unexpected';

/** NatsError codes meaning "nobody could be reached", as opposed to a broken request. */
const UNREACHABLE_NATS_CODES = new Set<string>([
  NatsErrorCode.ConnectionRefused,
  NatsErrorCode.ConnectionClosed,
  NatsErrorCode.ConnectionDraining,
  NatsErrorCode.ConnectionTimeout,
  NatsErrorCode.Disconnect,
  NatsErrorCode.NoResponders,
  NatsErrorCode.Timeout,
]);

const UNREACHABLE_SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'ETIMEDOUT', 'EPIPE']);

/**
 * Nest reports some transport conditions as bare strings: no handler for the pattern (in-process:
 * no module serves the subject), and ClientNats's "connection lost" while it reconnects.
 */
const UNREACHABLE_MESSAGES = new Set([NO_MESSAGE_HANDLER, 'Error: Connection lost. Trying to reconnect...']);

export function classifyRpcFailure(error: unknown): RpcFailureKind {
  if (error instanceof ServiceError || ServiceError.isShape(error)) return 'service-error';
  if (isUnreachable(error)) return 'unavailable';
  return 'unexpected';
}

function isUnreachable(error: unknown): boolean {
  if (error instanceof TimeoutError) return true;
  // ClientNats turns a NATS "no responders" status (an empty reply) into EmptyResponseException.
  if (error instanceof EmptyResponseException) return true;
  if (typeof error === 'string') return UNREACHABLE_MESSAGES.has(error);
  if (error !== null && typeof error === 'object') {
    const code = (error as { code?: unknown }).code;
    if (typeof code === 'string' && (UNREACHABLE_NATS_CODES.has(code) || UNREACHABLE_SOCKET_CODES.has(code))) return true;
    const message = (error as { message?: unknown }).message;
    return typeof message === 'string' && UNREACHABLE_MESSAGES.has(message);
  }
  return false;
}
