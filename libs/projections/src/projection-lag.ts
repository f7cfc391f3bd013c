import type { EventStore } from '@funnel/eventstore';
import { Gauge, type Registry } from 'prom-client';
import { PROJECTION_LAG_LIMIT, runningProjections } from './projection-runner';

export const PROJECTION_LAG_METRIC = 'projection_lag_events';

/**
 * `projection_lag_events{projection}`: for each projection running on `eventStore`, the events of
 * its streams in the log that it does not reflect yet (0 when caught up; capped at
 * PROJECTION_LAG_LIMIT). Counted when the registry is scraped, so it costs nothing in between.
 */
export function registerProjectionLagMetric(registry: Registry, eventStore: EventStore): void {
  if (registry.getSingleMetric(PROJECTION_LAG_METRIC)) return;
  new Gauge({
    name: PROJECTION_LAG_METRIC,
    help: `Events a projection has yet to apply, per projection (at most ${PROJECTION_LAG_LIMIT})`,
    labelNames: ['projection'],
    registers: [registry],
    async collect() {
      // A projection that stopped since the last scrape must not keep its last value.
      this.reset();
      const runners = runningProjections(eventStore);
      const lags = await Promise.all(runners.map((runner) => runner.lag().catch(() => undefined)));
      runners.forEach((runner, index) => {
        const lag = lags[index];
        if (lag !== undefined) this.set({ projection: runner.name }, lag);
      });
    },
  });
}
