// One contract for both incoming postback log stores (DuckDB, ClickHouse on chdb).
import type { IncomingLogEntry, IncomingLogStore } from './incoming-log-store';

const ACCOUNT = 'ACCOUNT00001';
const OTHER = 'ACCOUNT00002';
const T0 = Date.parse('2026-11-20T10:00:00Z');

export function entry(overrides: Partial<IncomingLogEntry> & { postbackId: string }): IncomingLogEntry {
  return {
    accountId: ACCOUNT,
    timeMs: T0,
    source: 'postback',
    hitId: 'HIT000000001',
    transactionId: 'tx-1',
    revenue: '2.5',
    payout: '2.5',
    ip: '203.0.113.9',
    outcome: 'queued',
    reason: null,
    jobId: 'JOB000000001',
    idFunnel: '',
    idTrafficSource: '',
    updatedMs: T0,
    ...overrides,
  };
}

const window = { accountId: ACCOUNT, startMs: T0 - 3600_000, endMs: T0 + 3600_000, start: 0, length: 100 };

export function describeIncomingLogStoreContract(name: string, open: () => Promise<IncomingLogStore>): void {
  describe(`${name}: the incoming postback log contract`, () => {
    let store: IncomingLogStore;
    beforeEach(async () => {
      store = await open();
    });
    afterEach(async () => {
      await store.close();
    });

    it('given postbacks received, when the window is read, then they come newest first with the exact count, and another account sees none', async () => {
      await store.received([
        entry({ postbackId: 'PB0000000001', timeMs: T0 }),
        entry({ postbackId: 'PB0000000002', timeMs: T0 + 1000, outcome: 'invalid', reason: 'hit is not an id', jobId: null, payout: '' }),
        entry({ postbackId: 'PB0000000003', timeMs: T0 + 2000, accountId: OTHER }),
      ]);
      const page = await store.find(window);
      expect(page.rowsTotal).toBe(2);
      expect(page.rows.map((r) => r.postbackId)).toEqual(['PB0000000002', 'PB0000000001']);
      expect(page.rows[0]).toEqual({
        time: new Date(T0 + 1000).toISOString(),
        postbackId: 'PB0000000002',
        source: 'postback',
        hitId: 'HIT000000001',
        transactionId: 'tx-1',
        revenue: '2.5',
        payout: '',
        ip: '203.0.113.9',
        outcome: 'invalid',
        reason: 'hit is not an id',
        jobId: null,
        idFunnel: '',
        idTrafficSource: '',
        updatedAt: new Date(T0).toISOString(),
      });
    });

    it('given a received postback, when its job is resolved, then the row shows the outcome and the hit’s funnel and source, whichever write came first', async () => {
      await store.received([entry({ postbackId: 'PB0000000001' })]);
      await store.resolved([
        entry({ postbackId: 'PB0000000001', outcome: 'applied', idFunnel: 'FUNNEL000001', idTrafficSource: 'SOURCE000001', updatedMs: T0 + 500 }),
      ]);
      // Resolved before received (a fast worker): the later `received` changes nothing.
      await store.resolved([entry({ postbackId: 'PB0000000002', outcome: 'unknownHit', timeMs: T0 + 1 })]);
      await store.received([entry({ postbackId: 'PB0000000002', timeMs: T0 + 1 })]);
      const rows = (await store.find(window)).rows;
      expect(rows.map((r) => [r.postbackId, r.outcome])).toEqual([
        ['PB0000000002', 'unknownHit'],
        ['PB0000000001', 'applied'],
      ]);
      expect(rows[1]).toMatchObject({ idFunnel: 'FUNNEL000001', idTrafficSource: 'SOURCE000001', updatedAt: new Date(T0 + 500).toISOString() });
      expect((await store.find(window)).rowsTotal).toBe(2);
    });

    it('filters by outcome, source, funnel, traffic source and hit, and pages', async () => {
      await store.received([
        entry({ postbackId: 'PB0000000001', timeMs: T0 + 1, outcome: 'queued' }),
        entry({ postbackId: 'PB0000000002', timeMs: T0 + 2, outcome: 'invalid', source: 'action' }),
        entry({ postbackId: 'PB0000000003', timeMs: T0 + 3, outcome: 'queued', hitId: 'HIT000000002' }),
      ]);
      await store.resolved([
        entry({
          postbackId: 'PB0000000003',
          timeMs: T0 + 3,
          outcome: 'applied',
          hitId: 'HIT000000002',
          idFunnel: 'FUNNEL000001',
          idTrafficSource: 'SOURCE000001',
        }),
      ]);
      const ids = async (q: Partial<typeof window> & Record<string, unknown>) => (await store.find({ ...window, ...q })).rows.map((r) => r.postbackId);
      expect(await ids({ outcomes: ['queued'] })).toEqual(['PB0000000001']);
      expect(await ids({ sources: ['action'] })).toEqual(['PB0000000002']);
      expect(await ids({ funnelIds: ['FUNNEL000001'] })).toEqual(['PB0000000003']);
      expect(await ids({ trafficSourceIds: ['SOURCE000001'] })).toEqual(['PB0000000003']);
      expect(await ids({ hitIds: ['HIT000000001'] })).toEqual(['PB0000000002', 'PB0000000001']);
      expect(await ids({ start: 1, length: 1 })).toEqual(['PB0000000002']);
      expect(await store.find({ ...window, start: 5 })).toEqual({ rows: [], rowsTotal: 3 });
      expect(await ids({ startMs: T0 + 2, endMs: T0 + 3 })).toEqual(['PB0000000002']);
    });
  });
}
