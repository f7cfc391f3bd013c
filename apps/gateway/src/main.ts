import 'reflect-metadata';
import { onShutdownSignals, runMain } from '@funnel/platform';
import { startGateway } from '@funnel/runtime';

void runMain(async () => {
  const running = await startGateway();
  onShutdownSignals(() => running.close());
});
