import { Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { OutboundFailure, OutboundHttp, OutboundRefusedError } from '@funnel/platform';
import type { JobDelivery } from '../queue/job-queue';
import { JobRecords } from './job-records';
import { QueueConsumer } from './queue-consumer';
import { PostbackPayload, PostbacksQueue, REPORTING_POSTBACKS_QUEUE, REPORTING_SETTINGS, ReportingSettings } from './reporting.tokens';

export const REPORTING_OUTBOUND = Symbol.for('funnel.reporting.Outbound');

/** A failed attempt: the queue retries it after its backoff. (A refusal of the SSRF rule is final at once.) */
class DeliveryFailed extends Error {}

/**
 * Sends traffic-source postbacks: a GET of the URL through the SSRF guard (OutboundHttp), 2xx and
 * 3xx count as delivered; anything else is retried by the postback queue with its backoff (5
 * attempts), and each attempt is recorded for GET /reporting/postbacks/.
 */
@Injectable()
export class PostbackSender implements OnApplicationBootstrap {
  private readonly logger = new Logger('ReportingPostbacks');

  constructor(
    @Inject(REPORTING_POSTBACKS_QUEUE) private readonly queue: PostbacksQueue,
    @Inject(REPORTING_OUTBOUND) private readonly http: OutboundHttp,
    @Inject(REPORTING_SETTINGS) private readonly settings: ReportingSettings,
    private readonly records: JobRecords,
  ) {}

  private readonly consumer = new QueueConsumer(this.queue, this.settings);

  async onApplicationBootstrap(): Promise<void> {
    await this.consumer.start((delivery) => this.deliver(delivery), {
      concurrency: this.settings.postbackConcurrency ?? 8,
      onExhausted: async ({ job, attempt }, error) => {
        const { jobId, deliveryId } = job.payload;
        await this.records.postbackAttempted(job.accountId, jobId, { deliveryId, attempt, outcome: 'failed', error: errorText(error) });
      },
    });
  }

  async deliver({ job, attempt }: JobDelivery<PostbackPayload>): Promise<void> {
    const { jobId, deliveryId } = job.payload;
    let failure: string | undefined;
    try {
      const response = await this.http.request({ url: job.payload.url, method: 'GET', maxResponseBytes: 1024 });
      if (response.status >= 400) failure = `HTTP ${response.status}`;
    } catch (error) {
      if (error instanceof OutboundRefusedError) {
        await this.records.postbackAttempted(job.accountId, jobId, { deliveryId, attempt, outcome: 'failed', error: errorText(error) });
        return;
      }
      failure = errorText(error);
    }
    if (failure === undefined) {
      await this.records.postbackAttempted(job.accountId, jobId, { deliveryId, attempt, outcome: 'delivered', error: null });
      return;
    }
    this.logger.warn({ jobId, deliveryId, attempt, error: failure }, 'postback delivery failed');
    await this.records.postbackAttempted(job.accountId, jobId, { deliveryId, attempt, outcome: 'retrying', error: failure });
    throw new DeliveryFailed(failure);
  }
}

function errorText(error: unknown): string {
  if (error instanceof OutboundFailure || error instanceof OutboundRefusedError) return `${error.code}: ${error.message}`;
  return error instanceof Error ? error.message : String(error);
}
