// One contract for both integration deliveries log stores (DuckDB, ClickHouse on chdb).
import type { IntegrationDeliveryEntry, IntegrationDeliveryLogQuery, IntegrationDeliveryLogStore } from './delivery-log-store';

const ACCOUNT = 'ACCOUNT00001';
const OTHER = 'ACCOUNT00002';
const T0 = Date.parse('2026-11-20T10:00:00Z');
const INTEGRATION = 'INTEGRATION1';

/** A cost row applied by job `jobId`, logged `ms` after T0. */
export function costEntry(jobId: string, ms: number, fields: Partial<IntegrationDeliveryEntry> = {}): IntegrationDeliveryEntry {
  return {
    accountId: ACCOUNT,
    timeMs: T0 + ms,
    idIntegration: INTEGRATION,
    provider: 'meta',
    jobId,
    attempt: 1,
    kind: 'cost',
    adAccountId: 'act_101',
    goalId: '',
    reportingJobId: 'COSTJOB00001',
    cost: { campaignId: '2381', day: '2026-11-20', spend: '9.5', currency: 'EUR' },
    conversion: null,
    status: 'applied',
    answer: null,
    ...fields,
  };
}

/** A conversion sent by job `jobId`, logged `ms` after T0. */
export function conversionEntry(jobId: string, ms: number, hitId: string, fields: Partial<IntegrationDeliveryEntry> = {}): IntegrationDeliveryEntry {
  return {
    ...costEntry(jobId, ms),
    kind: 'conversions',
    goalId: '555',
    reportingJobId: 'CONVJOB00001',
    cost: null,
    conversion: { eventId: `${hitId}:tx-1`, hitId, transactionId: 'tx-1', value: '12.5' },
    status: 'accepted',
    answer: '{"events_received":2}',
    ...fields,
  };
}

const window = (fields: Partial<IntegrationDeliveryLogQuery> = {}): IntegrationDeliveryLogQuery => ({
  accountId: ACCOUNT,
  startMs: T0 - 3600_000,
  endMs: T0 + 3600_000,
  start: 0,
  length: 100,
  ...fields,
});

/**
 * The contract every integration deliveries log store meets (DuckDB embedded, ClickHouse): the same
 * rows give the same page and total. `open` gives an empty store.
 */
export function describeIntegrationDeliveryLogStoreContract(name: string, open: () => Promise<IntegrationDeliveryLogStore>): void {
  describe(`${name}: the integration deliveries log contract`, () => {
    let store: IntegrationDeliveryLogStore;
    beforeEach(async () => {
      store = await open();
    });
    afterEach(async () => {
      await store.close();
    });

    it('given cost rows and conversions logged, when the window is read, then they come newest first with every field, and another account sees none', async () => {
      await store.logged([
        costEntry('COSTSYNC0001', 0),
        costEntry('COSTSYNC0001', 0, { cost: { campaignId: '2382', day: '2026-11-20', spend: '0.25', currency: 'EUR' } }),
      ]);
      await store.logged([
        conversionEntry('UPLOAD000001', 1000, 'HIT000000001'),
        conversionEntry('UPLOAD000001', 1000, 'HIT000000002', { status: 'rejected', answer: 'event_time is too old' }),
      ]);
      await store.logged([costEntry('COSTSYNC0002', 2000, { accountId: OTHER })]);
      const page = await store.find(window());
      expect(page.rowsTotal).toBe(4);
      expect(page.rows).toEqual([
        {
          time: new Date(T0 + 1000).toISOString(),
          idIntegration: INTEGRATION,
          provider: 'meta',
          jobId: 'UPLOAD000001',
          attempt: 1,
          kind: 'conversions',
          adAccountId: 'act_101',
          goalId: '555',
          reportingJobId: 'CONVJOB00001',
          cost: null,
          conversion: { eventId: 'HIT000000002:tx-1', hitId: 'HIT000000002', transactionId: 'tx-1', value: '12.5' },
          status: 'rejected',
          answer: 'event_time is too old',
        },
        expect.objectContaining({ jobId: 'UPLOAD000001', conversion: expect.objectContaining({ hitId: 'HIT000000001' }), status: 'accepted' }),
        expect.objectContaining({ jobId: 'COSTSYNC0001', cost: { campaignId: '2382', day: '2026-11-20', spend: '0.25', currency: 'EUR' } }),
        {
          time: new Date(T0).toISOString(),
          idIntegration: INTEGRATION,
          provider: 'meta',
          jobId: 'COSTSYNC0001',
          attempt: 1,
          kind: 'cost',
          adAccountId: 'act_101',
          goalId: '',
          reportingJobId: 'COSTJOB00001',
          cost: { campaignId: '2381', day: '2026-11-20', spend: '9.5', currency: 'EUR' },
          conversion: null,
          status: 'applied',
          answer: null,
        },
      ]);
      expect((await store.find(window({ accountId: OTHER }))).rows.map((r) => r.jobId)).toEqual(['COSTSYNC0002']);
    });

    it('keeps a failed pull (no cost row) and a failed call of a later attempt beside the first', async () => {
      await store.logged([costEntry('COSTSYNC0001', 0, { cost: null, reportingJobId: '', status: 'failed', answer: 'Meta answered 500' })]);
      await store.logged([costEntry('COSTSYNC0001', 5000, { attempt: 2 })]);
      const rows = (await store.find(window())).rows;
      expect(rows.map((r) => [r.attempt, r.status, r.cost?.campaignId ?? null, r.answer])).toEqual([
        [2, 'applied', '2381', null],
        [1, 'failed', null, 'Meta answered 500'],
      ]);
    });

    it('filters by integration, kind, status and job, and pages without overlap', async () => {
      await store.logged([
        costEntry('COSTSYNC0001', 1),
        costEntry('COSTSYNC0001', 1, { cost: { campaignId: '9', day: '2026-11-19', spend: '1', currency: 'EUR' } }),
      ]);
      await store.logged([
        conversionEntry('UPLOAD000001', 2, 'HIT000000001'),
        conversionEntry('UPLOAD000001', 2, 'HIT000000002', { status: 'failed', answer: 'code 190' }),
        conversionEntry('UPLOAD000002', 3, 'HIT000000003', { idIntegration: 'INTEGRATION2' }),
      ]);
      const jobs = async (q: Partial<IntegrationDeliveryLogQuery>) =>
        (await store.find(window(q))).rows.map((r) => `${r.jobId}/${r.conversion?.hitId ?? r.cost?.campaignId}`);
      expect(await jobs({ kinds: ['cost'] })).toEqual(['COSTSYNC0001/9', 'COSTSYNC0001/2381']);
      expect(await jobs({ statuses: ['failed'] })).toEqual(['UPLOAD000001/HIT000000002']);
      expect(await jobs({ integrationIds: ['INTEGRATION2'] })).toEqual(['UPLOAD000002/HIT000000003']);
      expect(await jobs({ jobIds: ['UPLOAD000001', 'UPLOAD000002'], statuses: ['accepted'] })).toEqual([
        'UPLOAD000002/HIT000000003',
        'UPLOAD000001/HIT000000001',
      ]);
      const all = await jobs({});
      expect(all).toHaveLength(5);
      const pages = [...(await jobs({ start: 0, length: 2 })), ...(await jobs({ start: 2, length: 2 })), ...(await jobs({ start: 4, length: 2 }))];
      expect(pages).toEqual(all);
      expect(await store.find(window({ start: 9 }))).toEqual({ rows: [], rowsTotal: 5 });
      expect(await jobs({ startMs: T0 + 2, endMs: T0 + 3 })).toEqual(['UPLOAD000001/HIT000000002', 'UPLOAD000001/HIT000000001']);
    });

    it('logs a batch of a thousand conversions in one write', async () => {
      const batch = Array.from({ length: 1000 }, (_, i) => conversionEntry('UPLOAD000001', 0, `HIT${String(i).padStart(9, '0')}`));
      await store.logged(batch);
      await store.logged([]);
      const page = await store.find(window({ length: 1000 }));
      expect(page.rowsTotal).toBe(1000);
      expect(new Set(page.rows.map((r) => r.conversion!.eventId)).size).toBe(1000);
    });
  });
}
