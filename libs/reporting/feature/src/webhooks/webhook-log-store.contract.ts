import type { WebhookLogRow } from '@funnel/contracts';
import { WEBHOOK_SUMMARY_MAX, type WebhookAttempt, type WebhookLogQuery, type WebhookLogStore } from './webhook-log-store';

const ACCOUNT = 'ACCOUNT00001';
const OTHER = 'ACCOUNT00002';
const T0 = Date.parse('2026-03-01T00:00:00.000Z');
const MINUTE = 60_000;
const CONFIG = 'WHCONFIG0001';
const NODE = 'NODE00000001';

/** Attempt `attempt` of delivery `deliveryId`, ended `minutes` after T0. */
export function attempt(deliveryId: string, n: number, minutes: number, fields: Partial<WebhookAttempt> = {}): WebhookAttempt {
  return {
    accountId: ACCOUNT,
    deliveryId,
    eventId: deliveryId.split('.')[0],
    trigger: 'node_execution',
    idWebhookConfig: CONFIG,
    idNode: NODE,
    idFunnel: 'FUNNEL000001',
    hitId: 'HIT000000001',
    attempt: n,
    outcome: 'delivered',
    httpStatus: 200,
    latencyMs: 10,
    error: null,
    timeMs: T0 + minutes * MINUTE,
    ...fields,
  };
}

const window = (fields: Partial<WebhookLogQuery> = {}): WebhookLogQuery => ({
  accountId: ACCOUNT,
  startMs: T0,
  endMs: T0 + 24 * 60 * MINUTE,
  start: 0,
  length: 100,
  ...fields,
});

const keys = (rows: WebhookLogRow[]) => rows.map((r) => `${r.deliveryId}#${r.attempt}`);

/**
 * The contract every webhook log store meets (DuckDB embedded, ClickHouse): the same attempts give
 * the same summary, page and total. `open` gives an empty store.
 */
export function describeWebhookLogStoreContract(name: string, open: () => Promise<WebhookLogStore>): void {
  describe(`${name}: webhook log contract`, () => {
    let store: WebhookLogStore;
    const log = async (...attempts: WebhookAttempt[]) => {
      for (const a of attempts) await store.attempted(a);
    };

    beforeEach(async () => {
      store = await open();
    });

    afterEach(async () => {
      await store.close();
    });

    it('lists the attempts of the window newest first, with every field', async () => {
      await log(
        attempt('HITA.WHCONFIG0001', 1, 10, { outcome: 'retrying', httpStatus: 503, latencyMs: 40.4, error: 'HTTP 503' }),
        attempt('HITA.WHCONFIG0001', 2, 12),
        attempt('JOB1:0.WHCONFIG0001', 1, 30, {
          trigger: 'conversion_triggered',
          eventId: 'JOB1:0',
          idNode: '',
          idFunnel: 'FUNNEL000002',
          hitId: 'HIT000000002',
          outcome: 'failed',
          httpStatus: null,
          latencyMs: 3000,
          error: 'timeout',
        }),
      );
      const page = await store.find(window());
      expect(page.rowsTotal).toBe(3);
      expect(page.rows).toEqual([
        {
          time: '2026-03-01T00:30:00.000Z',
          deliveryId: 'JOB1:0.WHCONFIG0001',
          eventId: 'JOB1:0',
          trigger: 'conversion_triggered',
          idWebhookConfig: CONFIG,
          idNode: '',
          idFunnel: 'FUNNEL000002',
          hitId: 'HIT000000002',
          attempt: 1,
          outcome: 'failed',
          httpStatus: null,
          latencyMs: 3000,
          error: 'timeout',
        },
        expect.objectContaining({ deliveryId: 'HITA.WHCONFIG0001', attempt: 2, outcome: 'delivered', httpStatus: 200, error: null }),
        expect.objectContaining({ time: '2026-03-01T00:10:00.000Z', attempt: 1, outcome: 'retrying', httpStatus: 503, latencyMs: 40, error: 'HTTP 503' }),
      ]);
    });

    it('takes the window start inclusive and its end exclusive', async () => {
      await log(attempt('A.C', 1, 0), attempt('B.C', 1, 59), attempt('C.C', 1, 60));
      const page = await store.find(window({ startMs: T0, endMs: T0 + 60 * MINUTE }));
      expect(keys(page.rows)).toEqual(['B.C#1', 'A.C#1']);
      expect(page.rowsTotal).toBe(2);
      expect(page.summary.map((s) => s.attempts)).toEqual([2]);
      expect(keys((await store.find(window({ startMs: T0 + 60 * MINUTE, endMs: T0 + 61 * MINUTE }))).rows)).toEqual(['C.C#1']);
    });

    it('sums each (config, node): deliveries, successes, failures by status, given up, attempts, retries, latencies', async () => {
      await log(
        // Delivered at the second attempt.
        attempt('E1.C', 1, 1, { outcome: 'retrying', httpStatus: 500, latencyMs: 100 }),
        attempt('E1.C', 2, 2, { latencyMs: 20 }),
        // Given up: no answer, then 502, then the last attempt refused.
        attempt('E2.C', 1, 3, { outcome: 'retrying', httpStatus: null, latencyMs: 3000, error: 'timeout' }),
        attempt('E2.C', 2, 4, { outcome: 'retrying', httpStatus: 502, latencyMs: 30 }),
        attempt('E2.C', 3, 5, { outcome: 'failed', httpStatus: 502, latencyMs: 31 }),
        // Delivered at once.
        attempt('E3.C', 1, 6, { latencyMs: 5 }),
        // Another node of the same config, and another config.
        attempt('E4.C', 1, 7, { idNode: 'NODE00000002', latencyMs: 7 }),
        attempt('E5.D', 1, 8, {
          idWebhookConfig: 'WHCONFIG0002',
          idNode: '',
          outcome: 'failed',
          httpStatus: null,
          latencyMs: 0,
          error: 'address refused: 10.0.0.1',
        }),
      );
      const { summary, rowsTotal } = await store.find(window());
      expect(rowsTotal).toBe(8);
      expect(summary).toEqual([
        {
          idWebhookConfig: CONFIG,
          idNode: NODE,
          deliveries: 3,
          successes: 2,
          failuresByStatus: { '500': 1, '502': 2, none: 1 },
          failedDeliveries: 1,
          attempts: 6,
          retries: 3,
          averageLatencyMs: 531,
          p95LatencyMs: 3000,
        },
        {
          idWebhookConfig: CONFIG,
          idNode: 'NODE00000002',
          deliveries: 1,
          successes: 1,
          failuresByStatus: {},
          failedDeliveries: 0,
          attempts: 1,
          retries: 0,
          averageLatencyMs: 7,
          p95LatencyMs: 7,
        },
        {
          idWebhookConfig: 'WHCONFIG0002',
          idNode: '',
          deliveries: 1,
          successes: 0,
          failuresByStatus: { none: 1 },
          failedDeliveries: 1,
          attempts: 1,
          retries: 0,
          averageLatencyMs: 0,
          p95LatencyMs: 0,
        },
      ]);
    });

    it('takes p95 by nearest rank (the ceil(0.95 n)-th smallest latency) and rounds the average to 0.1 ms', async () => {
      // 20 attempts, latencies 1..20 logged out of order: rank ceil(19) = 19.
      const latencies = Array.from({ length: 20 }, (_, i) => ((i * 7) % 20) + 1);
      await log(...latencies.map((latencyMs, i) => attempt(`P${i}.C`, 1, i, { latencyMs })));
      let summary = (await store.find(window())).summary;
      expect(summary.map((s) => [s.attempts, s.p95LatencyMs, s.averageLatencyMs])).toEqual([[20, 19, 10.5]]);
      // 21 attempts: rank ceil(19.95) = 20.
      await log(attempt('P20.C', 1, 30, { latencyMs: 21 }));
      summary = (await store.find(window())).summary;
      expect(summary.map((s) => [s.attempts, s.p95LatencyMs, s.averageLatencyMs])).toEqual([[21, 20, 11]]);
      // The first 7 attempts, 1 8 15 2 9 16 3: average 7.714.. shown 7.7, rank ceil(6.65) = 7, the largest.
      summary = (await store.find(window({ endMs: T0 + 7 * MINUTE }))).summary;
      expect(summary.map((s) => [s.attempts, s.p95LatencyMs, s.averageLatencyMs])).toEqual([[7, 16, 7.7]]);
    });

    it('filters by config, funnel, node, trigger and outcome, the summary and the total with the page', async () => {
      await log(
        attempt('A.C', 1, 1),
        attempt('B.C', 1, 2, { idFunnel: 'FUNNEL000002', trigger: 'conversion_triggered' }),
        attempt('C.D', 1, 3, { idWebhookConfig: 'WHCONFIG0002', idNode: '', trigger: 'custom_event_triggered', outcome: 'retrying', httpStatus: 500 }),
        attempt('C.D', 2, 4, { idWebhookConfig: 'WHCONFIG0002', idNode: '', trigger: 'custom_event_triggered', outcome: 'failed', httpStatus: 500 }),
        attempt('D.C', 1, 5, { idNode: 'NODE00000002' }),
      );
      const find = async (fields: Partial<WebhookLogQuery>) => {
        const page = await store.find(window(fields));
        return [keys(page.rows), page.rowsTotal, page.summary.map((s) => `${s.idWebhookConfig}/${s.idNode}:${s.attempts}`)];
      };
      expect(await find({ webhookConfigIds: ['WHCONFIG0002'] })).toEqual([['C.D#2', 'C.D#1'], 2, ['WHCONFIG0002/:2']]);
      expect(await find({ funnelIds: ['FUNNEL000002'] })).toEqual([['B.C#1'], 1, [`${CONFIG}/${NODE}:1`]]);
      expect(await find({ nodeIds: ['NODE00000002'] })).toEqual([['D.C#1'], 1, [`${CONFIG}/NODE00000002:1`]]);
      expect(await find({ triggers: ['node_execution', 'custom_event_triggered'] })).toEqual([
        ['D.C#1', 'C.D#2', 'C.D#1', 'A.C#1'],
        4,
        [`${CONFIG}/${NODE}:1`, `${CONFIG}/NODE00000002:1`, 'WHCONFIG0002/:2'],
      ]);
      expect(await find({ outcomes: ['failed', 'retrying'] })).toEqual([['C.D#2', 'C.D#1'], 2, ['WHCONFIG0002/:2']]);
      expect(await find({ outcomes: ['delivered'], webhookConfigIds: [CONFIG], nodeIds: [NODE] })).toEqual([['B.C#1', 'A.C#1'], 2, [`${CONFIG}/${NODE}:2`]]);
      expect(await find({ webhookConfigIds: ['WHCONFIG0009'] })).toEqual([[], 0, []]);
    });

    it('pages newest first (time, then delivery id and attempt, descending) with the exact total', async () => {
      await log(...Array.from({ length: 25 }, (_, i) => attempt(`E${String(i).padStart(2, '0')}.C`, 1, i)));
      await log(attempt('X.C', 1, 7, { outcome: 'retrying' }), attempt('X.C', 2, 7), attempt('Z.C', 1, 7));
      const all = (await store.find(window())).rows;
      expect(all).toHaveLength(28);
      expect(keys(all.slice(16, 22))).toEqual(['E08.C#1', 'Z.C#1', 'X.C#2', 'X.C#1', 'E07.C#1', 'E06.C#1']);
      const second = await store.find(window({ start: 10, length: 10 }));
      expect(second.rowsTotal).toBe(28);
      expect(keys(second.rows)).toEqual(keys(all.slice(10, 20)));
      expect(keys((await store.find(window({ start: 25, length: 10 }))).rows)).toEqual(keys(all.slice(25)));
      const past = await store.find(window({ start: 28, length: 10 }));
      expect(past.rows).toEqual([]);
      expect(past.rowsTotal).toBe(28);
    });

    it(`counts every attempt in rowsTotal when the summary stops at ${WEBHOOK_SUMMARY_MAX} (config, node) pairs`, async () => {
      const pairs = WEBHOOK_SUMMARY_MAX + 5;
      await log(
        ...Array.from({ length: pairs }, (_, i) => attempt(`E${i}.C`, 1, 1, { idNode: `NODE${String(i).padStart(8, '0')}` })),
        attempt('LAST.C', 1, 2, { idNode: 'NODE00000000' }),
      );
      const page = await store.find(window({ start: pairs, length: 10 }));
      expect(page.summary).toHaveLength(WEBHOOK_SUMMARY_MAX);
      expect(page.summary[0]).toMatchObject({ idNode: 'NODE00000000', attempts: 2 });
      expect(page.rowsTotal).toBe(pairs + 1);
      expect(page.rows).toHaveLength(1);
    }, 120_000);

    it('shows an account its own attempts only, the same delivery id in another account included', async () => {
      await log(attempt('A.C', 1, 1), attempt('A.C', 1, 2, { accountId: OTHER, outcome: 'failed', httpStatus: 410 }));
      const mine = await store.find(window());
      expect(mine.rows).toEqual([expect.objectContaining({ deliveryId: 'A.C', outcome: 'delivered' })]);
      expect(mine.rowsTotal).toBe(1);
      expect(mine.summary.map((s) => [s.successes, s.failuresByStatus])).toEqual([[1, {}]]);
      const theirs = await store.find(window({ accountId: OTHER }));
      expect(theirs.rows).toEqual([expect.objectContaining({ deliveryId: 'A.C', outcome: 'failed', httpStatus: 410 })]);
      expect(theirs.summary.map((s) => [s.successes, s.failuresByStatus])).toEqual([[0, { '410': 1 }]]);
      expect(await store.find(window({ accountId: 'ACCOUNT00003' }))).toEqual({ summary: [], rows: [], rowsTotal: 0 });
    });

    it('tells a settled delivery (delivered, or given up) from one still retrying, per account', async () => {
      await log(attempt('R.C', 1, 1, { outcome: 'retrying', httpStatus: 500 }));
      expect(await store.settled(ACCOUNT, 'R.C')).toBeUndefined();
      expect(await store.settled(ACCOUNT, 'NEVER.C')).toBeUndefined();
      await log(attempt('R.C', 2, 2));
      expect(await store.settled(ACCOUNT, 'R.C')).toBe('delivered');
      expect(await store.settled(OTHER, 'R.C')).toBeUndefined();
      await log(attempt('F.C', 6, 3, { accountId: OTHER, outcome: 'failed', httpStatus: 500 }));
      expect(await store.settled(OTHER, 'F.C')).toBe('failed');
      expect(await store.settled(ACCOUNT, 'F.C')).toBeUndefined();
    });
  });
}
