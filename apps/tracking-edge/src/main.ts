import 'reflect-metadata';
import { onShutdownSignals, runMain } from '@funnel/platform';
import { startTrackingEdge } from '@funnel/runtime';

void runMain(async () => {
  const running = await startTrackingEdge();
  onShutdownSignals(() => running.close());
});
