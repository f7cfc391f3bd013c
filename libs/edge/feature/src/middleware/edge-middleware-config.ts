// The edge's middleware settings (add them to the tracking edge's and the standalone's spec).
import { int, type Config } from '@funnel/platform';

export const edgeMiddlewareConfig = {
  /** The most one visitor request spends on middleware calls (all its middleware nodes together); a call gets the least of its config's timeout and what is left. */
  EDGE_REQUEST_BUDGET_MS: int({ min: 100, max: 30_000, default: 10_000 }),
  /** Middleware calls in flight to one destination origin (scheme, host, port) at most. */
  EDGE_MIDDLEWARE_CONCURRENCY: int({ min: 1, max: 10_000, default: 64 }),
  /** Middleware calls waiting for a slot of one origin at most; beyond, a call takes its default route at once (`overloaded`). */
  EDGE_MIDDLEWARE_QUEUE: int({ min: 0, max: 100_000, default: 256 }),
};

export type EdgeMiddlewareConfig = Config<typeof edgeMiddlewareConfig>;

export function edgeMiddlewareLimitsFrom(config: EdgeMiddlewareConfig): { budgetMs: number; limits: { concurrency: number; queue: number } } {
  return { budgetMs: config.EDGE_REQUEST_BUDGET_MS, limits: { concurrency: config.EDGE_MIDDLEWARE_CONCURRENCY, queue: config.EDGE_MIDDLEWARE_QUEUE } };
}
