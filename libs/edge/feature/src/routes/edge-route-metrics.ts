import type { Registry } from 'prom-client';
import { BatchedCounter, BatchedHistogram, type CounterSeries, type HistogramSeries } from './batched-metrics';

/** What a visitor request ended in. */
export type VisitorOutcome = 'redirect' | 'meta_refresh' | 'view' | 'postback' | 'probe' | 'not_found' | 'dead_end' | 'bad_request' | 'unavailable';

export type VisitorRoute = 'entrance' | 'action' | 'view' | 'postback';

/**
 * The visitor routes' series: `edge_visitor_requests_total{route, outcome}` and
 * `edge_walk_duration_seconds{route}` (the engine's walk alone, without the session read and the
 * hand-off of the hits), `edge_request_duration_seconds{route}` (the whole request: session read,
 * walk, session write and hits made durable). Counted in memory per label set and folded into the
 * prom-client metrics when they are read (see batched-metrics).
 */
export class EdgeRouteMetrics {
  private readonly requests: BatchedCounter<'route' | 'outcome'>;
  private readonly walks: BatchedHistogram<'route'>;
  private readonly durations: BatchedHistogram<'route'>;
  private readonly requestSeries: Partial<Record<VisitorRoute, Partial<Record<VisitorOutcome, CounterSeries<'route' | 'outcome'>>>>> = {};
  private readonly walkSeries: Partial<Record<VisitorRoute, HistogramSeries<'route'>>> = {};
  private readonly durationSeries: Partial<Record<VisitorRoute, HistogramSeries<'route'>>> = {};

  constructor(registry: Registry) {
    this.requests = new BatchedCounter({
      name: 'edge_visitor_requests_total',
      help: 'Visitor requests of the tracking edge by route (entrance, action, view, postback) and outcome',
      labelNames: ['route', 'outcome'],
      registers: [registry],
    });
    this.walks = new BatchedHistogram({
      name: 'edge_walk_duration_seconds',
      help: 'Time the routing engine took to walk one visitor request',
      labelNames: ['route'],
      buckets: [0.00001, 0.000025, 0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.05],
      registers: [registry],
    });
    this.durations = new BatchedHistogram({
      name: 'edge_request_duration_seconds',
      help: 'Time from a visitor request to its answer (session, walk, session write, hits durable)',
      labelNames: ['route'],
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers: [registry],
    });
  }

  answered(route: VisitorRoute, outcome: VisitorOutcome, seconds: number): void {
    const byOutcome = (this.requestSeries[route] ??= {});
    (byOutcome[outcome] ??= this.requests.series({ route, outcome })).inc();
    (this.durationSeries[route] ??= this.durations.series({ route })).observe(seconds);
  }

  walked(route: VisitorRoute, seconds: number): void {
    (this.walkSeries[route] ??= this.walks.series({ route })).observe(seconds);
  }
}
