import type { CallerContext, DrilldownReport, DrilldownRequest } from '@funnel/contracts';
import { fromMicros, toMicros, type Hit } from '@funnel/reporting-domain';
import { METRICS, metricCell, type BaseRow } from '@funnel/reporting-queries-domain';
import { warehouseRunner } from './engines/warehouse';
import { NO_ASSET_NAMES } from './service/asset-names';
import { ReportQueries } from './service/report-queries';
import { ACCOUNT, C1_VALUES, OTHER_ACCOUNT, TAGS, generateHits } from './testing/generated-hits';
import type { TestWarehouse } from './testing/warehouse-fixture';

const context: CallerContext = { accountId: ACCOUNT, userId: 'u1', permissions: ['reporting:read'], correlationId: 'c1' };
const WINDOW = { timeStart: '2026-03-07T00:00:00Z', timeEnd: '2026-03-10T00:00:00Z' };
const startMs = Date.parse(WINDOW.timeStart);
const endMs = Date.parse(WINDOW.timeEnd);

/** The base aggregates of `hits`, computed in plain TypeScript (conversions at the hit's time, or with `event` at their own time). */
function bases(hits: readonly Hit[], conversionsFrom: readonly Hit[] = hits, event = false): BaseRow {
  const entrances = hits.filter((h) => h.isEntrance);
  const sumBy = (list: readonly Hit[], f: (h: Hit) => number) => list.reduce((s, h) => s + f(h), 0);
  const conversions = event
    ? conversionsFrom.flatMap((h) => h.conversions.filter((c) => Date.parse(c.time) >= startMs && Date.parse(c.time) < endMs))
    : hits.flatMap((h) => h.conversions);
  return {
    entrances: entrances.length,
    uniqueEntrances: new Set(entrances.map((h) => h.visitorId)).size,
    nodeViews: hits.length,
    landerViews: hits.filter((h) => h.nodeType === 'landerGroup').length,
    landerClicks: sumBy(
      hits.filter((h) => h.nodeType === 'landerGroup'),
      (h) => h.clicks,
    ),
    offerViews: hits.filter((h) => h.nodeType === 'offerGroup').length,
    offerClicks: sumBy(
      hits.filter((h) => h.nodeType === 'offerGroup'),
      (h) => h.clicks,
    ),
    conversions: conversions.length,
    revenue: fromMicros(conversions.reduce((s, c) => s + toMicros(c.payout), 0n)),
    cost: fromMicros(hits.reduce((s, h) => s + toMicros(h.cost), 0n)),
    customEvent1: sumBy(hits, (h) => h.customEvents['1'] ?? 0),
  };
}

const expectedCells = (row: BaseRow) => METRICS.map((metric) => metricCell(metric, row));
const metricCells = (report: DrilldownReport, row = report.totals) => row.cells.slice(report.columns.filter((c) => c.type === 'grouping').length);

/** Expected rows of a flat grouping: key -> hits. */
function groupBy(hits: readonly Hit[], ...keys: ((h: Hit) => string | null)[]): Map<string, Hit[]> {
  const groups = new Map<string, Hit[]>();
  for (const hit of hits) {
    const id = JSON.stringify(keys.map((key) => key(hit)));
    groups.set(id, [...(groups.get(id) ?? []), hit]);
  }
  return groups;
}

const orNull = (value: string) => (value === '' ? null : value);

/**
 * The report queries' contract: the same requests over the same generated hits give the report
 * computed independently from the hits, whatever the engine.
 */
export function reportQueriesContract(name: string, open: () => Promise<TestWarehouse>): void {
  describe(`report queries contract: ${name}`, () => {
    const all = generateHits();
    const mine = all.filter((h) => h.accountId === ACCOUNT);
    const inWindow = mine.filter((h) => Date.parse(h.time) >= startMs && Date.parse(h.time) < endMs);
    let warehouse: TestWarehouse;
    let queries: ReportQueries;
    const drilldown = (request: Partial<DrilldownRequest>) =>
      queries.drilldown(context, { ...WINDOW, groupings: [{ groupBy: 'funnel' }], ...request } as DrilldownRequest);

    beforeAll(async () => {
      warehouse = await open();
      await warehouse.insert(all);
      queries = new ReportQueries(warehouseRunner(warehouse.warehouse), NO_ASSET_NAMES, undefined, warehouse.visitorDays);
    });
    afterAll(() => warehouse?.close());

    it('totals: every metric over every hit of the window, never another account’s', async () => {
      const report = await drilldown({});
      expect(metricCells(report)).toEqual(expectedCells(bases(inWindow)));
      expect(report.columns.map((c) => c.name)).toEqual(['Element: Funnel', ...METRICS.map((m) => m.label)]);
      expect(report.rows.map((r) => r.cells[0].raw)).not.toContain('fnlOther0001');
    });

    it('flat, two levels: every group with every metric, N/A rows, exact rowsTotal', async () => {
      const report = await drilldown({
        groupings: [{ groupBy: 'Third Parties: Traffic Source' }, { groupBy: 'Location: Country Code' }],
        paging: { length: 1000 },
      });
      const expected = groupBy(
        inWindow,
        (h) => h.idTrafficSource,
        (h) => orNull(h.countryCode),
      );
      expect(report.rowsTotal).toBe(expected.size);
      expect(report.rowsReturned).toBe(expected.size);
      for (const row of report.rows) {
        expect(row.parentRowId).toBeNull();
        expect(metricCells(report, row)).toEqual(expectedCells(bases(expected.get(row.rowId)!)));
      }
      expect(report.rows.some((row) => row.cells[1].raw === null && row.cells[1].formatted === 'N/A')).toBe(true);
      // Default sorting: Entrances descending, ties by the grouping values.
      const entrances = report.rows.map((row) => row.cells[2].raw as number);
      expect(entrances).toEqual([...entrances].sort((a, b) => b - a));
    });

    it('tree: children plus N/A add up to their parent, level by level', async () => {
      const groupings = [{ groupBy: 'funnel' }, { groupBy: 'Location: City' }];
      const top = await drilldown({ groupings, options: { viewType: 'tree' }, metrics: ['Entrances', 'Revenue', 'Conv.'] });
      expect(top.columns.map((c) => c.key)).toEqual(['funnel', 'entrances', 'revenue', 'conversions']);
      expect(top.rows.length).toBeGreaterThan(1);
      for (const parent of top.rows) {
        expect(parent.parentRowId).toBeNull();
        expect(parent.children).toEqual([]);
        const level = await drilldown({
          groupings,
          options: { viewType: 'tree' },
          metrics: ['Entrances', 'Revenue', 'Conv.'],
          topLevelFilters: [{ groupBy: 'funnel', whitelistFilters: [parent.cells[0].raw as string] }],
        });
        expect(level.rows.every((row) => row.parentRowId === parent.rowId)).toBe(true);
        expect(level.rows.some((row) => row.cells[1].raw === null)).toBe(true);
        const sum = (i: number) => level.rows.reduce((s, row) => s + toMicros(String(row.cells[i].raw)), 0n);
        expect(sum(2)).toBe(toMicros(String(parent.cells[1].raw)));
        expect(sum(3)).toBe(toMicros(String(parent.cells[2].raw)));
        expect(sum(4)).toBe(toMicros(String(parent.cells[3].raw)));
        expect(level.totals.cells.slice(2)).toEqual(parent.cells.slice(1));
      }
    });

    it('paging: pages are stable and add up to the whole, rowsTotal exact on every page and past the end', async () => {
      const request = { groupings: [{ groupBy: 'trafficSource' }, { groupBy: 'c1' }], metrics: ['Entrances'] };
      const whole = await drilldown({ ...request, paging: { length: 1000 } });
      const pages: string[] = [];
      for (let start = 0; start < whole.rowsTotal; start += 4) {
        const page = await drilldown({ ...request, paging: { start, length: 4 } });
        expect(page.rowsTotal).toBe(whole.rowsTotal);
        pages.push(...page.rows.map((row) => row.rowId));
      }
      expect(pages).toEqual(whole.rows.map((row) => row.rowId));
      const past = await drilldown({ ...request, paging: { start: whole.rowsTotal + 10, length: 4 } });
      expect(past).toMatchObject({ rows: [], rowsReturned: 0, rowsTotal: whole.rowsTotal });
    });

    it('filters: case-insensitive text with * wildcards (% and _ literal), blacklists, asset ids', async () => {
      const report = await drilldown({
        groupings: [{ groupBy: 'c1', whitelistFilters: ['ALPHA*', '50%_*'], blacklistFilters: ['*-2'] }],
        metrics: ['Node Views'],
      });
      const expected = groupBy(
        inWindow.filter((h) => ['alpha', '50%_off'].includes(h.trackingFields.c1 ?? '')),
        (h) => orNull(h.trackingFields.c1 ?? ''),
      );
      expect(Object.fromEntries(report.rows.map((row) => [row.rowId, row.cells[1].raw]))).toEqual(
        Object.fromEntries([...expected].map(([id, hits]) => [id, hits.length])),
      );
      expect(C1_VALUES).toContain('50percent'); // present in the hits, and not matched by 50%_*
      const sources = await drilldown({ groupings: [{ groupBy: 'funnel', whitelistFilters: ['fnlA0000001'] }], metrics: ['Node Views'] });
      expect(sources.rows.map((row) => row.cells[0].raw)).toEqual(['fnlA0000001']);
      expect(sources.totals.cells[1].raw).toBe(inWindow.filter((h) => h.idFunnel === 'fnlA0000001').length);
    });

    it('metric filters (HAVING) and sorting by a derived metric', async () => {
      const report = await drilldown({
        groupings: [{ groupBy: 'c1' }, { groupBy: 'country' }],
        metrics: ['Entrances', 'CVRe'],
        columnFilters: { filterColumns: [{ columnName: 'Entrances', filter: '>= 4' }] },
        sorting: { sortingColumns: [{ columnName: 'cvre', order: 'asc' }] },
        paging: { length: 1000 },
      });
      const expected = [
        ...groupBy(
          inWindow,
          (h) => orNull(h.trackingFields.c1 ?? ''),
          (h) => orNull(h.countryCode),
        ).values(),
      ].filter((hits) => hits.filter((h) => h.isEntrance).length >= 4);
      expect(report.rowsTotal).toBe(expected.length);
      const cvr = report.rows.map((row) => row.cells[3].raw as number | null);
      const numbers = cvr.filter((v): v is number => v !== null);
      expect(numbers).toEqual([...numbers].sort((a, b) => a - b));
      expect(cvr.slice(numbers.length).every((v) => v === null)).toBe(true);
    });

    it('totals of the sums come with the page: the same over every group, whatever the metric filters and the page', async () => {
      // Every metric but the distinct counts: the page query answers the totals (no second scan).
      const summed = METRICS.filter((metric) => !JSON.stringify(metric.expression).includes('uniqueEntrances'));
      const expected = summed.map((metric) => metricCell(metric, bases(inWindow)));
      const request = { groupings: [{ groupBy: 'c1' }, { groupBy: 'country' }], metrics: summed.map((metric) => metric.key) };
      const whole = await drilldown({ ...request, paging: { length: 1000 } });
      expect(metricCells(whole)).toEqual(expected);
      const filtered = await drilldown({ ...request, columnFilters: { filterColumns: [{ columnName: 'Entrances', filter: '>= 4' }] } });
      expect(filtered.rowsTotal).toBeLessThan(whole.rowsTotal);
      expect(metricCells(filtered)).toEqual(expected);
      const none = await drilldown({ ...request, columnFilters: { filterColumns: [{ columnName: 'Entrances', filter: '> 1000000' }] } });
      expect(none).toMatchObject({ rows: [], rowsTotal: 0 });
      expect(metricCells(none)).toEqual(expected);
      const past = await drilldown({ ...request, paging: { start: whole.rowsTotal, length: 10 } });
      expect(past).toMatchObject({ rows: [], rowsTotal: whole.rowsTotal });
      expect(metricCells(past)).toEqual(expected);
      const empty = await drilldown({ ...request, groupings: [{ groupBy: 'c1', whitelistFilters: ['no-such-value'] }] });
      expect(empty).toMatchObject({ rows: [], rowsTotal: 0 });
      expect(metricCells(empty)).toEqual(summed.map((metric) => metricCell(metric, bases([]))));
      // With the distinct counts (asked beside the page): the same totals on an empty page.
      const everyMetric = { groupings: [{ groupBy: 'c1' }, { groupBy: 'country' }] };
      const noneOfAll = await drilldown({ ...everyMetric, columnFilters: { filterColumns: [{ columnName: 'Entrances', filter: '> 1000000' }] } });
      expect(metricCells(noneOfAll)).toEqual(expectedCells(bases(inWindow)));
      const pastOfAll = await drilldown({ ...everyMetric, paging: { start: whole.rowsTotal, length: 10 } });
      expect(metricCells(pastOfAll)).toEqual(expectedCells(bases(inWindow)));
    });

    it('distinct counts per group and in the totals, grouped by visitor tag too', async () => {
      const report = await drilldown({ groupings: [{ groupBy: 'Traffic: Visitor Tag' }], paging: { length: 100 } });
      expect(metricCells(report)).toEqual(expectedCells(bases(inWindow)));
      for (const row of report.rows) {
        const tag = row.cells[0].raw as string | null;
        const hits = inWindow.filter((h) => (tag === null ? h.visitorTags.length === 0 : h.visitorTags.includes(tag)));
        expect(metricCells(report, row)).toEqual(expectedCells(bases(hits)));
      }
    });

    it('time zone days: America/New_York local dates (the day clocks go forward has 23 hours)', async () => {
      const report = await drilldown({
        groupings: [{ groupBy: 'Time: Date' }],
        timeZone: 'America/New_York',
        metrics: ['Node Views'],
        sorting: { sortingColumns: [{ columnName: 'date', order: 'asc' }] },
      });
      const local = new Intl.DateTimeFormat('en-CA', { timeZone: 'America/New_York', year: 'numeric', month: '2-digit', day: '2-digit' });
      const expected = groupBy(inWindow, (h) => local.format(new Date(h.time)));
      expect(report.rows.map((row) => [row.cells[0].raw, row.cells[1].raw])).toEqual(
        [...expected.entries()].map(([id, hits]) => [JSON.parse(id)[0], hits.length]).sort(),
      );
    });

    it('event attribution: conversions and revenue at their own time, of hits before the window too', async () => {
      const report = await drilldown({ options: { timeAttribution: 'event' } });
      expect(metricCells(report)).toEqual(
        expectedCells(
          bases(
            inWindow,
            mine.filter((h) => Date.parse(h.time) < endMs),
            true,
          ),
        ),
      );
      const byDay = await drilldown({
        groupings: [{ groupBy: 'date' }],
        options: { timeAttribution: 'event' },
        metrics: ['Conv.'],
        sorting: { sortingColumns: [{ columnName: 'date', order: 'asc' }] },
      });
      const conversionsByDay = new Map<string, number>();
      for (const c of mine.flatMap((h) => h.conversions)) {
        if (Date.parse(c.time) >= startMs && Date.parse(c.time) < endMs)
          conversionsByDay.set(c.time.slice(0, 10), (conversionsByDay.get(c.time.slice(0, 10)) ?? 0) + 1);
      }
      for (const row of byDay.rows) expect(row.cells[1].raw).toBe(conversionsByDay.get(row.cells[0].raw as string) ?? 0);
    });

    it('visitor tags: one row per tag (N/A for none), tag filters by hit', async () => {
      const report = await drilldown({ groupings: [{ groupBy: 'Traffic: Visitor Tag' }], metrics: ['Node Views'] });
      const counts = Object.fromEntries(report.rows.map((row) => [String(row.cells[0].raw), row.cells[1].raw]));
      expect(counts).toEqual({
        [TAGS[0]]: inWindow.filter((h) => h.visitorTags.includes(TAGS[0])).length,
        [TAGS[1]]: inWindow.filter((h) => h.visitorTags.includes(TAGS[1])).length,
        null: inWindow.filter((h) => !h.visitorTags.length).length,
      });
      const filtered = await drilldown({ groupings: [{ groupBy: 'visitorTag', whitelistFilters: [TAGS[1]] }], metrics: ['Node Views'] });
      expect(filtered.rows.map((row) => row.cells[0].raw)).toEqual([TAGS[1]]);
      expect(filtered.totals.cells[1].raw).toBe(inWindow.filter((h) => h.visitorTags.includes(TAGS[1])).length);
    });

    it('referrer domain, lander and action attributes', async () => {
      const report = await drilldown({ groupings: [{ groupBy: 'Connection: Referrer Domain' }], metrics: ['Node Views'], paging: { length: 100 } });
      const domains = Object.fromEntries(report.rows.map((row) => [String(row.cells[0].raw), row.cells[1].raw]));
      const count = (referrer: string) => inWindow.filter((h) => h.visitor.referrer === referrer).length;
      expect(domains).toEqual({
        'www.example.com': count('https://www.Example.com/path?q=1'),
        'news.example.org': count('http://user@news.example.org:8080/x'),
        'com.app': count('android-app://com.app'),
        null: count(''),
      });
      const landers = await drilldown({ groupings: [{ groupBy: 'lander' }], metrics: ['Lander Views', 'Node Views'] });
      for (const row of landers.rows) {
        if (row.cells[0].raw === null) expect(row.cells[1].raw).toBe(0);
        else expect(row.cells[1].raw).toBe(row.cells[2].raw);
      }
      const actions = await drilldown({ groupings: [{ groupBy: 'Click: Action Num', whitelistFilters: ['2'] }], metrics: ['Node Views'] });
      expect(actions.rows.map((row) => [row.cells[0].raw, row.cells[1].raw])).toEqual([[2, inWindow.filter((h) => h.action === 2).length]]);
    });

    it('refuses unknown names with the nearest valid one, and bad requests', async () => {
      await expect(drilldown({ groupings: [{ groupBy: 'Location: Contry' }] })).rejects.toMatchObject({
        status: 400,
        code: 'REPORTING.UNKNOWN_NAME',
        message: expect.stringContaining('"Location: Country"'),
      });
      await expect(drilldown({ metrics: ['Entrancez'] })).rejects.toMatchObject({
        status: 400,
        code: 'REPORTING.UNKNOWN_NAME',
        message: expect.stringContaining('"Entrances"'),
      });
      await expect(drilldown({ groupings: [{ groupBy: 'funnel' }, { groupBy: 'Element: Funnel' }] })).rejects.toMatchObject({ status: 400 });
      await expect(drilldown({ timeEnd: '2027-06-01T00:00:00Z' })).rejects.toMatchObject({ status: 400 });
      await expect(drilldown({ timeZone: 'Nowhere/City' })).rejects.toMatchObject({ status: 400 });
      await expect(drilldown({ groupings: [{ groupBy: 'hitId' }] })).rejects.toMatchObject({ status: 400 });
    });

    it('raw events: newest first, every field, a cursor through every page, filters', async () => {
      const seen: Hit[] = [];
      let cursor: string | undefined;
      do {
        const page = await queries.rawEvents(context, { ...WINDOW, filters: [{ groupBy: 'country', whitelistFilters: ['us'] }], limit: 40, cursor });
        seen.push(...page.hits);
        cursor = page.nextCursor ?? undefined;
      } while (cursor);
      const expected = inWindow.filter((h) => h.countryCode === 'US').sort((a, b) => Date.parse(b.time) - Date.parse(a.time) || (b.hitId < a.hitId ? -1 : 1));
      expect(seen.map((h) => h.hitId)).toEqual(expected.map((h) => h.hitId));
      const normalize = (h: Hit) => ({ ...h, cost: fromMicros(toMicros(h.cost)), conversions: h.conversions });
      expect(seen.slice(0, 5)).toEqual(expected.slice(0, 5).map(normalize));
      await expect(queries.rawEvents(context, { ...WINDOW, cursor: 'not-a-cursor' })).rejects.toMatchObject({ status: 400 });
    });

    it('explorer: a visitor with more hits than a lookup shows: the first ones, hasMore, the summary of every hit', async () => {
      const first = Date.parse('2026-03-20T00:00:00Z');
      const busy = Array.from({ length: 1005 }, (_, i) => ({
        ...inWindow[i % inWindow.length],
        hitId: `busy-${String(i).padStart(5, '0')}`,
        visitorId: 'visitor-busy',
        time: new Date(first + i * 60_000).toISOString(),
        cost: '0.010000',
        conversions: i % 100 === 0 ? [{ transactionId: `busy-tx-${i}`, payout: '2.500000', time: new Date(first + i * 60_000 + 1000).toISOString() }] : [],
      }));
      await warehouse.insert(busy);
      const report = await queries.explorerVisitor(context, { visitorId: 'visitor-busy', timeStart: '2026-03-19T00:00:00Z', timeEnd: '2026-03-22T00:00:00Z' });
      expect(report.hasMore).toBe(true);
      expect(report.hits.map((h) => h.hitId)).toEqual(busy.slice(0, 1000).map((h) => h.hitId));
      expect(report.visitor).toMatchObject({
        hits: 1005,
        conversions: 11,
        revenue: fromMicros(toMicros('27.5')),
        cost: fromMicros(toMicros('10.05')),
        firstSeen: busy[0].time,
        lastSeen: busy[1004].time,
      });
    });

    it('explorer: a visitor by id and window or by hit id, a hit, 404 for another account’s hit', async () => {
      const hit = inWindow.find((h) => h.isEntrance)!;
      const visitorHits = mine.filter((h) => h.visitorId === hit.visitorId && Date.parse(h.time) >= startMs && Date.parse(h.time) < endMs);
      const report = await queries.explorerVisitor(context, { visitorId: hit.visitorId, ...WINDOW });
      expect(report.hits.map((h) => h.hitId)).toEqual(
        [...visitorHits].sort((a, b) => Date.parse(a.time) - Date.parse(b.time) || (a.hitId < b.hitId ? -1 : 1)).map((h) => h.hitId),
      );
      expect(report.visitor).toMatchObject({
        visitorId: hit.visitorId,
        hits: visitorHits.length,
        conversions: visitorHits.reduce((s, h) => s + h.conversions.length, 0),
        revenue: fromMicros(visitorHits.reduce((s, h) => s + h.conversions.reduce((c, v) => c + toMicros(v.payout), 0n), 0n)),
        cost: fromMicros(visitorHits.reduce((s, h) => s + toMicros(h.cost), 0n)),
        firstSeen: report.hits[0].time,
        lastSeen: report.hits[report.hits.length - 1].time,
      });
      expect(report.hasMore).toBe(false);
      const byHit = await queries.explorerVisitor(context, { hitId: hit.hitId });
      expect(byHit.hits.map((h) => h.hitId)).toContain(hit.hitId);
      expect((await queries.explorerHit(context, hit.hitId)).hitId).toBe(hit.hitId);
      const other = all.find((h) => h.accountId === OTHER_ACCOUNT)!;
      await expect(queries.explorerHit(context, other.hitId)).rejects.toMatchObject({ status: 404, code: 'REPORTING.HIT_NOT_FOUND' });
    });
  });
}
