import { ArgumentsHost, Catch, ExceptionFilter, HttpException } from '@nestjs/common';
import { FastifyReply, FastifyRequest } from 'fastify';
import { randomUUID } from 'node:crypto';
import { ErrorCodes, ServiceError } from '@funnel/contracts';
import { createLogger } from '@funnel/platform';

const logger = createLogger('gateway-errors');

export interface HttpErrorAnswer {
  status: number;
  body: Record<string, unknown>;
  headers?: Record<string, string>;
}

/** A 429's details carry `retryAfterSeconds`; clients read it from the Retry-After header too. */
function retryAfterOf(error: ServiceError): Record<string, string> | undefined {
  const seconds = (error.details?.[0] as { retryAfterSeconds?: unknown } | undefined)?.retryAfterSeconds;
  return error.status === 429 && typeof seconds === 'number' ? { 'retry-after': String(Math.max(1, Math.ceil(seconds))) } : undefined;
}

/** Fastify's own rejections (before any handler runs) carry a status and an FST_ code. */
function fastifyCode(status: number, code: string | undefined, message: string): string {
  if (status === 413) return ErrorCodes.BODY_TOO_LARGE;
  if (code?.startsWith('FST_ERR_CTP') || /JSON/.test(message)) return ErrorCodes.MALFORMED_JSON;
  if (status === 404) return ErrorCodes.ROUTE_NOT_FOUND;
  return ErrorCodes.VALIDATION;
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
      body: { error: serviceError.message, code: serviceError.code, details: serviceError.details ?? [] },
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
      return { status, body: { error: error.message, code: fastifyCode(status, undefined, error.message), details: [] } };
    }
  }
  const fastifyError = error as { statusCode?: number; code?: string; message?: string };
  if (typeof fastifyError?.statusCode === 'number' && fastifyError.statusCode >= 400 && fastifyError.statusCode < 500) {
    return {
      status: fastifyError.statusCode,
      body: {
        error: fastifyError.message ?? 'bad request',
        code: fastifyCode(fastifyError.statusCode, fastifyError.code, fastifyError.message ?? ''),
        details: [],
      },
    };
  }
  const id = correlationId || randomUUID();
  logger.error({ correlationId: id, err: error }, 'unexpected failure');
  return { status: 500, body: { correlationId: id } };
}

@Catch()
export class HttpErrorFilter implements ExceptionFilter {
  catch(error: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const request = http.getRequest<FastifyRequest>();
    const reply = http.getResponse<FastifyReply>();
    const answer = toHttpError(error, String(request?.id ?? ''));
    if (answer.headers) void reply.headers(answer.headers);
    void reply.status(answer.status).send(answer.body);
  }
}
