import 'reflect-metadata';
import { onShutdownSignals, runMain } from '@funnel/platform';
import { startBillingService } from '@funnel/runtime';

void runMain(async () => {
  const running = await startBillingService();
  onShutdownSignals(() => running.close());
});
