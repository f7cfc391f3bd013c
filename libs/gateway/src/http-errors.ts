import { ArgumentsHost, Catch, ExceptionFilter, HttpException } from '@nestjs/common';
import { FastifyReply, FastifyRequest } from 'fastify';
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { randomUUID } from 'node:crypto';
import { ErrorCodes, ErrorDetail, ServiceError, boundErrorText } from '@funnel/contracts';
import { createLogger } from '@funnel/platform';
import { MAX_BODY_BYTES } from './limits/json-body';

const logger = createLogger('gateway-errors');

export interface HttpErrorAnswer {
  status: number;
  body: Record<string, unknown>;
  headers?: Record<string, string>;
}

/**
 * How a route's error answers look: `standard` is `{ error, code, details }` (a 500: `{ correlationId }`);
 * `billing` is the billing area's `{ success: false, error_code, error_message, details }` (a 500
 * adds `correlationId`). Same statuses and headers either way.
 */
export type ErrorBodyShape = 'standard' | 'billing';

const errorBodyShapes = new WeakMap<object, ErrorBodyShape>();

/** Marks the request's route's error shape, before anything can fail (body parsing included). */
export function useErrorBodyShape(request: FastifyRequest, shape: ErrorBodyShape): void {
  if (shape !== 'standard') errorBodyShapes.set(request, shape);
}

/** The answer in `shape`. */
export function shapeErrorAnswer(answer: HttpErrorAnswer, shape: ErrorBodyShape): HttpErrorAnswer {
  if (shape === 'standard') return answer;
  const { error, code, details, correlationId } = answer.body as { error?: string; code?: string; details?: ErrorDetail[]; correlationId?: string };
  const body: Record<string, unknown> =
    correlationId !== undefined
      ? { success: false, error_code: 'INTERNAL', error_message: 'internal error', correlationId }
      : { success: false, error_code: code, error_message: error, details: details ?? [] };
  return { ...answer, body };
}

/**
 * A 503 without a hint of its own: a service that is down (restarting, redeployed) or did not answer
 * in time. A restarted service answers again within a few seconds.
 */
export const UNAVAILABLE_RETRY_AFTER_SECONDS = 5;

/** A 429 carries `retryAfterSeconds`, and a 503 carries it or a default; clients read it from the Retry-After header. */
function retryAfterOf(error: ServiceError): Record<string, string> | undefined {
  const seconds = error.retryAfterSeconds ?? (error.status === 503 ? UNAVAILABLE_RETRY_AFTER_SECONDS : undefined);
  return (error.status === 429 || error.status === 503) && typeof seconds === 'number' ? { 'retry-after': String(Math.max(1, Math.ceil(seconds))) } : undefined;
}

/** Fastify's own rejections (before any handler runs) carry a status and an FST_ code: a stable code and our own words. */
function fastifyRejection(status: number, code: string | undefined, message: string): { code: string; message: string } {
  if (status === 413) return { code: ErrorCodes.BODY_TOO_LARGE, message: `the body is larger than ${MAX_BODY_BYTES} bytes` };
  if (status === 415 || code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
    return { code: ErrorCodes.UNSUPPORTED_MEDIA_TYPE, message: 'the body must be JSON, sent as Content-Type: application/json' };
  }
  if (code === 'FST_ERR_BAD_URL') return { code: ErrorCodes.MALFORMED_URL, message: 'the URL is malformed (a percent-encoded sequence is not valid UTF-8)' };
  if (code?.startsWith('FST_ERR_CTP') || /json/i.test(message)) return { code: ErrorCodes.MALFORMED_JSON, message };
  if (status === 404) return { code: ErrorCodes.ROUTE_NOT_FOUND, message };
  return { code: ErrorCodes.VALIDATION, message };
}

/** The error body, its texts bounded like a ServiceError's. */
function errorBody(code: string, message: string, details: ErrorDetail[] = []): Record<string, unknown> {
  const bounded = boundErrorText(message, details);
  return { error: bounded.message, code, details: bounded.details };
}

/**
 * The one mapping from failures to HTTP: `{ error, code, details }` for 4xx and 503; a 500 answers
 * only a correlation id, which is logged with the failure.
 */
export function toHttpError(error: unknown, correlationId: string): HttpErrorAnswer {
  const serviceError = error instanceof ServiceError ? error : ServiceError.isShape(error) ? ServiceError.fromShape(error) : undefined;
  if (serviceError && serviceError.status !== 500) {
    const headers = retryAfterOf(serviceError);
    return {
      status: serviceError.status,
      body: { error: serviceError.message, code: serviceError.code, details: serviceError.details },
      ...(headers ? { headers } : {}),
    };
  }
  if (serviceError) {
    const id = serviceError.correlationId ?? correlationId;
    logger.error({ correlationId: id, code: serviceError.code }, 'service failed');
    return { status: 500, body: { correlationId: id } };
  }
  if (error instanceof HttpException) {
    const status = error.getStatus();
    if (status < 500) {
      const rejection = fastifyRejection(status, undefined, error.message);
      return { status, body: errorBody(rejection.code, rejection.message) };
    }
  }
  const fastifyError = error as { statusCode?: number; code?: string; message?: string };
  if (typeof fastifyError?.statusCode === 'number' && fastifyError.statusCode >= 400 && fastifyError.statusCode < 500) {
    const rejection = fastifyRejection(fastifyError.statusCode, fastifyError.code, fastifyError.message ?? 'bad request');
    return { status: fastifyError.statusCode, body: errorBody(rejection.code, rejection.message) };
  }
  const id = correlationId || randomUUID();
  logger.error({ correlationId: id, err: error }, 'unexpected failure');
  return { status: 500, body: { correlationId: id } };
}

/** Sends the error answer of `error` on `reply`. */
export function sendHttpError(error: unknown, request: FastifyRequest | undefined, reply: FastifyReply): void {
  const shape = (request && errorBodyShapes.get(request)) ?? 'standard';
  const answer = shapeErrorAnswer(toHttpError(error, String(request?.id ?? '')), shape);
  if (answer.headers) void reply.headers(answer.headers);
  void reply.status(answer.status).send(answer.body);
}

/** A client's X-Correlation-Id is kept when it is 1..128 of these characters (UUIDs, trace ids); else a new one is made. */
const CORRELATION_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * The correlation id of a request (Fastify's `genReqId`): the client's X-Correlation-Id when it is
 * a short token of safe characters, else a new UUID, so what is echoed and logged is bounded.
 */
export function correlationIdOf(request: IncomingMessage): string {
  const sent = request.headers['x-correlation-id'];
  return typeof sent === 'string' && CORRELATION_ID.test(sent) ? sent : randomUUID();
}

const CLIENT_ERRORS: Record<string, { status: number; reason: string; code: string; message: string }> = {
  ERR_HTTP_REQUEST_TIMEOUT: { status: 408, reason: 'Request Timeout', code: ErrorCodes.REQUEST_TIMEOUT, message: 'the request was not sent in time' },
  HPE_HEADER_OVERFLOW: {
    status: 431,
    reason: 'Request Header Fields Too Large',
    code: ErrorCodes.HEADERS_TOO_LARGE,
    message: 'the request headers are too large',
  },
};
const MALFORMED_HTTP = { status: 400, reason: 'Bad Request', code: ErrorCodes.MALFORMED_HTTP, message: 'the request is not valid HTTP' };

/**
 * Fastify's `clientErrorHandler`: a request Node's HTTP parser refuses (a bad header line,
 * conflicting lengths, broken chunks, headers too large, too slow) never becomes a request, so it is
 * answered here, in the error body of every other answer with a new correlation id, and the
 * connection is closed.
 */
export function answerClientError(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const answer = CLIENT_ERRORS[error.code ?? ''] ?? MALFORMED_HTTP;
  const correlationId = randomUUID();
  logger.debug({ correlationId, code: error.code }, 'client error');
  if (socket.writable) {
    const body = JSON.stringify(errorBody(answer.code, answer.message));
    socket.write(
      `HTTP/1.1 ${answer.status} ${answer.reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
        `X-Correlation-Id: ${correlationId}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}

@Catch()
export class HttpErrorFilter implements ExceptionFilter {
  catch(error: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    sendHttpError(error, http.getRequest<FastifyRequest>(), http.getResponse<FastifyReply>());
  }
}
