import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ReportingSubjects, generateAssetId, type DrilldownReport, type ReportRow } from '@funnel/contracts';
import { aHit, type Hit } from '@funnel/reporting-domain';
import type { IngestHitsResult } from '@funnel/reporting-feature';
import { Deployment, describeInBothModes } from './harness';

/**
 * The reporting queries end to end (issue 20): hits of two accounts are written through the
 * internal subject, then every /v1/reporting query route is asked over HTTP and its answer compared
 * with what this file computes from the same hits (every answer is also checked against the API
 * document by the harness). Postbacks reach a local receiver (OUTBOUND_ALLOW_PRIVATE).
 */
let receiver: Server;
const env: NodeJS.ProcessEnv = { OUTBOUND_ALLOW_PRIVATE: 'true' };

beforeAll(async () => {
  receiver = createServer((_req, res) => res.writeHead(200).end('ok'));
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  env.RECEIVER = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
});

afterAll(async () => {
  receiver.closeAllConnections();
  await new Promise((resolve) => receiver.close(resolve));
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const NY = 'America/New_York';

/** The offset of `zone` from UTC at an instant, in ms (local wall clock minus UTC). */
function offsetMs(zone: string, utcMs: number): number {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    })
      .formatToParts(new Date(utcMs))
      .map((p) => [p.type, Number(p.value)]),
  );
  const wall = Date.UTC(parts.year, parts.month - 1, parts.day, parts.hour, parts.minute, parts.second);
  return wall - Math.floor(utcMs / 1000) * 1000;
}

/** The instant a local calendar day starts in `zone` (day given as a UTC date at 00:00). */
function localMidnight(zone: string, dayUtc: number): number {
  let at = dayUtc - offsetMs(zone, dayUtc);
  at = dayUtc - offsetMs(zone, at);
  return at;
}

/** RFC 3339 with the zone's offset at that instant (`2026-11-26T00:00:00-05:00`). */
function rfc3339In(zone: string, utcMs: number): string {
  const offset = offsetMs(zone, utcMs);
  const wall = new Date(utcMs + offset).toISOString().slice(0, 19);
  const sign = offset < 0 ? '-' : '+';
  const minutes = Math.abs(offset) / MINUTE;
  return `${wall}${sign}${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;
}

const iso = (ms: number) => new Date(ms).toISOString();

/** A small deterministic generator, so that a failure can be reproduced. */
function random(seed: number) {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

/** Decimal text with 2 decimals of an amount in cents. */
const money = (cents: number) => (cents / 100).toFixed(2).replace(/\.?0+$/, '') || '0';

/** What a group of hits adds up to (entrance attribution: every hit's conversions and cost). */
interface Sums {
  entrances: number;
  conversions: number;
  revenue: number;
  cost: number;
}
const sumsOf = (hits: readonly Hit[]): Sums => ({
  entrances: hits.filter((h) => h.isEntrance).length,
  conversions: hits.reduce((n, h) => n + h.conversions.length, 0),
  revenue: hits.reduce((n, h) => n + h.conversions.reduce((m, c) => m + Number(c.payout), 0), 0),
  cost: hits.reduce((n, h) => n + Number(h.cost), 0),
});

function groupBy<K>(hits: readonly Hit[], key: (hit: Hit) => K): Map<string, { key: K; hits: Hit[] }> {
  const groups = new Map<string, { key: K; hits: Hit[] }>();
  for (const hit of hits) {
    const k = key(hit);
    const id = JSON.stringify(k);
    const group = groups.get(id) ?? { key: k, hits: [] };
    group.hits.push(hit);
    groups.set(id, group);
  }
  return groups;
}

/** A report read by column name: grouping cells' raw values and metrics as numbers. */
function reading(report: Pick<DrilldownReport, 'columns'>) {
  const index = (name: string) => {
    const at = report.columns.findIndex((c) => c.name === name);
    if (at < 0) throw new Error(`no column ${name} in ${report.columns.map((c) => c.name).join(', ')}`);
    return at;
  };
  return {
    raw: (row: ReportRow, name: string) => row.cells[index(name)].raw,
    formatted: (row: ReportRow, name: string) => row.cells[index(name)].formatted,
    number: (row: ReportRow, name: string) => {
      const raw = row.cells[index(name)].raw;
      if (raw === null) throw new Error(`${name} is N/A in row ${row.rowId}`);
      return Number(raw);
    },
  };
}

const TS = 'Third Parties: Traffic Source';
const FUNNEL = 'Element: Funnel';
const LANDER = 'Element: Lander';
const COUNTRY = 'Location: Country Code';
const METRICS = ['Entrances', 'Conv.', 'Revenue', 'Cost', 'P/L'];

describeInBothModes(
  '/v1/reporting queries',
  (d) => {
    let me: { apiKey: string; accountId: string };
    let other: { apiKey: string; accountId: string };
    const call = (method: string, path: string, options: Parameters<Deployment['api']['call']>[2] = {}) =>
      d().api.call(method, path, { key: me.apiKey, ...options });
    const ok = async (method: string, path: string, options: Parameters<Deployment['api']['call']>[2] = {}) => {
      const answer = await call(method, path, options);
      if (answer.status !== 200) throw new Error(`${method} ${path} answered ${answer.status}: ${answer.text.slice(0, 500)}`);
      return answer.body;
    };
    const ingest = async (hits: Hit[]) => {
      for (let from = 0; from < hits.length; from += 5000) {
        const result = await d()
          .internal()
          .request<IngestHitsResult>(ReportingSubjects.hitsIngest, { context: undefined as never, body: { hits: hits.slice(from, from + 5000) } });
        expect(result).toMatchObject({ invalidCount: 0 });
      }
    };

    // The assets of the caller's account, named so that reports can show their names.
    const sources = { push: generateAssetId(), native: generateAssetId() };
    const sourceNames: Record<string, string> = { [sources.push]: 'Push network', [sources.native]: 'Native ads' };
    const idFunnelGroup = generateAssetId();
    const funnels = [generateAssetId(), generateAssetId()];
    const funnelNames: Record<string, string> = { [funnels[0]]: 'Sweepstakes US', [funnels[1]]: 'Quiz EU' };
    const landers = [generateAssetId(), generateAssetId(), generateAssetId()];
    const landerNames: Record<string, string> = { [landers[0]]: 'Quiz lander', [landers[1]]: 'Spin wheel', [landers[2]]: 'Advertorial' };
    const countries = ['DE', 'FR', 'US', ''];

    /** A lander entrance of the caller's account. */
    const entrance = (time: number, over: Partial<Hit> = {}): Hit =>
      aHit({
        hitId: generateAssetId(),
        visitorId: generateAssetId(),
        accountId: me.accountId,
        idFunnelGroup,
        idFunnel: funnels[0],
        idTrafficSource: sources.push,
        idNode: generateAssetId(),
        idPage: landers[0],
        nodeType: 'landerGroup',
        countryCode: 'DE',
        time: iso(time),
        isEntrance: true,
        trackingFields: { c1: 'zone-1' },
        ...over,
      });

    // The main data set: one UTC day of generated entrances in the caller's account, and hits of
    // another account with the same asset ids in the same day (which must never show).
    const DAY_START = Date.UTC(2026, 9, 5);
    const WINDOW = { timeStart: iso(DAY_START), timeEnd: iso(DAY_START + DAY) };
    const mine: Hit[] = [];
    const theirs: Hit[] = [];

    beforeAll(async () => {
      me = await d().newAccount(`reporting-queries-${d().mode}@example.com`);
      other = await d().newAccount(`reporting-queries-other-${d().mode}@example.com`);
      for (const id of Object.values(sources)) {
        const postback =
          id === sources.push ? { postbackType: 'postbackUrl', postbackCode: `${env.RECEIVER}/pb?hit={hitid}&payout={payout}&token=s3cret` } : undefined;
        await ok('POST', '/trafficsource/save/', {
          body: {
            idTrafficSource: id,
            trafficSourceName: sourceNames[id],
            trackingFieldSlots: { c1: { name: 'zone', value: '{zoneid}' } },
            ...(postback ? { postback } : {}),
          },
        });
      }
      await ok('POST', '/funnelgroup/save/', { body: { idFunnelGroup, funnelGroupName: 'Reporting queries' } });
      for (const idFunnel of funnels) await ok('POST', '/funnel/save/', { body: { idFunnel, idFunnelGroup, funnelName: funnelNames[idFunnel] } });
      for (const idPage of landers) {
        await ok('POST', '/page/save/', { body: { idPage, pageType: 'lander', pageName: landerNames[idPage], baseURL: `https://lp.example.com/${idPage}` } });
      }

      const next = random(20);
      const pick = <T>(items: readonly T[]) => items[Math.floor(next() * items.length)];
      for (let i = 0; i < 120; i++) {
        const time = DAY_START + Math.floor(next() * DAY);
        const converted = next() < 0.3;
        mine.push(
          entrance(time, {
            idTrafficSource: pick(Object.values(sources)),
            idFunnel: pick(funnels),
            idPage: pick(landers),
            countryCode: pick(countries),
            cost: money(1 + Math.floor(next() * 40)),
            trackingFields: { c1: pick(['zone-1', 'zone-2', 'Zone-10']) },
            conversions: converted ? [{ transactionId: `tx-${i}`, payout: money(100 + Math.floor(next() * 900)), time: iso(time + MINUTE) }] : [],
          }),
        );
      }
      for (let i = 0; i < 30; i++) {
        const time = DAY_START + Math.floor(next() * DAY);
        theirs.push(
          aHit({
            ...entrance(time, { countryCode: 'DE', cost: '1' }),
            accountId: other.accountId,
            conversions: [{ transactionId: `their-${i}`, payout: '1000', time: iso(time + MINUTE) }],
          }),
        );
      }
      await ingest([...mine, ...theirs]);
    });

    /** Posts a drilldown and checks what every report has: columns, totals, rowsReturned. */
    const drilldown = async (body: Record<string, unknown>, key?: string): Promise<DrilldownReport> => {
      const report = (await ok('POST', '/reporting/drilldown/', { body, ...(key ? { key } : {}) })) as DrilldownReport;
      expect(report.rowsReturned).toBe(report.rows.length);
      expect(report.totals.parentRowId).toBeNull();
      return report;
    };

    it('answers the attribute catalogue, naming tracking fields as a traffic source names them when asked for one', async () => {
      const catalogue = await ok('GET', '/reporting/attributes');
      const labels = catalogue.attributes.map((a: { label: string }) => a.label);
      expect(labels).toEqual(expect.arrayContaining([TS, FUNNEL, LANDER, COUNTRY, 'Location: Country', 'Device: Browser', 'Time: Date']));
      expect(catalogue.attributes.find((a: { label: string }) => a.label === 'Hit: Hit ID')).toMatchObject({ canGroupBy: false, canFilter: true });
      const c1 = catalogue.attributes.find((a: { key: string }) => a.key === 'c1');
      expect(c1).toMatchObject({ canGroupBy: true, canFilter: true });
      expect(c1.label).toContain('c1');
      const metrics = Object.fromEntries(catalogue.metrics.map((m: { label: string; formula: string }) => [m.label, m]));
      for (const label of [...METRICS, 'ROI', 'Unique Entrances', 'Lander CTR', 'EPa', 'CVRe']) expect(metrics[label]).toBeDefined();
      expect(metrics['P/L'].formula).toMatch(/Revenue\s*-\s*Cost/);

      const named = await ok('GET', `/reporting/attributes/?idTrafficSource=${sources.push}`);
      expect(named.attributes.find((a: { key: string }) => a.key === 'c1').label).toContain('zone');
      expect((await call('GET', '/reporting/attributes?idTrafficSource=nope')).status).toBe(400);
    });

    it('answers a drilldown by traffic source and country whose rows and totals add up to the hits', async () => {
      const report = await drilldown({ ...WINDOW, groupings: [{ groupBy: TS }, { groupBy: COUNTRY }], metrics: METRICS, paging: { length: 1000 } });
      expect(report.columns.map((c) => [c.name, c.type])).toEqual([[TS, 'grouping'], [COUNTRY, 'grouping'], ...METRICS.map((m) => [m, 'metric'])]);
      const read = reading(report);
      const expected = groupBy(mine, (h) => [h.idTrafficSource, h.countryCode || null]);
      expect(report.rowsTotal).toBe(expected.size);
      expect(report.rows).toHaveLength(expected.size);
      for (const row of report.rows) {
        expect(row.parentRowId).toBeNull();
        expect(row.children).toEqual([]);
        const source = read.raw(row, TS) as string;
        const country = read.raw(row, COUNTRY);
        expect(read.formatted(row, TS)).toBe(sourceNames[source]);
        if (country === null) expect(read.formatted(row, COUNTRY)).toBe('N/A');
        const sums = sumsOf(expected.get(JSON.stringify([source, country]))?.hits ?? []);
        expect([source, country, read.number(row, 'Entrances'), read.number(row, 'Conv.')]).toEqual([source, country, sums.entrances, sums.conversions]);
        expect(read.number(row, 'Revenue')).toBeCloseTo(sums.revenue, 6);
        expect(read.number(row, 'Cost')).toBeCloseTo(sums.cost, 6);
        expect(read.number(row, 'P/L')).toBeCloseTo(sums.revenue - sums.cost, 6);
      }
      // The N/A row (hits without a country) is there, so the rows add up to the totals.
      expect(report.rows.some((row) => read.raw(row, COUNTRY) === null)).toBe(true);
      const all = sumsOf(mine);
      expect(read.number(report.totals, 'Entrances')).toBe(all.entrances);
      expect(read.number(report.totals, 'Revenue')).toBeCloseTo(all.revenue, 6);
      expect(read.number(report.totals, 'Cost')).toBeCloseTo(all.cost, 6);
      // Sorted by Entrances, most first (the default).
      const entrances = report.rows.map((row) => read.number(row, 'Entrances'));
      expect(entrances).toEqual([...entrances].sort((a, b) => b - a));

      // A page of it: the same rows, the same exact rowsTotal.
      const page = await drilldown({ ...WINDOW, groupings: [{ groupBy: TS }, { groupBy: COUNTRY }], metrics: METRICS, paging: { start: 2, length: 3 } });
      expect(page.rowsTotal).toBe(expected.size);
      expect(page.rows.map((r) => r.rowId)).toEqual(report.rows.slice(2, 5).map((r) => r.rowId));
    });

    it('filters groupings by asset id and by case-insensitive text with wildcards, and metrics with >=', async () => {
      const native = await drilldown({
        ...WINDOW,
        groupings: [
          { groupBy: TS, whitelistFilters: [sources.native] },
          { groupBy: COUNTRY, blacklistFilters: ['d*'] },
        ],
        metrics: ['Entrances'],
        paging: { length: 1000 },
      });
      const nativeHits = mine.filter((h) => h.idTrafficSource === sources.native && !h.countryCode.startsWith('D'));
      expect(reading(native).number(native.totals, 'Entrances')).toBe(sumsOf(nativeHits).entrances);
      expect(new Set(native.rows.map((row) => reading(native).raw(row, TS)))).toEqual(new Set([sources.native]));
      expect(native.rows.map((row) => reading(native).raw(row, COUNTRY))).not.toContain('DE');

      const zones = await drilldown({ ...WINDOW, groupings: [{ groupBy: 'c1', whitelistFilters: ['ZONE-1*'] }], metrics: ['Entrances'] });
      const zoneHits = mine.filter((h) => /^zone-1/i.test(h.trackingFields.c1));
      expect(reading(zones).number(zones.totals, 'Entrances')).toBe(zoneHits.length);
      expect(zones.rows.map((row) => String(row.cells[0].raw).toLowerCase()).sort()).toEqual(['zone-1', 'zone-10']);

      const busy = await drilldown({
        ...WINDOW,
        groupings: [{ groupBy: TS }, { groupBy: COUNTRY }],
        metrics: ['Entrances'],
        columnFilters: { filterColumns: [{ columnName: 'Entrances', filter: '>= 12' }] },
        paging: { length: 1000 },
      });
      const expectedBusy = [...groupBy(mine, (h) => [h.idTrafficSource, h.countryCode || null]).values()].filter((g) => g.hits.length >= 12);
      expect(busy.rowsTotal).toBe(expectedBusy.length);
      for (const row of busy.rows) expect(reading(busy).number(row, 'Entrances')).toBeGreaterThanOrEqual(12);
    });

    it('expands a tree one level at a time: the children of each row (N/A included) add up to it', async () => {
      const groupings = [{ groupBy: TS }, { groupBy: COUNTRY }];
      const top = await drilldown({ ...WINDOW, groupings, metrics: ['Entrances', 'Revenue'], options: { viewType: 'tree' } });
      const read = reading(top);
      expect(top.rows.map((row) => read.raw(row, TS)).sort()).toEqual(Object.values(sources).sort());
      for (const parent of top.rows) {
        expect(parent.parentRowId).toBeNull();
        const children = await drilldown({
          ...WINDOW,
          groupings,
          topLevelFilters: [{ groupBy: TS, whitelistFilters: [read.raw(parent, TS) as string] }],
          metrics: ['Entrances', 'Revenue'],
          options: { viewType: 'tree' },
          paging: { length: 1000 },
        });
        const child = reading(children);
        const sourceHits = mine.filter((h) => h.idTrafficSource === read.raw(parent, TS));
        expect(children.rows.length).toBe(new Set(sourceHits.map((h) => h.countryCode)).size);
        for (const row of children.rows) expect(row.parentRowId).toBe(parent.rowId);
        const added = children.rows.reduce((n, row) => n + child.number(row, 'Entrances'), 0);
        expect(added).toBe(read.number(parent, 'Entrances'));
        expect(added).toBe(sumsOf(sourceHits).entrances);
        expect(children.rows.reduce((n, row) => n + child.number(row, 'Revenue'), 0)).toBeCloseTo(read.number(parent, 'Revenue'), 6);
        expect(child.number(children.totals, 'Entrances')).toBe(read.number(parent, 'Entrances'));
      }
    });

    it('pages raw events newest first through the cursor, every hit of the window once, with its fields', async () => {
      const seen: Hit[] = [];
      let cursor: string | undefined;
      for (let page = 0; page < 100; page++) {
        const answer = await ok('POST', '/reporting/rawevents/', { body: { ...WINDOW, limit: 25, ...(cursor ? { cursor } : {}) } });
        expect(answer.hits.length).toBeLessThanOrEqual(25);
        seen.push(...answer.hits);
        if (answer.nextCursor === null) break;
        expect(answer.hits).toHaveLength(25);
        cursor = answer.nextCursor;
      }
      const newestFirst = [...mine].sort((a, b) => b.time.localeCompare(a.time) || (a.hitId < b.hitId ? 1 : a.hitId > b.hitId ? -1 : 0));
      expect(seen.map((h) => h.hitId)).toEqual(newestFirst.map((h) => h.hitId));
      const byId = new Map(mine.map((h) => [h.hitId, h]));
      for (const hit of seen) {
        const given = byId.get(hit.hitId)!;
        expect(hit).toMatchObject({
          visitorId: given.visitorId,
          idTrafficSource: given.idTrafficSource,
          idFunnel: given.idFunnel,
          idPage: given.idPage,
          countryCode: given.countryCode,
          trackingFields: given.trackingFields,
          nodeType: 'landerGroup',
          isEntrance: true,
        });
        expect(Date.parse(hit.time)).toBe(Date.parse(given.time));
        expect(Number(hit.cost)).toBeCloseTo(Number(given.cost), 6);
        expect(hit.conversions.map((c) => Number(c.payout))).toEqual(given.conversions.map((c) => Number(c.payout)));
      }

      const french = await ok('POST', '/reporting/rawevents/', { body: { ...WINDOW, filters: [{ groupBy: COUNTRY, whitelistFilters: ['fr'] }], limit: 1000 } });
      expect(french.hits.map((h: Hit) => h.hitId).sort()).toEqual(
        mine
          .filter((h) => h.countryCode === 'FR')
          .map((h) => h.hitId)
          .sort(),
      );
      expect(french.nextCursor).toBeNull();
    });

    it("looks up a visitor (by visitor and window, or by one of its hits) and a single hit; another account's hit is not found", async () => {
      const t0 = Date.UTC(2026, 9, 8, 14, 0, 0);
      const visitorId = generateAssetId();
      const first = entrance(t0, { visitorId, idTrafficSource: sources.native, countryCode: 'FR', cost: '0.4', trackingFields: { c1: 'zone-7' } });
      const offer = aHit({
        ...entrance(t0 + MINUTE, { visitorId, idTrafficSource: sources.native, countryCode: 'FR' }),
        isEntrance: false,
        nodeType: 'offerGroup',
        idPage: generateAssetId(),
        action: 1,
        previousHitId: first.hitId,
        conversions: [{ transactionId: 'visitor-tx', payout: '7.5', time: iso(t0 + 5 * MINUTE) }],
      });
      await ingest([first]);
      await ingest([offer]);
      const window = { timeStart: iso(t0 - HOUR), timeEnd: iso(t0 + HOUR) };
      const byVisitor = await ok('POST', '/reporting/explorer/visitor/', { body: { visitorId, ...window } });
      expect(byVisitor.visitor).toMatchObject({
        visitorId,
        entranceHitId: first.hitId,
        idTrafficSource: sources.native,
        idFunnel: funnels[0],
        countryCode: 'FR',
        trackingFields: { c1: 'zone-7' },
        hits: 2,
        conversions: 1,
      });
      expect(Date.parse(byVisitor.visitor.firstSeen)).toBe(t0);
      expect(Date.parse(byVisitor.visitor.lastSeen)).toBe(t0 + MINUTE);
      expect(Number(byVisitor.visitor.revenue)).toBeCloseTo(7.5, 6);
      expect(Number(byVisitor.visitor.cost)).toBeCloseTo(0.4, 6);
      expect(byVisitor.hits.map((h: Hit) => h.hitId)).toEqual([first.hitId, offer.hitId]);
      expect(byVisitor.hits[1].conversions).toEqual([expect.objectContaining({ transactionId: 'visitor-tx' })]);
      expect(byVisitor.hasMore).toBe(false);
      expect(await ok('POST', '/reporting/explorer/visitor', { body: { hitId: offer.hitId } })).toEqual(byVisitor);

      const hit = await ok('POST', '/reporting/explorer/hit/', { body: { hitId: first.hitId } });
      // The lander's click: the offer hit came from it with action 1.
      expect(hit).toMatchObject({ hitId: first.hitId, visitorId, isEntrance: true, clicks: 1 });
      const notFound = await call('POST', '/reporting/explorer/hit', { body: { hitId: theirs[0].hitId } });
      expect([notFound.status, notFound.body.code]).toEqual([404, 'REPORTING.HIT_NOT_FOUND']);
      expect((await call('POST', '/reporting/explorer/visitor', { body: { hitId: theirs[0].hitId } })).status).toBe(404);
    });

    it("lists a conversion's postback in the postback log, filtered by traffic source, funnel and status, secrets masked", async () => {
      const since = Date.now() - MINUTE;
      const converted = entrance(Date.UTC(2026, 9, 9, 10, 0, 0), { idTrafficSource: sources.push, idFunnel: funnels[1] });
      await ingest([converted]);
      const { jobIds } = await ok('PUT', '/reporting/update/conversions/', { body: { hits: [{ hitId: converted.hitId, payout: 4 }], postbackCalls: 'all' } });
      const window = { timeStart: iso(since), timeEnd: iso(Date.now() + HOUR) };
      let rows: { hitId: string; status: string }[] = [];
      for (let i = 0; i < 400; i++) {
        const log = await ok('POST', '/reporting/logs/postbacks/', { body: { ...window, trafficSourceIds: [sources.push] } });
        expect(log.rowsReturned).toBe(log.rows.length);
        rows = log.rows.filter((row: { hitId: string }) => row.hitId === converted.hitId);
        if (rows.length && rows.every((row) => row.status === 'delivered')) break;
        await sleep(50);
      }
      expect(rows).toEqual([
        expect.objectContaining({
          jobId: jobIds[0],
          rowIndex: 0,
          hitId: converted.hitId,
          idTrafficSource: sources.push,
          idFunnel: funnels[1],
          kind: 'postbackUrl',
          status: 'delivered',
          attempts: 1,
          lastError: null,
          url: `${env.RECEIVER}/pb?hit=${converted.hitId}&payout=4&token=********`,
        }),
      ]);
      const hitIdsOf = async (body: Record<string, unknown>, key?: string) =>
        (await ok('POST', '/reporting/logs/postbacks', { body: { ...window, ...body }, ...(key ? { key } : {}) })).rows.map(
          (row: { hitId: string }) => row.hitId,
        );
      expect(await hitIdsOf({ funnelIds: [funnels[1]], statuses: ['delivered'] })).toContain(converted.hitId);
      expect(await hitIdsOf({ statuses: ['failed', 'pending'] })).not.toContain(converted.hitId);
      expect(await hitIdsOf({ trafficSourceIds: [sources.native] })).not.toContain(converted.hitId);
      expect(await hitIdsOf({ funnelIds: [funnels[0]] })).not.toContain(converted.hitId);
      expect(await hitIdsOf({}, other.apiKey)).toEqual([]);
    });

    it("keeps every query to the caller's account: another account's hits with the same assets never show", async () => {
      const body = { ...WINDOW, groupings: [{ groupBy: TS }], metrics: ['Entrances', 'Revenue'] };
      const mineReport = await drilldown(body);
      expect(reading(mineReport).number(mineReport.totals, 'Entrances')).toBe(mine.length);
      const theirsReport = await drilldown(body, other.apiKey);
      expect(reading(theirsReport).number(theirsReport.totals, 'Entrances')).toBe(theirs.length);
      expect(reading(theirsReport).number(theirsReport.totals, 'Revenue')).toBeCloseTo(1000 * theirs.length, 6);
      const raw = await ok('POST', '/reporting/rawevents/', { body: { ...WINDOW, limit: 1000 } });
      const theirIds = new Set(theirs.map((h) => h.hitId));
      expect(raw.hits.filter((h: Hit) => theirIds.has(h.hitId))).toEqual([]);
      // Their visitor has no hits in this account: not found, or found with none of their hits.
      const visitor = await call('POST', '/reporting/explorer/visitor', { body: { visitorId: theirs[0].visitorId, ...WINDOW } });
      expect(visitor.status === 404 ? [] : visitor.body.hits).toEqual([]);
    });

    it('refuses bad input with 400 naming the field, and an unknown metric or attribute with the nearest name', async () => {
      const base = { ...WINDOW, groupings: [{ groupBy: TS }] };
      const metric = await call('POST', '/reporting/drilldown/', { body: { ...base, metrics: ['Entrace'] } });
      expect([metric.status, metric.body.code]).toEqual([400, 'REPORTING.UNKNOWN_NAME']);
      expect(metric.body.error).toContain('Entrace');
      expect(metric.body.error).toContain('Entrances');
      const attribute = await call('POST', '/reporting/drilldown/', { body: { ...base, groupings: [{ groupBy: 'Location: Contry' }] } });
      expect([attribute.status, attribute.body.code]).toEqual([400, 'REPORTING.UNKNOWN_NAME']);
      expect(attribute.body.error).toContain('Location: Country');
      for (const [body, field, code] of [
        [{ ...base, paging: { length: 10_001 } }, 'paging.length', 'max'],
        [{ ...base, colour: 'red' }, 'colour', 'unknownField'],
        [{ ...base, timeEnd: '2027-10-07T00:00:00Z' }, 'timeEnd', 'maxWindow'],
        [{ ...base, timeStart: '2026-10-05' }, 'timeStart', 'isIso8601'],
        [{ ...base, options: { viewType: 'mixed' } }, 'options.viewType', 'isIn'],
        [{ ...base, groupings: [] }, 'groupings', 'arrayMinSize'],
      ] as const) {
        const refused = await call('POST', '/reporting/drilldown/', { body });
        expect([field, refused.status, refused.body.code, refused.body.details[0]]).toEqual([
          field,
          400,
          'REQUEST.VALIDATION_FAILED',
          expect.objectContaining({ field, code }),
        ]);
      }
      const both = await call('POST', '/reporting/explorer/visitor', { body: { hitId: mine[0].hitId, visitorId: mine[0].visitorId, ...WINDOW } });
      expect(both.status).toBe(400);
      expect((await call('POST', '/reporting/rawevents', { body: { ...WINDOW, limit: 1001 } })).body.details[0]).toMatchObject({ field: 'limit' });
    });

    it('needs reporting:read, which reporting:write implies: 401 without a credential, 403 without the permission', async () => {
      const keyWith = async (permissions: string[]) =>
        (await ok('POST', '/apikeys/generate/', { body: { name: permissions.join(' ') || 'none', permissions } })).key;
      const [assets, reader, writer] = [await keyWith(['assets:read']), await keyWith(['reporting:read']), await keyWith(['reporting:write'])];
      const routes: [string, string, unknown][] = [
        ['GET', '/reporting/attributes/', undefined],
        ['POST', '/reporting/drilldown/', { ...WINDOW, groupings: [{ groupBy: TS }] }],
        ['POST', '/reporting/rawevents/', { ...WINDOW, limit: 1 }],
        ['POST', '/reporting/explorer/visitor/', { hitId: mine[0].hitId }],
        ['POST', '/reporting/explorer/hit/', { hitId: mine[0].hitId }],
        ['POST', '/reporting/logs/postbacks/', WINDOW],
      ];
      for (const [method, path, body] of routes) {
        expect([path, (await call(method, path, { key: '', body })).status]).toEqual([path, 401]);
        expect([path, (await call(method, path, { key: assets, body })).status]).toEqual([path, 403]);
        expect([path, (await call(method, path, { key: reader, body })).status]).toEqual([path, 200]);
        expect([path, (await call(method, path, { key: writer, body })).status]).toEqual([path, 200]);
      }
      // Reading reports does not allow updates.
      expect((await call('PUT', '/reporting/update/conversions/', { key: reader, body: { hits: [{ hitId: mine[0].hitId, payout: 1 }] } })).status).toBe(403);
    });

    it('answers "which source, funnel, lander and country made money yesterday in my time zone"', async () => {
      // Yesterday in New York, as a buyer there sees it: local midnight to local midnight.
      const now = Date.now();
      const today = new Date(now + offsetMs(NY, now));
      const todayUtc = Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate());
      const start = localMidnight(NY, todayUtc - DAY);
      const end = localMidnight(NY, todayUtc);
      const at = (ms: number, source: string, funnel: string, lander: string, country: string, costCents: number, payoutCents: number[]) =>
        entrance(ms, {
          idTrafficSource: source,
          idFunnel: funnel,
          idPage: lander,
          countryCode: country,
          cost: money(costCents),
          conversions: payoutCents.map((cents, i) => ({ transactionId: `y-${ms}-${i}`, payout: money(cents), time: iso(ms + MINUTE) })),
        });
      const inside = [
        at(start + 10 * MINUTE, sources.push, funnels[0], landers[0], 'US', 150, [900]),
        at(start + 3 * HOUR, sources.push, funnels[0], landers[0], 'US', 150, []),
        at(start + 12 * HOUR, sources.push, funnels[0], landers[1], 'US', 300, [250]),
        at(start + 13 * HOUR, sources.native, funnels[1], landers[2], 'DE', 80, [400, 100]),
        at(start + 18 * HOUR, sources.native, funnels[1], landers[2], '', 20, [260]),
        at(end - 10 * MINUTE, sources.native, funnels[0], landers[0], 'FR', 500, [200]),
        at(end - 1000, sources.push, funnels[1], landers[1], 'DE', 10, [1210]),
      ];
      // Just before and just after the local day (inside the UTC day on one side): they must not count.
      const outside = [
        at(start - 20 * MINUTE, sources.native, funnels[0], landers[1], 'FR', 0, [50_000]),
        at(start - 1, sources.push, funnels[0], landers[0], 'US', 0, [50_000]),
        at(end, sources.push, funnels[1], landers[2], 'US', 0, [50_000]),
        at(end + 5 * MINUTE, sources.native, funnels[1], landers[2], 'DE', 0, [50_000]),
      ];
      await ingest([...inside, ...outside]);

      const report = await drilldown({
        timeStart: rfc3339In(NY, start),
        timeEnd: rfc3339In(NY, end),
        timeZone: NY,
        groupings: [{ groupBy: TS }, { groupBy: FUNNEL }, { groupBy: LANDER }, { groupBy: COUNTRY }],
        metrics: ['Revenue', 'Cost', 'P/L'],
        columnFilters: { filterColumns: [{ columnName: 'P/L', filter: '> 0' }] },
        sorting: { sortingColumns: [{ columnName: 'P/L', order: 'desc' }] },
        paging: { length: 100 },
      });
      const read = reading(report);
      const expected = [...groupBy(inside, (h) => [h.idTrafficSource, h.idFunnel, h.idPage, h.countryCode || null]).values()]
        .map(({ key, hits }) => ({ key, sums: sumsOf(hits) }))
        .filter(({ sums }) => sums.revenue - sums.cost > 0)
        .sort((a, b) => b.sums.revenue - b.sums.cost - (a.sums.revenue - a.sums.cost));
      // The data set is as meant: four groups made money, two lost it.
      expect(expected.map(({ key }) => key[3])).toEqual(['DE', 'US', 'DE', null]);
      expect(report.rowsTotal).toBe(expected.length);
      expect(
        report.rows.map((row) => [read.formatted(row, TS), read.formatted(row, FUNNEL), read.formatted(row, LANDER), read.formatted(row, COUNTRY)]),
      ).toEqual(expected.map(({ key: [s, f, l, c] }) => [sourceNames[s!], funnelNames[f!], landerNames[l!], c ?? 'N/A']));
      report.rows.forEach((row, i) => {
        expect([read.raw(row, TS), read.raw(row, FUNNEL), read.raw(row, LANDER), read.raw(row, COUNTRY)]).toEqual(expected[i].key);
        expect(read.number(row, 'P/L')).toBeCloseTo(expected[i].sums.revenue - expected[i].sums.cost, 6);
        expect(read.number(row, 'Revenue')).toBeCloseTo(expected[i].sums.revenue, 6);
      });
      // The totals cover every hit of the day (the losing ones too), and nothing of the hours around it.
      const day = sumsOf(inside);
      expect(read.number(report.totals, 'Revenue')).toBeCloseTo(day.revenue, 6);
      expect(read.number(report.totals, 'P/L')).toBeCloseTo(day.revenue - day.cost, 6);
    });
  },
  env,
);
