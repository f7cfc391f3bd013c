import type { JobConsumerOptions, JobDelivery, JobQueue } from '../queue/job-queue';
import type { ReportingSettings } from './reporting.tokens';

/**
 * Starts a provider's consumer of one queue from its `onApplicationBootstrap`: once, although Nest's
 * microservice runs the bootstrap hooks twice (context init, then module registration), and not at
 * all in a process that only accepts updates (`acceptOnly`).
 */
export class QueueConsumer<P> {
  private started = false;

  constructor(
    private readonly queue: JobQueue<P>,
    private readonly settings: Pick<ReportingSettings, 'acceptOnly'>,
  ) {}

  async start(handler: (delivery: JobDelivery<P>) => Promise<void>, options: JobConsumerOptions<P>): Promise<void> {
    if (this.settings.acceptOnly || this.started) return;
    this.started = true;
    await this.queue.consume(handler, options);
  }
}
