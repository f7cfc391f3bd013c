import 'reflect-metadata';
import { onShutdownSignals, runMain } from '@funnel/platform';
import { startReportingService } from '@funnel/runtime';

void runMain(async () => {
  const running = await startReportingService();
  onShutdownSignals(() => running.close());
});
