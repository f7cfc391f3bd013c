import 'reflect-metadata';
import { onShutdownSignals, runMain } from '@funnel/platform';
import { startStandalone } from '@funnel/runtime';

void runMain(async () => {
  const running = await startStandalone();
  onShutdownSignals(() => running.close());
});
