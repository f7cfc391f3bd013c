import { aHit } from '@funnel/reporting-domain';
import { warehouseRunner } from './engines/warehouse';
import { windowConversions, type WindowConversion, type WindowConversionsQuery } from './service/window-conversions';
import type { TestWarehouse } from './testing/warehouse-fixture';

const ACCOUNT = 'ACCOUNT00001';
const SOURCE = 'TSOURCE00001';
const START = Date.parse('2026-03-10T00:00:00.000Z');
const END = Date.parse('2026-03-11T00:00:00.000Z');
const conversion = (transactionId: string, time: string, payout = '2.5') => ({ transactionId, payout, time });

/** Hits of the account's source with conversions in, before and after the window, and hits that must not count. */
const HITS = [
  // A click days before the window, converted in it and before it.
  aHit({
    hitId: 'HIT000000001',
    time: '2026-03-01T10:00:00.000Z',
    conversions: [conversion('old', '2026-03-02T00:00:00.000Z'), conversion('tx-1', '2026-03-10T05:00:00.000Z', '12.5')],
  }),
  aHit({ hitId: 'HIT000000002', time: '2026-03-10T01:00:00.000Z', conversions: [conversion('', '2026-03-10T02:00:00.000Z')] }),
  // Converted at the window's end (exclusive), and a click after it.
  aHit({ hitId: 'HIT000000003', time: '2026-03-10T03:00:00.000Z', conversions: [conversion('late', '2026-03-11T00:00:00.000Z')] }),
  aHit({ hitId: 'HIT000000004', time: '2026-03-11T01:00:00.000Z', conversions: [conversion('after', '2026-03-11T02:00:00.000Z')] }),
  aHit({
    hitId: 'HIT000000005',
    time: '2026-03-10T04:00:00.000Z',
    conversions: [conversion('a', '2026-03-10T04:10:00.000Z'), conversion('b', '2026-03-10T04:20:00.000Z')],
  }),
  // No conversion; another traffic source; another account.
  aHit({ hitId: 'HIT000000006', time: '2026-03-10T04:00:00.000Z' }),
  aHit({
    hitId: 'HIT000000007',
    time: '2026-03-10T04:00:00.000Z',
    idTrafficSource: 'TSOURCE00002',
    conversions: [conversion('x', '2026-03-10T05:00:00.000Z')],
  }),
  aHit({ hitId: 'HIT000000008', time: '2026-03-10T04:00:00.000Z', accountId: 'ACCOUNT00002', conversions: [conversion('y', '2026-03-10T05:00:00.000Z')] }),
];

/** The query of the window's conversions: the same hits give the same conversions and pages on every engine. */
export function windowConversionsContract(name: string, open: () => Promise<TestWarehouse>): void {
  describe(`${name}: the conversions of a window`, () => {
    let test: TestWarehouse;
    const query = (fields: Partial<WindowConversionsQuery> = {}): WindowConversionsQuery => ({
      accountId: ACCOUNT,
      trafficSourceIds: [SOURCE],
      startMs: START,
      endMs: END,
      limit: 100,
      ...fields,
    });
    beforeAll(async () => {
      test = await open();
      await test.insert(HITS);
    });
    afterAll(() => test.close());

    it('given hits with conversions in and out of the window, then it answers those whose own time is in it, of the sources and account, oldest hit first', async () => {
      const page = await windowConversions(warehouseRunner(test.warehouse), query());
      expect(page).toEqual({
        next: null,
        conversions: [
          { hitId: 'HIT000000001', transactionId: 'tx-1', payout: '12.5', time: '2026-03-10T05:00:00.000Z' },
          { hitId: 'HIT000000002', transactionId: '', payout: '2.5', time: '2026-03-10T02:00:00.000Z' },
          { hitId: 'HIT000000005', transactionId: 'a', payout: '2.5', time: '2026-03-10T04:10:00.000Z' },
          { hitId: 'HIT000000005', transactionId: 'b', payout: '2.5', time: '2026-03-10T04:20:00.000Z' },
        ],
      });
      const both = await windowConversions(warehouseRunner(test.warehouse), query({ trafficSourceIds: [SOURCE, 'TSOURCE00002'] }));
      expect(both.conversions.map((c) => c.transactionId)).toEqual(['tx-1', '', 'a', 'b', 'x']);
      expect((await windowConversions(warehouseRunner(test.warehouse), query({ trafficSourceIds: [] }))).conversions).toEqual([]);
    });

    it('pages by hit: each page starts after the last hit of the one before, and the last page says there is none after it', async () => {
      const runner = warehouseRunner(test.warehouse);
      const seen: WindowConversion[] = [];
      const cursors = [];
      let page = await windowConversions(runner, query({ limit: 2 }));
      for (;;) {
        seen.push(...page.conversions);
        cursors.push(page.next);
        if (!page.next) break;
        page = await windowConversions(runner, query({ limit: 2, after: page.next }));
      }
      expect(cursors).toEqual([
        { timeMs: Date.parse('2026-03-10T01:00:00.000Z'), hitId: 'HIT000000002' },
        { timeMs: Date.parse('2026-03-10T04:00:00.000Z'), hitId: 'HIT000000005' },
        null,
      ]);
      expect(seen.map((c) => `${c.hitId}/${c.transactionId}`)).toEqual(['HIT000000001/tx-1', 'HIT000000002/', 'HIT000000005/a', 'HIT000000005/b']);
    });
  });
}
