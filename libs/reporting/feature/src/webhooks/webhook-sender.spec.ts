import { ASSETS_WEBHOOK_DELIVER_SUBJECT, ASSETS_WEBHOOK_TARGETS_SUBJECT, type WebhookDeliverAnswer, type WebhookTarget } from '@funnel/contracts';
import type { ServiceClient } from '@funnel/platform';
import { aHit, type Hit } from '@funnel/reporting-domain';
import type { HitStore } from '../hits/hit-store';
import type { JobEnvelope } from '../queue/job-queue';
import type { ReportingSettings } from '../service/reporting.tokens';
import type { WebhookDeliveryPayload, WebhookJobPayload, WebhooksQueue } from './webhook-jobs';
import type { WebhookAttempt, WebhookLogStore } from './webhook-log-store';
import { WEBHOOK_MAX_ATTEMPTS, WebhookSender } from './webhook-sender';

const ACCOUNT = 'ACCOUNT00001';

/** The sender over fakes: assets-service answers `answers` in turn, the log keeps the attempts. */
function senderWith(answers: WebhookDeliverAnswer[], options: { settings?: ReportingSettings; targets?: WebhookTarget[]; hits?: Hit[] } = {}) {
  const attempts: WebhookAttempt[] = [];
  const queued: JobEnvelope<WebhookJobPayload>[] = [];
  const requests: { subject: string; body: Record<string, unknown> }[] = [];
  const log: WebhookLogStore = {
    attempted: async (attempt) => void attempts.push(attempt),
    settled: async (accountId, deliveryId) =>
      attempts.find((a) => a.accountId === accountId && a.deliveryId === deliveryId && a.outcome !== 'retrying')?.outcome as 'delivered' | 'failed' | undefined,
    find: async () => ({ summary: [], rows: [], rowsTotal: 0 }),
    close: async () => undefined,
  };
  const assets = {
    request: async (subject: string, payload: { body: Record<string, unknown> }) => {
      requests.push({ subject, body: payload.body });
      if (subject === ASSETS_WEBHOOK_TARGETS_SUBJECT) return { targets: options.targets ?? [] };
      const answer = answers.shift();
      if (!answer) throw new Error('no answer left');
      return answer;
    },
  } as unknown as ServiceClient;
  const hits = { getHits: async (_account: string, ids: string[]) => (options.hits ?? []).filter((hit) => ids.includes(hit.hitId)) } as unknown as HitStore;
  const queue = { enqueue: async (jobs: JobEnvelope<WebhookJobPayload>[]) => void queued.push(...jobs) } as unknown as WebhooksQueue;
  const sender = new WebhookSender(queue, log, hits, assets, options.settings ?? {});
  return { sender, attempts, queued, requests };
}

const delivery: WebhookDeliveryPayload = {
  kind: 'delivery',
  deliveryId: 'HIT000000001.WHCONFIG0001',
  eventId: 'HIT000000001',
  trigger: 'node_execution',
  idWebhookConfig: 'WHCONFIG0001',
  idNode: 'NODE00000001',
  idFunnel: 'FUNNEL000001',
  hitId: 'HIT000000001',
  body: { event_id: 'HIT000000001' },
};
const deliveryJob = (attempt: number, payload: WebhookJobPayload = delivery) => ({
  job: { jobId: 'job', type: payload.kind, accountId: ACCOUNT, queuedAt: '2026-03-01T00:00:00.000Z', payload },
  attempt,
  wait: <T>(pending: Promise<T>) => pending,
  isFirstOfAccount: async () => true,
  isNextAfter: async () => true,
  untilFirstOfAccount: async () => true,
});
const answered = (httpStatus: number | null, error: string | null = httpStatus === null ? 'timeout' : `HTTP ${httpStatus}`): WebhookDeliverAnswer => ({
  skipped: false,
  delivered: httpStatus !== null && httpStatus < 300,
  httpStatus,
  responseTimeMs: 12,
  error: httpStatus !== null && httpStatus < 300 ? null : error,
});
const outcomes = (attempts: WebhookAttempt[]) => attempts.map((a) => [a.attempt, a.outcome, a.httpStatus, a.error]);

describe('webhook deliveries: retries and giving up', () => {
  it('logs a failed attempt `retrying` and throws, so the queue retries it after its backoff', async () => {
    const { sender, attempts, requests } = senderWith([answered(500)]);
    await expect(sender.handle(deliveryJob(1) as never)).rejects.toThrow('HTTP 500');
    expect(outcomes(attempts)).toEqual([[1, 'retrying', 500, 'HTTP 500']]);
    expect(attempts[0]).toMatchObject({
      accountId: ACCOUNT,
      deliveryId: delivery.deliveryId,
      idWebhookConfig: 'WHCONFIG0001',
      idNode: 'NODE00000001',
      latencyMs: 12,
    });
    expect(requests[0]).toEqual({
      subject: ASSETS_WEBHOOK_DELIVER_SUBJECT,
      body: { accountId: ACCOUNT, idWebhookConfig: 'WHCONFIG0001', trigger: 'node_execution', deliveryId: delivery.deliveryId, body: delivery.body },
    });
  });

  it(`gives up at attempt ${WEBHOOK_MAX_ATTEMPTS}: logged \`failed\`, the job done, never sent again`, async () => {
    const { sender, attempts, requests } = senderWith([...Array.from({ length: WEBHOOK_MAX_ATTEMPTS - 1 }, () => answered(503)), answered(null)]);
    for (let n = 1; n < WEBHOOK_MAX_ATTEMPTS; n++) await expect(sender.handle(deliveryJob(n) as never)).rejects.toThrow();
    await expect(sender.handle(deliveryJob(WEBHOOK_MAX_ATTEMPTS) as never)).resolves.toBeUndefined();
    expect(outcomes(attempts).slice(-2)).toEqual([
      [WEBHOOK_MAX_ATTEMPTS - 1, 'retrying', 503, 'HTTP 503'],
      [WEBHOOK_MAX_ATTEMPTS, 'failed', null, 'timeout'],
    ]);
    // A redelivery after giving up reads the log and sends nothing.
    await expect(sender.handle(deliveryJob(WEBHOOK_MAX_ATTEMPTS + 1) as never)).resolves.toBeUndefined();
    expect(requests).toHaveLength(WEBHOOK_MAX_ATTEMPTS);
    expect(attempts).toHaveLength(WEBHOOK_MAX_ATTEMPTS);
  });

  it('takes the configured number of attempts', async () => {
    const { sender, attempts } = senderWith([answered(500), answered(500)], { settings: { webhookMaxAttempts: 2 } });
    await expect(sender.handle(deliveryJob(1) as never)).rejects.toThrow();
    await sender.handle(deliveryJob(2) as never);
    expect(outcomes(attempts)).toEqual([
      [1, 'retrying', 500, 'HTTP 500'],
      [2, 'failed', 500, 'HTTP 500'],
    ]);
  });

  it('gives up at once on a refused address or a bad URL (retrying changes nothing)', async () => {
    const { sender, attempts } = senderWith([answered(null, 'address refused: 10.0.0.1 is not a public address'), answered(null, 'invalid URL: nope')]);
    await sender.handle(deliveryJob(1) as never);
    await sender.handle(deliveryJob(1, { ...delivery, deliveryId: 'HIT000000002.WHCONFIG0001' }) as never);
    expect(attempts.map((a) => [a.deliveryId, a.outcome])).toEqual([
      ['HIT000000001.WHCONFIG0001', 'failed'],
      ['HIT000000002.WHCONFIG0001', 'failed'],
    ]);
  });

  it('logs a delivery `delivered` once; a redelivered job (the queue, the same event queued again) sends nothing', async () => {
    const { sender, attempts, requests } = senderWith([answered(500), answered(204)]);
    await expect(sender.handle(deliveryJob(1) as never)).rejects.toThrow();
    await sender.handle(deliveryJob(2) as never);
    await sender.handle(deliveryJob(3) as never);
    await sender.handle(deliveryJob(1) as never);
    expect(outcomes(attempts)).toEqual([
      [1, 'retrying', 500, 'HTTP 500'],
      [2, 'delivered', 204, null],
    ]);
    expect(requests).toHaveLength(2);
  });

  it('logs nothing for a delivery assets-service skips (the config changed since the event)', async () => {
    const { sender, attempts } = senderWith([{ skipped: true, reason: 'the webhook config is disabled' }]);
    await expect(sender.handle(deliveryJob(1) as never)).resolves.toBeUndefined();
    expect(attempts).toEqual([]);
  });
});

describe('webhook events: the fan-out to deliveries', () => {
  it('queues one delivery per (event, config), its id the event and config ids, its body built from the stored hit', async () => {
    const hit = aHit({ hitId: 'HIT000000001', idNode: 'NODE00000001', nodeType: 'webhook' });
    const { sender, queued, requests } = senderWith([], {
      hits: [hit, aHit({ hitId: 'HIT000000003', idFunnel: '' })],
      targets: [
        { idWebhookConfig: 'WHCONFIG0001', idNode: 'NODE00000001' },
        { idWebhookConfig: 'WHCONFIG0002', idNode: null },
      ],
    });
    await sender.handle(
      deliveryJob(1, {
        kind: 'event',
        trigger: 'conversion_triggered',
        events: [
          { eventId: 'JOB1:0', hitId: 'HIT000000001', conversion: { transactionId: 'T', payout: '1', time: '2026-03-01T00:00:00.000Z' } },
          { eventId: 'JOB1:1', hitId: 'HIT000000001', conversion: { transactionId: 'U', payout: '2', time: '2026-03-01T00:00:01.000Z' } },
          // Unknown, and without a funnel: no delivery.
          { eventId: 'JOB1:2', hitId: 'HIT000000404' },
          { eventId: 'JOB1:3', hitId: 'HIT000000003' },
        ],
      }) as never,
    );
    // One targets request for the funnel, whatever the number of its events.
    expect(requests.map((r) => [r.subject, r.body])).toEqual([
      [ASSETS_WEBHOOK_TARGETS_SUBJECT, { accountId: ACCOUNT, trigger: 'conversion_triggered', idFunnel: 'FUNNEL000001' }],
    ]);
    expect(queued.map((job) => [job.jobId, job.type, (job.payload as WebhookDeliveryPayload).idNode])).toEqual([
      ['JOB1:0.WHCONFIG0001', 'delivery', 'NODE00000001'],
      ['JOB1:0.WHCONFIG0002', 'delivery', ''],
      ['JOB1:1.WHCONFIG0001', 'delivery', 'NODE00000001'],
      ['JOB1:1.WHCONFIG0002', 'delivery', ''],
    ]);
    expect((queued[1].payload as WebhookDeliveryPayload).body).toMatchObject({
      request_id: 'JOB1:0.WHCONFIG0002',
      webhook: { id: 'WHCONFIG0002', node_id: null },
      conversion: { transaction_id: 'T', payout: '1' },
    });
  });
});
