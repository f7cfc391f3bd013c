import type { PostbackLogRow } from '@funnel/contracts';
import { PostbackLogQueryTimeout, type DecidedPostback, type PostbackLogQuery, type PostbackLogStore } from './postback-log-store';

const ACCOUNT = 'ACCOUNT00001';
const OTHER = 'ACCOUNT00002';
const T0 = Date.parse('2026-03-01T00:00:00.000Z');
const MINUTE = 60_000;

/** A decided postback of job `jobId`, row `rowIndex`, decided `minutes` after T0. */
export function decided(jobId: string, rowIndex: number, minutes: number, fields: Partial<DecidedPostback> = {}): DecidedPostback {
  return {
    accountId: ACCOUNT,
    jobId,
    rowIndex,
    hitId: `HIT${String(rowIndex).padStart(9, '0')}`,
    idTrafficSource: 'TSOURCE00001',
    idFunnel: 'FUNNEL000001',
    url: `https://ts.example/pb?row=${rowIndex}&token=********`,
    kind: 'postbackUrl',
    status: 'pending',
    timeMs: T0 + minutes * MINUTE,
    ...fields,
  };
}

const window = (fields: Partial<PostbackLogQuery> = {}): PostbackLogQuery => ({
  accountId: ACCOUNT,
  startMs: T0,
  endMs: T0 + 24 * 60 * MINUTE,
  start: 0,
  length: 100,
  ...fields,
});

const keys = (rows: PostbackLogRow[]) => rows.map((r) => `${r.jobId}:${r.rowIndex}`);

/**
 * The contract every postback log store meets (DuckDB embedded, ClickHouse): the same calls give
 * the same log. `open` gives an empty store.
 */
export function describePostbackLogStoreContract(name: string, open: () => Promise<PostbackLogStore>): void {
  describe(`${name}: postback log contract`, () => {
    let store: PostbackLogStore;

    beforeEach(async () => {
      store = await open();
    });

    afterEach(async () => {
      await store.close();
    });

    it('lists the decided postbacks of the window, newest first, with every field', async () => {
      await store.decided([decided('JOB000000001', 0, 10), decided('JOB000000001', 1, 10, { kind: 'pixelUrl', status: 'recorded' })]);
      await store.decided([decided('JOB000000002', 0, 30, { idFunnel: 'FUNNEL000002' })]);
      const page = await store.find(window());
      expect(page.rowsTotal).toBe(3);
      expect(page.rows).toEqual([
        {
          time: '2026-03-01T00:30:00.000Z',
          jobId: 'JOB000000002',
          rowIndex: 0,
          hitId: 'HIT000000000',
          idTrafficSource: 'TSOURCE00001',
          idFunnel: 'FUNNEL000002',
          url: 'https://ts.example/pb?row=0&token=********',
          kind: 'postbackUrl',
          status: 'pending',
          attempts: 0,
          lastError: null,
          updatedAt: '2026-03-01T00:30:00.000Z',
        },
        expect.objectContaining({ jobId: 'JOB000000001', rowIndex: 1, kind: 'pixelUrl', status: 'recorded', attempts: 0 }),
        expect.objectContaining({ jobId: 'JOB000000001', rowIndex: 0, kind: 'postbackUrl', status: 'pending' }),
      ]);
    });

    it('takes the window start inclusive and its end exclusive', async () => {
      await store.decided([decided('JOB000000001', 0, 0), decided('JOB000000001', 1, 59), decided('JOB000000001', 2, 60)]);
      const page = await store.find(window({ startMs: T0, endMs: T0 + 60 * MINUTE }));
      expect(keys(page.rows)).toEqual(['JOB000000001:1', 'JOB000000001:0']);
      expect(page.rowsTotal).toBe(2);
      expect((await store.find(window({ startMs: T0 + 60 * MINUTE, endMs: T0 + 61 * MINUTE }))).rows.map((r) => r.rowIndex)).toEqual([2]);
    });

    it('shows an account its own postbacks only, the same job id in another account included', async () => {
      await store.decided([decided('JOB000000001', 0, 1), decided('JOB000000001', 0, 2, { accountId: OTHER, url: 'https://other.example/' })]);
      await store.attempted({ accountId: OTHER, jobId: 'JOB000000001', rowIndex: 0, attempt: 1, outcome: 'delivered', error: null, atMs: T0 + 3 * MINUTE });
      const mine = await store.find(window());
      expect(mine.rows).toEqual([expect.objectContaining({ url: 'https://ts.example/pb?row=0&token=********', status: 'pending', attempts: 0 })]);
      expect(mine.rowsTotal).toBe(1);
      expect((await store.find(window({ accountId: OTHER }))).rows).toEqual([expect.objectContaining({ url: 'https://other.example/', status: 'delivered' })]);
    });

    it('logs a postback once when its job is applied again (a redelivery keeps the first row)', async () => {
      await store.decided([decided('JOB000000001', 0, 5), decided('JOB000000001', 1, 5)]);
      await store.attempted({ accountId: ACCOUNT, jobId: 'JOB000000001', rowIndex: 0, attempt: 1, outcome: 'delivered', error: null, atMs: T0 + 6 * MINUTE });
      await store.decided([decided('JOB000000001', 0, 9), decided('JOB000000001', 1, 9), decided('JOB000000001', 2, 9)]);
      const page = await store.find(window());
      expect(page.rowsTotal).toBe(3);
      expect(page.rows.map((r) => [r.rowIndex, r.time, r.status])).toEqual([
        [2, '2026-03-01T00:09:00.000Z', 'pending'],
        [1, '2026-03-01T00:05:00.000Z', 'pending'],
        [0, '2026-03-01T00:05:00.000Z', 'delivered'],
      ]);
    });

    it('follows the attempts: a retry stays pending with its error, then delivered or failed is final', async () => {
      await store.decided([decided('JOB000000001', 0, 1), decided('JOB000000001', 1, 1)]);
      const attempt = (rowIndex: number, n: number, outcome: 'delivered' | 'retrying' | 'failed', error: string | null) =>
        store.attempted({ accountId: ACCOUNT, jobId: 'JOB000000001', rowIndex, attempt: n, outcome, error, atMs: T0 + (10 + n) * MINUTE });
      await attempt(0, 1, 'retrying', 'HTTP 503');
      expect((await store.find(window())).rows.find((r) => r.rowIndex === 0)).toMatchObject({
        status: 'pending',
        attempts: 1,
        lastError: 'HTTP 503',
        updatedAt: '2026-03-01T00:11:00.000Z',
      });
      await attempt(0, 2, 'delivered', null);
      await attempt(0, 3, 'failed', 'late');
      await attempt(1, 5, 'retrying', 'HTTP 500');
      await attempt(1, 5, 'failed', 'HTTP 500');
      await attempt(1, 4, 'retrying', 'an older attempt');
      const rows = (await store.find(window())).rows;
      expect(rows.map((r) => [r.rowIndex, r.status, r.attempts, r.lastError, r.updatedAt])).toEqual([
        [1, 'failed', 5, 'HTTP 500', '2026-03-01T00:15:00.000Z'],
        [0, 'delivered', 2, null, '2026-03-01T00:12:00.000Z'],
      ]);
    });

    it('records nothing for an attempt of a postback it never logged', async () => {
      await store.attempted({ accountId: ACCOUNT, jobId: 'JOB000000009', rowIndex: 0, attempt: 1, outcome: 'delivered', error: null, atMs: T0 });
      expect(await store.find(window())).toEqual({ rows: [], rowsTotal: 0 });
    });

    it('filters by traffic source, funnel and status (the status after the attempts)', async () => {
      await store.decided([
        decided('JOB000000001', 0, 1, { idTrafficSource: 'TSOURCE00001', idFunnel: 'FUNNEL000001' }),
        decided('JOB000000001', 1, 2, { idTrafficSource: 'TSOURCE00002', idFunnel: 'FUNNEL000001' }),
        decided('JOB000000001', 2, 3, { idTrafficSource: 'TSOURCE00002', idFunnel: 'FUNNEL000002' }),
        decided('JOB000000001', 3, 4, { idTrafficSource: 'TSOURCE00003', idFunnel: 'FUNNEL000002', kind: 'javascript', status: 'recorded' }),
      ]);
      await store.attempted({ accountId: ACCOUNT, jobId: 'JOB000000001', rowIndex: 1, attempt: 1, outcome: 'delivered', error: null, atMs: T0 + 5 * MINUTE });
      const find = async (fields: Partial<PostbackLogQuery>) => {
        const page = await store.find(window(fields));
        return [page.rows.map((r) => r.rowIndex), page.rowsTotal];
      };
      expect(await find({ trafficSourceIds: ['TSOURCE00002'] })).toEqual([[2, 1], 2]);
      expect(await find({ trafficSourceIds: ['TSOURCE00001', 'TSOURCE00003'] })).toEqual([[3, 0], 2]);
      expect(await find({ funnelIds: ['FUNNEL000002'] })).toEqual([[3, 2], 2]);
      expect(await find({ statuses: ['pending'] })).toEqual([[2, 0], 2]);
      expect(await find({ statuses: ['delivered', 'recorded'] })).toEqual([[3, 1], 2]);
      expect(await find({ statuses: ['failed'] })).toEqual([[], 0]);
      expect(await find({ trafficSourceIds: ['TSOURCE00002'], funnelIds: ['FUNNEL000001'], statuses: ['delivered'] })).toEqual([[1], 1]);
    });

    it('pages newest first with the exact total of the window', async () => {
      await store.decided(Array.from({ length: 25 }, (_, i) => decided('JOB000000001', i, i)));
      await store.decided(Array.from({ length: 5 }, (_, i) => decided('JOB000000002', i, 7)));
      const all = (await store.find(window())).rows;
      expect(all).toHaveLength(30);
      // Minute 7: job 2's rows before job 1's (job id, then row index, descending).
      expect(keys(all.slice(16, 23))).toEqual([
        'JOB000000001:8',
        'JOB000000002:4',
        'JOB000000002:3',
        'JOB000000002:2',
        'JOB000000002:1',
        'JOB000000002:0',
        'JOB000000001:7',
      ]);
      const second = await store.find(window({ start: 10, length: 10 }));
      expect(second.rowsTotal).toBe(30);
      expect(keys(second.rows)).toEqual(keys(all.slice(10, 20)));
      const last = await store.find(window({ start: 28, length: 10 }));
      expect(keys(last.rows)).toEqual(keys(all.slice(28)));
      expect(await store.find(window({ start: 30, length: 10 }))).toEqual({ rows: [], rowsTotal: 30 });
    });
  });
}

/**
 * On a log filled (by the engine's own SQL) with 1,000,000 rows of ACCOUNT00001 from 1772323200000 ms, one a
 * millisecond (row i: source TSOURCE0000<i % 7>, delivered when i % 3 = 0, else pending): a deep page with a
 * 1 ms limit is stopped, and the same query without it answers its page and an exact total.
 */
export async function expectTimeLimitOverAMillionRows(store: PostbackLogStore): Promise<void> {
  const query = {
    accountId: 'ACCOUNT00001',
    startMs: 1772323200000,
    endMs: 1772323200000 + 1_000_000,
    statuses: ['delivered' as const],
    trafficSourceIds: ['TSOURCE00003', 'TSOURCE00004'],
    start: 0,
    length: 1000,
  };
  // A deep page (sorting past 90,000 rows) with a 1 ms limit.
  await expect(store.find({ ...query, start: 90_000 }, 1)).rejects.toBeInstanceOf(PostbackLogQueryTimeout);
  const page = await store.find(query);
  expect(page.rows).toHaveLength(1000);
  expect(page.rowsTotal).toBe(Array.from({ length: 1_000_000 }, (_, i) => i).filter((i) => i % 3 === 0 && [3, 4].includes(i % 7)).length);
}
