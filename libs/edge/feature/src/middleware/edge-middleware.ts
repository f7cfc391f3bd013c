// The edge's middleware calls: each middleware node's destination is called synchronously through
// the SSRF-guarded client (config timeout, bounded by the request's budget and by a slot of the
// destination's origin), its answer matched against the config's routes as the simulator matches it,
// and the call recorded for the node's hit.
import { Counter, Histogram, type Registry } from 'prom-client';
import type { HitMiddlewareCall } from '@funnel/reporting-domain';
import { type OutboundHttp, callMiddleware } from '@funnel/platform';
import {
  type MiddlewareAnswer,
  type MiddlewareCall,
  type MiddlewareCallOutcome,
  type RoutingEffect,
  decideMiddlewareAnswer,
  middlewareRoutesOf,
} from '@funnel/routing';
import type { MiddlewareDestinationSecrets } from '@funnel/contracts';
import { OriginLimiter, type OriginLimits } from './origin-limiter';
import type { MiddlewareSecretSource } from './middleware-secrets';

export interface EdgeMiddlewareOptions {
  /** The SSRF-guarded client (OUTBOUND_ALLOW_PRIVATE lifts its address rule, for tests only). */
  http: OutboundHttp;
  secrets: MiddlewareSecretSource;
  /** Per destination origin: calls in flight and calls waiting (EDGE_MIDDLEWARE_CONCURRENCY, EDGE_MIDDLEWARE_QUEUE). */
  limits: OriginLimits;
  /** EDGE_REQUEST_BUDGET_MS: the most one visitor request spends on middleware calls, all its nodes together. */
  budgetMs: number;
  registry?: Registry;
}

/** The middleware port of one visitor request, and the calls it made (in call order). */
export interface RequestMiddleware {
  port: (call: MiddlewareCall) => Promise<MiddlewareAnswer>;
  /** Each call by its node's hit id. */
  calls: Map<string, HitMiddlewareCall>;
}

type Destination = {
  url?: unknown;
  method?: unknown;
  headers?: unknown;
  basicAuth?: { username?: unknown } | null;
};

const stringMap = (value: unknown): Record<string, string> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)
    ? Object.fromEntries(Object.entries(value).filter((entry): entry is [string, string] => typeof entry[1] === 'string'))
    : {};

export class EdgeMiddleware {
  private readonly limiter: OriginLimiter;
  private readonly outcomes?: Counter<'outcome'>;
  private readonly latency?: Histogram;

  constructor(private readonly options: EdgeMiddlewareOptions) {
    this.limiter = new OriginLimiter(options.limits);
    if (options.registry) {
      this.outcomes = new Counter({
        name: 'edge_middleware_calls_total',
        help: 'Middleware calls of the tracking edge by outcome (matched, noMatch, timeout, failure, overloaded)',
        labelNames: ['outcome'],
        registers: [options.registry],
      });
      this.latency = new Histogram({
        name: 'edge_middleware_call_duration_seconds',
        help: 'Time of a middleware call, its wait for a slot included',
        buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
        registers: [options.registry],
      });
    }
  }

  /** Calls in flight and waiting for an origin. */
  load(origin: string): { active: number; waiting: number } {
    return this.limiter.load(origin);
  }

  /** The port of one request that started at `startedAt` (performance.now()). */
  forRequest(accountId: string, idFunnel: string, startedAt: number = performance.now()): RequestMiddleware {
    const calls = new Map<string, HitMiddlewareCall>();
    const deadline = startedAt + this.options.budgetMs;
    const port = async (call: MiddlewareCall): Promise<MiddlewareAnswer> => {
      const started = performance.now();
      const outcome = await this.callOnce(accountId, idFunnel, call, deadline);
      const decision = decideMiddlewareAnswer(middlewareRoutesOf(call.config), outcome.outcome);
      const latencyMs = Math.round(performance.now() - started);
      const hitId = call.payload['request_id'];
      if (typeof hitId === 'string')
        calls.set(hitId, {
          idMiddlewareConfig: call.idMiddlewareConfig,
          matchedRouteId: decision.matchedRouteId ?? '',
          defaultReason: decision.defaultReason ?? '',
          status: outcome.status,
          latencyMs,
        });
      this.outcomes?.inc({ outcome: decision.defaultReason ?? 'matched' });
      this.latency?.observe(latencyMs / 1000);
      return decision.answer;
    };
    return { port, calls };
  }

  private async callOnce(
    accountId: string,
    idFunnel: string,
    call: MiddlewareCall,
    deadline: number,
  ): Promise<{ outcome: MiddlewareCallOutcome; status: number }> {
    const config = (call.config['destination'] ?? {}) as Destination;
    const overrides = (call.overrides ?? {}) as Destination;
    const url = typeof config.url === 'string' ? config.url : '';
    let origin: string;
    try {
      origin = new URL(url).origin;
    } catch {
      return { outcome: { kind: 'failure', error: 'the destination URL is not valid' }, status: 0 };
    }
    const remaining = () => Math.floor(deadline - performance.now());
    if (remaining() <= 0) return { outcome: { kind: 'timeout', error: 'the request budget was spent before the call' }, status: 0 };
    const release = await this.limiter.acquire(origin, Math.min(call.timeoutMs, remaining()));
    if (release === null) return { outcome: { kind: 'overloaded', error: 'too many calls to this destination are in flight' }, status: 0 };
    try {
      let secrets: { config: MiddlewareDestinationSecrets | null; node: MiddlewareDestinationSecrets | null };
      try {
        secrets = await this.options.secrets.secretsOf(accountId, idFunnel, call);
      } catch {
        return { outcome: { kind: 'failure', error: "the destination's secrets could not be read" }, status: 0 };
      }
      const timeoutMs = Math.min(call.timeoutMs, remaining());
      if (timeoutMs <= 0) return { outcome: { kind: 'timeout', error: 'the request budget was spent before the call' }, status: 0 };
      // The node's overrides: headers merged, basic auth and HMAC secret replaced when the node has its own.
      const basicAuth = overrides.basicAuth !== undefined ? overrides.basicAuth : config.basicAuth;
      const password = (overrides.basicAuth !== undefined ? secrets.node?.basicAuthPassword : secrets.config?.basicAuthPassword) ?? '';
      const hmacSecret = secrets.node?.hmacSecret ?? secrets.config?.hmacSecret ?? null;
      const result = await callMiddleware(this.options.http, {
        url,
        method: config.method === 'GET' ? 'GET' : 'POST',
        headers: { ...stringMap(config.headers), ...stringMap(overrides.headers) },
        ...(basicAuth && typeof basicAuth.username === 'string' ? { basicAuth: { username: basicAuth.username, password } } : {}),
        ...(hmacSecret ? { hmacSecret } : {}),
        payload: call.payload,
        timeoutMs,
      });
      if (result.answer !== null) return { outcome: { kind: 'answered', answer: result.answer, error: result.error }, status: result.answer.status };
      return { outcome: { kind: result.timedOut ? 'timeout' : 'failure', error: result.error ?? 'the call failed' }, status: 0 };
    } finally {
      release();
    }
  }
}

/**
 * The calls of a walk, with `unconnected` where the engine took the default although the answer
 * matched a route (no connection takes it). Effects and calls come in the same order.
 */
export function settleMiddlewareCalls(calls: Map<string, HitMiddlewareCall>, effects: readonly RoutingEffect[]): Map<string, HitMiddlewareCall> {
  const taken = effects.filter((effect) => effect.type === 'middlewareCall');
  let i = 0;
  for (const record of calls.values()) {
    const effect = taken[i++];
    if (effect !== undefined && effect.from === 'default' && record.defaultReason === '') record.defaultReason = 'unconnected';
  }
  return calls;
}
