import 'reflect-metadata';
import { onShutdownSignals, runMain } from '@funnel/platform';
import { startScriptsService } from '@funnel/runtime';

void runMain(async () => {
  const running = await startScriptsService();
  onShutdownSignals(() => running.close());
});
