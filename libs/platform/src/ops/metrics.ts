import { ServiceError } from '@funnel/contracts';
import { type CallHandler, type ExecutionContext, Injectable, type NestInterceptor } from '@nestjs/common';
import type { MessageHandler, Server } from '@nestjs/microservices';
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { type Observable, isObservable, tap } from 'rxjs';

export { Registry } from 'prom-client';

export interface MetricsRegistryOptions {
  /** Labels on every series, e.g. `{ app: 'assets-service' }`. */
  defaultLabels?: Record<string, string>;
  /** Process metrics (CPU, memory, event loop lag, GC); on by default. */
  defaultMetrics?: boolean;
}

/** A fresh registry per app rather than prom-client's global one, so tests and standalone mode stay apart. */
export function createMetricsRegistry(options: MetricsRegistryOptions = {}): Registry {
  const registry = new Registry();
  if (options.defaultLabels) registry.setDefaultLabels(options.defaultLabels);
  if (options.defaultMetrics ?? true) collectDefaultMetrics({ register: registry });
  return registry;
}

/**
 * ok: replied; client_error: a 4xx ServiceError (the caller's fault, not an incident);
 * unavailable: 503 (nobody answered in time); server_error: everything else.
 */
export type RpcOutcome = 'ok' | 'client_error' | 'server_error' | 'unavailable';

export function rpcOutcomeOf(error: unknown): RpcOutcome {
  const status = error instanceof ServiceError || ServiceError.isShape(error) ? error.status : 500;
  if (status === 503) return 'unavailable';
  return status < 500 ? 'client_error' : 'server_error';
}

/** Which end of a request is measured; callers and services in one process (standalone) get separate series. */
export type RpcRole = 'client' | 'server';

const DURATION_BUCKETS_SECONDS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

/** `rpc_<role>_requests_total` and `rpc_<role>_request_duration_seconds`, labelled by subject and outcome. */
export class RpcMetrics {
  private readonly requests: Counter<'subject' | 'outcome'>;
  private readonly duration: Histogram<'subject' | 'outcome'>;

  constructor(registry: Registry, role: RpcRole) {
    const requestsName = `rpc_${role}_requests_total`;
    const durationName = `rpc_${role}_request_duration_seconds`;
    // Reuse what is already registered: prom-client refuses a second metric of the same name.
    this.requests =
      (registry.getSingleMetric(requestsName) as Counter<'subject' | 'outcome'> | undefined) ??
      new Counter({
        name: requestsName,
        help: `RPC requests (${role} side) by subject and outcome`,
        labelNames: ['subject', 'outcome'],
        registers: [registry],
      });
    this.duration =
      (registry.getSingleMetric(durationName) as Histogram<'subject' | 'outcome'> | undefined) ??
      new Histogram({
        name: durationName,
        help: `RPC request duration in seconds (${role} side) by subject and outcome`,
        labelNames: ['subject', 'outcome'],
        buckets: DURATION_BUCKETS_SECONDS,
        registers: [registry],
      });
  }

  observe(subject: string, outcome: RpcOutcome, seconds: number): void {
    this.requests.inc({ subject, outcome });
    this.duration.observe({ subject, outcome }, seconds);
  }

  /** Measures one call: `await metrics.measure(subject, () => work())`. */
  async measure<T>(subject: string, work: () => Promise<T>): Promise<T> {
    const startedAt = performance.now();
    try {
      const result = await work();
      this.observe(subject, 'ok', (performance.now() - startedAt) / 1000);
      return result;
    } catch (error) {
      this.observe(subject, rpcOutcomeOf(error), (performance.now() - startedAt) / 1000);
      throw error;
    }
  }
}

/**
 * Counts and times every request handler of a transport server (rpc_server_*): call it once the
 * app is initialized (the handlers are registered) and before it serves. Each handler Nest built
 * (pipes, filters ... included) is wrapped in place, so a plain result stays a plain result: a
 * global interceptor would do the same, but turns every result into an Observable, and that
 * reply path cost about 90 µs of CPU per request in standalone mode, more than doubling it.
 * A failing handler answers with an Observable that errors (the exception filter's); its error is
 * classified when it comes.
 */
export function measureRequestHandlers(server: Pick<Server, 'getHandlers'>, metrics: RpcMetrics): void {
  const handlers = server.getHandlers();
  for (const [subject, handler] of handlers) {
    if (handler.isEventHandler) continue;
    const measured: MessageHandler = async (data, context) => {
      const startedAt = performance.now();
      const seconds = () => (performance.now() - startedAt) / 1000;
      let result: unknown;
      try {
        result = await handler(data, context);
      } catch (error) {
        metrics.observe(subject, rpcOutcomeOf(error), seconds());
        throw error;
      }
      if (!isObservable(result)) {
        metrics.observe(subject, 'ok', seconds());
        return result;
      }
      let observed = false;
      const observeOnce = (outcome: RpcOutcome) => {
        if (observed) return;
        observed = true;
        metrics.observe(subject, outcome, seconds());
      };
      return result.pipe(
        tap({
          next: () => observeOnce('ok'),
          complete: () => observeOnce('ok'),
          error: (error: unknown) => observeOnce(rpcOutcomeOf(error)),
        }),
      );
    };
    handlers.set(subject, Object.assign(measured, { next: handler.next, isEventHandler: handler.isEventHandler, extras: handler.extras }));
  }
}

/**
 * Counts and times every message handler of a service: `app.useGlobalInterceptors(new RpcMetricsInterceptor(metrics))`.
 * It costs an Observable per request (see measureRequestHandlers, which the apps use).
 * It sees the handler's own error (before the exception filter turns it into a reply).
 */
@Injectable()
export class RpcMetricsInterceptor implements NestInterceptor {
  constructor(private readonly metrics: RpcMetrics) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType() !== 'rpc') return next.handle();
    const subject = subjectOf(context);
    const startedAt = performance.now();
    const seconds = () => (performance.now() - startedAt) / 1000;
    let observed = false;
    const observeOnce = (outcome: RpcOutcome) => {
      if (observed) return;
      observed = true;
      this.metrics.observe(subject, outcome, seconds());
    };
    return next.handle().pipe(
      tap({
        next: () => observeOnce('ok'),
        complete: () => observeOnce('ok'),
        error: (error: unknown) => observeOnce(rpcOutcomeOf(error)),
      }),
    );
  }
}

/** The subject a handler was registered for: NatsContext and InProcessContext carry it first. */
function subjectOf(context: ExecutionContext): string {
  const rpcContext = context.switchToRpc().getContext<{ getArgs?: () => unknown[] } | undefined>();
  const subject = rpcContext?.getArgs?.()[0];
  return typeof subject === 'string' ? subject : 'unknown';
}
