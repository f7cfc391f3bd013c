import { ServiceError } from '@funnel/contracts';
import { costUpdatesOf, type ConversionToUpload } from '@funnel/integrations-domain';
import type { IntegrationDeliveryEntry } from '@funnel/reporting-feature';
import { DeliveryLog, answerText, type DeliveryCall } from './delivery-log';

const NOW = Date.parse('2026-03-11T08:00:00.000Z');
const CALL: DeliveryCall = { accountId: 'ACCOUNT00001', idIntegration: 'INTEGRATION1', provider: 'meta', jobId: 'SYNCJOB00001', attempt: 2 };

function conversion(eventId: string, value: number | null = 12.5): ConversionToUpload {
  return {
    eventId,
    clickId: 'fbclid-1',
    clickedAt: '2026-03-10T08:00:00.000Z',
    occurredAt: '2026-03-10T09:00:00.000Z',
    clientIp: '203.0.113.9',
    externalId: 'VISITOR00001',
    value,
    currency: null,
  };
}

describe('DeliveryLog', () => {
  let written: IntegrationDeliveryEntry[][];
  let log: DeliveryLog;
  beforeEach(() => {
    written = [];
    log = new DeliveryLog(
      async (entries) => void written.push([...entries]),
      () => NOW,
    );
  });

  it('given pulled cost rows, when logged, then each is one applied row naming the reporting cost job of its day', async () => {
    const costs = [
      { campaignId: '2381', day: '2026-03-10', spend: 9, currency: 'EUR' },
      { campaignId: '2382', day: '2026-03-10', spend: 0.125, currency: 'EUR' },
      { campaignId: '2381', day: '2026-03-11', spend: 1.5, currency: 'EUR' },
    ];
    const updates = costUpdatesOf(costs, 'SOURCE000001', 'Europe/Paris').map((u, i) => ({ ...u, costJobId: `COSTJOB0000${i}` }));
    await log.costsApplied(CALL, 'act_101', costs, updates);
    expect(written).toHaveLength(1);
    expect(written[0]).toEqual([
      {
        accountId: 'ACCOUNT00001',
        timeMs: NOW,
        idIntegration: 'INTEGRATION1',
        provider: 'meta',
        jobId: 'SYNCJOB00001',
        attempt: 2,
        kind: 'cost',
        adAccountId: 'act_101',
        goalId: '',
        reportingJobId: 'COSTJOB00000',
        cost: { campaignId: '2381', day: '2026-03-10', spend: '9', currency: 'EUR' },
        conversion: null,
        status: 'applied',
        answer: null,
      },
      expect.objectContaining({ reportingJobId: 'COSTJOB00000', cost: { campaignId: '2382', day: '2026-03-10', spend: '0.125', currency: 'EUR' } }),
      expect.objectContaining({ reportingJobId: 'COSTJOB00001', cost: { campaignId: '2381', day: '2026-03-11', spend: '1.5', currency: 'EUR' } }),
    ]);
  });

  it('given a pull that failed, when logged, then one failed row without a cost row says why', async () => {
    await log.costsFailed(CALL, 'act_101', ServiceError.badRequest('INTEGRATION.PROVIDER_REFUSED', 'pulling insights: Meta answered 400: bad field'));
    expect(written[0]).toEqual([
      expect.objectContaining({ kind: 'cost', cost: null, conversion: null, status: 'failed', answer: 'pulling insights: Meta answered 400: bad field' }),
    ]);
  });

  it('given a batch the provider answered, when logged, then each conversion is accepted with the answer, or rejected with its reason', async () => {
    await log.conversionsSent(
      CALL,
      { adAccountId: 'act_101', goalId: '555' },
      'CONVJOB00001',
      [conversion('HIT000000001:tx-1'), conversion('HIT000000002', null)],
      {
        accepted: 1,
        rejected: [{ eventId: 'HIT000000002', reason: 'event_time too old' }],
        answer: { events_received: 1, fbtrace_id: 'trace' },
      },
    );
    expect(written[0]).toEqual([
      expect.objectContaining({
        kind: 'conversions',
        adAccountId: 'act_101',
        goalId: '555',
        reportingJobId: 'CONVJOB00001',
        cost: null,
        conversion: { eventId: 'HIT000000001:tx-1', hitId: 'HIT000000001', transactionId: 'tx-1', value: '12.5' },
        status: 'accepted',
        answer: '{"events_received":1,"fbtrace_id":"trace"}',
      }),
      expect.objectContaining({
        conversion: { eventId: 'HIT000000002', hitId: 'HIT000000002', transactionId: '', value: '' },
        status: 'rejected',
        answer: 'event_time too old',
      }),
    ]);
  });

  it('given a batch whose call failed, when logged, then each conversion is failed with the reason', async () => {
    const error = ServiceError.conflict('INTEGRATION.NEEDS_REAUTH', 'sending conversions: Meta answered 401 (code 190); reauthorize the integration');
    await log.conversionsFailed(CALL, { adAccountId: 'act_101', goalId: '555' }, '', [conversion('HIT000000001:a:b')], error);
    expect(written[0]).toEqual([
      expect.objectContaining({
        conversion: { eventId: 'HIT000000001:a:b', hitId: 'HIT000000001', transactionId: 'a:b', value: '12.5' },
        status: 'failed',
        answer: 'sending conversions: Meta answered 401 (code 190); reauthorize the integration',
      }),
    ]);
  });
});

describe('answerText', () => {
  it('blanks anything shaped like a credential and cuts long answers', () => {
    expect(answerText({ access_token: 'EAAsecret', data: [1] })).toBe('{"access_token":"[redacted]","data":[1]}');
    expect(answerText('GET /x?access_token=EAAsecret&fields=id')).toBe('GET /x?access_token=[redacted]&fields=id');
    expect(answerText('authorization: Bearer EAAsecret.x-y')).toBe('authorization: Bearer [redacted]');
    expect(answerText(new Error('refresh_token: "r1" refused'))).toBe('refresh_token: "[redacted]" refused');
    expect(answerText('x'.repeat(5000))).toHaveLength(1000);
    expect(answerText(undefined)).toBeNull();
    expect(answerText({ events_received: 3 })).toBe('{"events_received":3}');
  });
});
