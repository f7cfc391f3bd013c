import 'reflect-metadata';
import { onShutdownSignals, runMain } from '@funnel/platform';
import { startIdentityService } from '@funnel/runtime';

void runMain(async () => {
  const running = await startIdentityService();
  onShutdownSignals(() => running.close());
});
