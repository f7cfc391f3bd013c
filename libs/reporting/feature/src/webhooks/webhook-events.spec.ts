import { aHit } from '@funnel/reporting-domain';
import type { JobEnvelope } from '../queue/job-queue';
import { nodeExecutionJobs, updateEventJobs, withWebhookEvents } from './webhook-events';
import type { WebhookEventsPayload, WebhookJobPayload, WebhooksQueue } from './webhook-jobs';

const QUEUED = '2026-03-01T10:00:00.000Z';
const hitInput = (n: number, fields: Record<string, unknown> = {}) => {
  const { conversions: _c, customEvents: _e, postbackCalled: _p, ...hit } = aHit({ hitId: `HIT${String(n).padStart(9, '0')}`, nodeType: 'webhook' });
  return { ...hit, ...fields } as Record<string, unknown>;
};
const payloadOf = (job: JobEnvelope<WebhookJobPayload>) => job.payload as WebhookEventsPayload;

describe('node_execution events of ingested hits', () => {
  it('makes one event per hit of a webhook node, its id the hit id, in one job per account', () => {
    const jobs = nodeExecutionJobs(
      [
        hitInput(1, { idNode: 'NODE00000007' }),
        hitInput(2, { nodeType: 'landerGroup' }),
        hitInput(3, { accountId: 'ACCOUNT00002' }),
        hitInput(4),
        hitInput(5, { nodeType: undefined }),
      ],
      QUEUED,
    );
    expect(jobs.map((job) => [job.accountId, job.type, job.queuedAt, payloadOf(job).trigger, payloadOf(job).events])).toEqual([
      [
        'ACCOUNT00001',
        'event',
        QUEUED,
        'node_execution',
        [
          { eventId: 'HIT000000001', hitId: 'HIT000000001', idNode: 'NODE00000007' },
          { eventId: 'HIT000000004', hitId: 'HIT000000004', idNode: 'NODE00000001' },
        ],
      ],
      ['ACCOUNT00002', 'event', QUEUED, 'node_execution', [{ eventId: 'HIT000000003', hitId: 'HIT000000003', idNode: 'NODE00000001' }]],
    ]);
  });

  it('skips hits that are not valid, and gives the same job id for the same hits (the queue drops the second)', () => {
    const inputs = [hitInput(1), hitInput(2, { time: 'yesterday' }), null, 'text'];
    const first = nodeExecutionJobs(inputs, QUEUED);
    expect(first.map((job) => payloadOf(job).events.map((e) => e.eventId))).toEqual([['HIT000000001']]);
    expect(nodeExecutionJobs([hitInput(1)], '2026-03-02T00:00:00.000Z')[0].jobId).toBe(first[0].jobId);
    expect(nodeExecutionJobs([hitInput(9)], QUEUED)[0].jobId).not.toBe(first[0].jobId);
  });

  it('splits an account with more than 1,000 webhook hits into jobs of 1,000 events', () => {
    const jobs = nodeExecutionJobs(
      Array.from({ length: 2001 }, (_, i) => hitInput(i)),
      QUEUED,
    );
    expect(jobs.map((job) => payloadOf(job).events.length)).toEqual([1000, 1000, 1]);
    expect(new Set(jobs.map((job) => job.jobId)).size).toBe(3);
  });

  it('queues the events once the hits are ingested, and not when the ingest fails', async () => {
    const queued: JobEnvelope<WebhookJobPayload>[] = [];
    const queue = { enqueue: async (jobs: JobEnvelope<WebhookJobPayload>[]) => void queued.push(...jobs) } as unknown as WebhooksQueue;
    const ingest = withWebhookEvents(async (inputs) => ({ accepted: inputs.length }) as never, queue);
    await ingest([hitInput(1), hitInput(2, { nodeType: 'offerGroup' })]);
    expect(queued.map((job) => payloadOf(job).events.map((e) => e.hitId))).toEqual([['HIT000000001']]);
    const failing = withWebhookEvents(async () => Promise.reject(new Error('disk full')), queue);
    await expect(failing([hitInput(3)])).rejects.toThrow('disk full');
    expect(queued).toHaveLength(1);
  });
});

describe('conversion and custom event events of applied update jobs', () => {
  const conversions = (hits: Record<string, unknown>[], fields: Record<string, unknown> = {}): JobEnvelope<unknown> => ({
    jobId: 'JOB000000001',
    type: 'conversions',
    accountId: 'ACCOUNT00001',
    queuedAt: QUEUED,
    payload: { hits, postbackCalls: 'none', overridePayout: null, disablePostbacks: false, forcePostbacks: false, ...fields },
  });

  it('makes one conversion_triggered event per added or replaced conversion (its time in UTC), none for a removal (payout -1)', () => {
    const jobs = updateEventJobs(
      conversions([
        { hitId: 'HIT000000001', payout: '2.5', transactionId: 'T-1', time: '2026-03-01T10:00:00+01:00' },
        { hitId: 'HIT000000002', payout: '-1', transactionId: 'T-2' },
        { hitId: 'HIT000000003', payout: 4 },
      ]),
    );
    expect(jobs).toHaveLength(1);
    expect(jobs[0]).toMatchObject({ jobId: 'conv-JOB000000001-0', type: 'event', accountId: 'ACCOUNT00001' });
    expect(payloadOf(jobs[0])).toEqual({
      kind: 'event',
      trigger: 'conversion_triggered',
      events: [
        { eventId: 'JOB000000001:0', hitId: 'HIT000000001', conversion: { transactionId: 'T-1', payout: '2.5', time: '2026-03-01T09:00:00.000Z' } },
        { eventId: 'JOB000000001:2', hitId: 'HIT000000003', conversion: { transactionId: '', payout: '4', time: QUEUED } },
      ],
    });
  });

  it("takes the job's override payout", () => {
    const [job] = updateEventJobs(conversions([{ hitId: 'HIT000000001', payout: '2.5' }], { overridePayout: '7' }));
    expect(payloadOf(job).events.map((e) => e.conversion?.payout)).toEqual(['7']);
  });

  it('fires only for the rows that changed a hit: a noop row (the conversion stored already), an unknown hit or a failed row fire nothing', () => {
    const job = conversions([
      { hitId: 'HIT000000001', payout: '1', transactionId: 'T-1' },
      { hitId: 'HIT000000001', payout: '1', transactionId: 'T-1' },
      { hitId: 'HIT000000404', payout: '1' },
      { hitId: 'HIT000000002', payout: '3' },
    ]);
    expect(payloadOf(updateEventJobs(job, [0, 3])[0]).events.map((e) => e.eventId)).toEqual(['JOB000000001:0', 'JOB000000001:3']);
    expect(updateEventJobs(job, [])).toEqual([]);
  });

  it('makes one custom_event_triggered event per custom event row that changed its hit', () => {
    const jobs = updateEventJobs(
      {
        jobId: 'JOB000000002',
        type: 'customevents',
        accountId: 'ACCOUNT00001',
        queuedAt: QUEUED,
        payload: {
          hits: [
            { hitId: 'HIT000000001', eventNumber: 3, count: 2, time: '2026-03-01T09:30:00Z' },
            { hitId: 'HIT000000002', eventNumber: 1, count: 1 },
            { hitId: 'HIT000000003', eventNumber: 10, count: 5 },
          ],
          postbackCalls: 'none',
          disablePostbacks: false,
        },
      },
      [0, 1],
    );
    expect(jobs.map((job) => job.jobId)).toEqual(['ce-JOB000000002-0']);
    expect(payloadOf(jobs[0])).toEqual({
      kind: 'event',
      trigger: 'custom_event_triggered',
      events: [
        { eventId: 'JOB000000002:0', hitId: 'HIT000000001', customEvent: { eventNumber: 3, count: 2, time: '2026-03-01T09:30:00.000Z' } },
        { eventId: 'JOB000000002:1', hitId: 'HIT000000002', customEvent: { eventNumber: 1, count: 1, time: QUEUED } },
      ],
    });
  });

  it('fires nothing for cost and reset jobs', () => {
    for (const type of ['cost', 'reset'])
      expect(updateEventJobs({ jobId: 'JOB000000003', type, accountId: 'ACCOUNT00001', queuedAt: QUEUED, payload: { segments: [{}] } }, [0])).toEqual([]);
  });

  it('splits a job of more than 1,000 events into jobs of 1,000, with stable ids', () => {
    const hits = Array.from({ length: 2500 }, (_, i) => ({ hitId: `HIT${String(i).padStart(9, '0')}`, payout: '1' }));
    const jobs = updateEventJobs(conversions(hits));
    expect(jobs.map((job) => [job.jobId, payloadOf(job).events.length])).toEqual([
      ['conv-JOB000000001-0', 1000],
      ['conv-JOB000000001-1', 1000],
      ['conv-JOB000000001-2', 500],
    ]);
    expect(payloadOf(jobs[2]).events[0].eventId).toBe('JOB000000001:2000');
  });
});
