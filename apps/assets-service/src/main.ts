import 'reflect-metadata';
import { onShutdownSignals, runMain } from '@funnel/platform';
import { startAssetsService } from '@funnel/runtime';

void runMain(async () => {
  const running = await startAssetsService();
  onShutdownSignals(() => running.close());
});
