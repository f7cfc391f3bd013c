import { randomUUID } from 'node:crypto';
import { type RpcRequest, ServiceError, type ServiceErrorShape } from '@funnel/contracts';
import type { ClientProxy } from '@nestjs/microservices';
import type { Logger } from 'pino';
import { lastValueFrom, timeout } from 'rxjs';
import { createLogger } from '../logging/logger';
import { type RpcMetrics, rpcOutcomeOf } from '../ops/metrics';
import { classifyRpcFailure } from './rpc-failure';
import type { EventHandler } from './event-publisher';

/** How the gateway (or any caller) reaches a service, whatever the transport. */
export interface ServiceClient {
  /** Resolves with the reply; rejects only with a ServiceError. `timeoutMs` replaces the client's bound for this request (a slow query's route). */
  request<T>(subject: string, payload: RpcRequest, options?: RequestOptions): Promise<T>;
  /**
   * Receives the events published on `subject` (see EventPublisher), from now until the returned
   * function is called. At most once, in publication order per publisher; over NATS the
   * subscription survives reconnects, and what is published while disconnected is lost.
   */
  subscribe(subject: string, handler: EventHandler): () => void;
  close(): Promise<void>;
}

export const DEFAULT_RPC_TIMEOUT_MS = 4000;

/** What one request may change of the client's defaults. */
export interface RequestOptions {
  /** The bound of this request, connecting included, instead of the client's. */
  timeoutMs?: number;
}

export interface ProxyServiceClientOptions {
  /** Upper bound for one request, connecting included; past it the caller gets a 503. */
  timeoutMs?: number;
  logger?: Logger;
  /** Client-side request counter and duration histogram, when given. */
  metrics?: RpcMetrics;
}

/** The part of a Nest ClientProxy this client uses (ClientNats, InProcessClient, or a test double). */
export type RpcClientProxy = Pick<ClientProxy, 'send' | 'close'>;

/** A ServiceClient over a Nest ClientProxy that turns every failure into a ServiceError. */
export class ProxyServiceClient implements ServiceClient {
  private readonly timeoutMs: number;
  private readonly logger: Logger;
  private readonly metrics?: RpcMetrics;

  constructor(
    private readonly proxy: RpcClientProxy,
    options: ProxyServiceClientOptions = {},
  ) {
    this.timeoutMs = options.timeoutMs ?? DEFAULT_RPC_TIMEOUT_MS;
    this.logger = options.logger ?? createLogger('rpc-client');
    this.metrics = options.metrics;
  }

  async request<T>(subject: string, payload: RpcRequest, options: RequestOptions = {}): Promise<T> {
    const startedAt = performance.now();
    try {
      // Request/reply yields one reply, so a limit on the first one bounds the whole call,
      // including the lazy connect that ClientProxy.send begins with.
      const reply$ = this.proxy.send<T, RpcRequest>(subject, payload).pipe(timeout({ first: options.timeoutMs ?? this.timeoutMs }));
      const reply = await lastValueFrom(reply$, { defaultValue: undefined as T });
      this.metrics?.observe(subject, 'ok', (performance.now() - startedAt) / 1000);
      return reply;
    } catch (error) {
      const serviceError = this.toServiceError(error, subject, payload);
      this.metrics?.observe(subject, rpcOutcomeOf(serviceError), (performance.now() - startedAt) / 1000);
      throw serviceError;
    }
  }

  /**
   * Not supported: a Nest ClientProxy only sends. Receives nothing (no error, so code written for
   * any ServiceClient still runs); subscribers must not depend on events over this client.
   */
  subscribe(_subject: string, _handler: EventHandler): () => void {
    return () => undefined;
  }

  async close(): Promise<void> {
    await this.proxy.close();
  }

  private toServiceError(error: unknown, subject: string, payload: RpcRequest): ServiceError {
    return toServiceError(error, subject, payload, this.logger);
  }
}

/** The one mapping from a failed request to what the caller sees: its ServiceError, a 503, or a logged 500. */
export function toServiceError(error: unknown, subject: string, payload: RpcRequest, logger: Logger): ServiceError {
  const requestCorrelationId = payload?.context?.correlationId;
  switch (classifyRpcFailure(error)) {
    case 'service-error':
      return error instanceof ServiceError ? error : ServiceError.fromShape(error as ServiceErrorShape);
    case 'unavailable':
      logger.warn({ subject, requestCorrelationId, reason: describe(error) }, 'service unavailable');
      return ServiceError.unavailable(`${serviceName(subject)} is unavailable`);
    case 'unexpected': {
      const correlationId = randomUUID();
      logger.error({ err: error, subject, correlationId, requestCorrelationId }, 'request failed unexpectedly');
      return ServiceError.internal(correlationId);
    }
  }
}

/** `assets.visitortag.findById` -> `assets`. */
function serviceName(subject: string): string {
  return subject.split('.', 1)[0];
}

function describe(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  return typeof error === 'string' ? error : JSON.stringify(error);
}
