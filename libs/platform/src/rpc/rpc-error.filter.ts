import { randomUUID } from 'node:crypto';
import { type ServiceErrorShape, ServiceError } from '@funnel/contracts';
import { type ArgumentsHost, Catch, type RpcExceptionFilter } from '@nestjs/common';
import type { Logger } from 'pino';
import { type Observable, throwError } from 'rxjs';
import { createLogger } from '../logging/logger';

/**
 * Exception filter for message handlers (`app.useGlobalFilters(new RpcErrorFilter(logger))`):
 * a ServiceError crosses the wire as its `{ status, code, message, details }` shape; anything else
 * is logged under a fresh correlation id and answered with a bare 500 that carries only that id,
 * so no stack or internal message ever leaves the service.
 */
@Catch()
export class RpcErrorFilter implements RpcExceptionFilter<unknown> {
  constructor(private readonly logger: Logger = createLogger('rpc')) {}

  catch(exception: unknown, host: ArgumentsHost): Observable<never> {
    if (exception instanceof ServiceError) {
      return throwError(() => exception.toJSON());
    }
    const correlationId = randomUUID();
    const rpc = host.switchToRpc();
    this.logger.error(
      {
        err: exception,
        correlationId,
        requestCorrelationId: requestCorrelationIdOf(rpc.getData()),
        subject: subjectOf(rpc.getContext()),
      },
      'message handler failed unexpectedly',
    );
    const internal: ServiceErrorShape = { status: 500, code: 'INTERNAL', message: 'internal error', correlationId };
    return throwError(() => internal);
  }
}

function requestCorrelationIdOf(data: unknown): string | undefined {
  const id = (data as { context?: { correlationId?: unknown } } | null)?.context?.correlationId;
  return typeof id === 'string' ? id : undefined;
}

/** NatsContext and InProcessContext both carry the subject as their first argument. */
function subjectOf(context: unknown): string | undefined {
  const args = (context as { getArgs?: () => unknown[] } | null)?.getArgs?.();
  return Array.isArray(args) && typeof args[0] === 'string' ? args[0] : undefined;
}
