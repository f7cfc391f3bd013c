import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { EdgeSnapshot } from './edge-snapshot';

/**
 * The snapshot's series on the app's registry: `edge_snapshot_ready` (1 once loaded),
 * `edge_snapshot_assets`, `edge_snapshot_custom_domains`, `edge_snapshot_loads_total`,
 * `edge_snapshot_gaps_total`, `edge_snapshot_events_applied_total`, and
 * `edge_snapshot_event_delay_seconds` (an event's occurredAt to the snapshot reflecting it: the lag).
 */
export function registerEdgeSnapshotMetrics(registry: Registry, snapshot: EdgeSnapshot): () => void {
  const stats = () => snapshot.stats;
  new Gauge({
    name: 'edge_snapshot_ready',
    help: 'Whether the asset snapshot is loaded (1) or not (0).',
    registers: [registry],
    collect() {
      this.set(stats().ready ? 1 : 0);
    },
  });
  new Gauge({
    name: 'edge_snapshot_assets',
    help: 'Routing assets held (deleted ones kept as tombstones included).',
    registers: [registry],
    collect() {
      this.set(stats().assets);
    },
  });
  new Gauge({
    name: 'edge_snapshot_custom_domains',
    help: 'Custom domains known.',
    registers: [registry],
    collect() {
      this.set(stats().domains);
    },
  });
  new Counter({
    name: 'edge_snapshot_loads_total',
    help: 'Full loads of the snapshot (the first and every reload).',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(stats().loads);
    },
  });
  new Counter({
    name: 'edge_snapshot_gaps_total',
    help: 'Events showing a missed event of their asset (each reloads).',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(stats().gaps);
    },
  });
  new Counter({
    name: 'edge_snapshot_events_applied_total',
    help: 'Asset events applied to the snapshot.',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(stats().eventsApplied);
    },
  });
  const delay = new Histogram({
    name: 'edge_snapshot_event_delay_seconds',
    help: "Time from an asset event's occurredAt to the snapshot reflecting it.",
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 60],
    registers: [registry],
  });
  return snapshot.onApplied((_event, delayMs) => delay.observe(delayMs / 1000));
}
