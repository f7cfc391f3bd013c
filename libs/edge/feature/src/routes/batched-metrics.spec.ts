import { Counter, Histogram, Registry } from 'prom-client';
import { BatchedCounter, BatchedHistogram } from './batched-metrics';
import { EdgeRouteMetrics } from './edge-route-metrics';

const BUCKETS = [0.5, 0.001, 0.25, 2];

/** The same series made by prom-client itself and by the batched classes, in two registries. */
function pair() {
  const plain = new Registry();
  const batched = new Registry();
  const counters = {
    plain: new Counter({ name: 'requests_total', help: 'h', labelNames: ['route', 'outcome'], registers: [plain] }),
    batched: new BatchedCounter({ name: 'requests_total', help: 'h', labelNames: ['route', 'outcome'], registers: [batched] }),
  };
  const histograms = {
    plain: new Histogram({ name: 'duration_seconds', help: 'h', labelNames: ['route'], buckets: BUCKETS, registers: [plain] }),
    batched: new BatchedHistogram({ name: 'duration_seconds', help: 'h', labelNames: ['route'], buckets: BUCKETS, registers: [batched] }),
  };
  // Made in the order of their first counts (series appear in /metrics in the order they were made, as prom-client's in the order of their first counts).
  const series = {
    b: counters.batched.series({ route: 'action', outcome: 'dead_end' }),
    a: counters.batched.series({ route: 'entrance', outcome: 'redirect' }),
    action: histograms.batched.series({ route: 'action' }),
    entrance: histograms.batched.series({ route: 'entrance' }),
  };
  return { plain, batched, counters, histograms, series };
}

describe('BatchedCounter and BatchedHistogram', () => {
  it('answer /metrics as prom-client does for the same counts and observations, read after read', async () => {
    const { plain, batched, counters, histograms, series } = pair();
    // Before any count: no series, as prom-client.
    expect(await batched.metrics()).toBe(await plain.metrics());
    // Values on a bound, between bounds and above the last (only +Inf); dyadic, so the sums add exactly.
    for (const value of [0.5, 0.0009765625, 3, 0.25, 1.5, 0.125]) {
      histograms.plain.observe({ route: 'action' }, value);
      series.action.observe(value);
      counters.plain.inc({ route: 'action', outcome: 'dead_end' });
      series.b.inc();
    }
    histograms.plain.observe({ route: 'entrance' }, 0.0625);
    series.entrance.observe(0.0625);
    counters.plain.inc({ route: 'entrance', outcome: 'redirect' });
    series.a.inc();
    expect(await batched.metrics()).toBe(await plain.metrics());
    // Read again with nothing new, then more.
    expect(await batched.metrics()).toBe(await plain.metrics());
    histograms.plain.observe({ route: 'entrance' }, 2);
    series.entrance.observe(2);
    counters.plain.inc({ route: 'entrance', outcome: 'redirect' });
    series.a.inc();
    expect(await batched.metrics()).toBe(await plain.metrics());
    expect(await batched.getMetricsAsJSON()).toEqual(await plain.getMetricsAsJSON());
  });

  it('forget what they counted at a reset, read or not', async () => {
    const { plain, batched, counters, histograms, series } = pair();
    series.action.observe(0.25);
    series.b.inc();
    await batched.metrics();
    series.action.observe(0.5);
    series.b.inc();
    batched.resetMetrics();
    plain.resetMetrics();
    expect(await batched.metrics()).toBe(await plain.metrics());
    series.entrance.observe(0.001);
    histograms.plain.observe({ route: 'entrance' }, 0.001);
    series.a.inc();
    counters.plain.inc({ route: 'entrance', outcome: 'redirect' });
    expect(await batched.metrics()).toBe(await plain.metrics());
  });
});

describe('EdgeRouteMetrics', () => {
  it('keeps the series names and labels of the visitor routes', async () => {
    const registry = new Registry();
    const metrics = new EdgeRouteMetrics(registry);
    metrics.walked('entrance', 0.00002);
    metrics.answered('entrance', 'redirect', 0.002);
    metrics.answered('entrance', 'redirect', 0.003);
    metrics.answered('action', 'dead_end', 0.0004);
    const text = await registry.metrics();
    expect(text).toContain('edge_visitor_requests_total{route="entrance",outcome="redirect"} 2');
    expect(text).toContain('edge_visitor_requests_total{route="action",outcome="dead_end"} 1');
    expect(text).toContain('edge_walk_duration_seconds_bucket{le="0.000025",route="entrance"} 1');
    expect(text).toContain('edge_request_duration_seconds_bucket{le="0.0025",route="entrance"} 1');
    expect(text).toContain('edge_request_duration_seconds_count{route="entrance"} 2');
    expect(text).toContain('edge_request_duration_seconds_bucket{le="+Inf",route="action"} 1');
  });
});
