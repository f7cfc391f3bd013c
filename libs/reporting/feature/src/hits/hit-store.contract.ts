import fc from 'fast-check';
import {
  HIT_VISITOR_FIELDS,
  aHit,
  hitDefaults,
  matchesEntranceQuery,
  matchesHitFilter,
  type EntranceQuery,
  type Hit,
  type HitFilter,
} from '@funnel/reporting-domain';
import type { AppliedRow, HitStore } from './hit-store';
import { ingestHits } from './ingest-hits';

/** Creates a fresh, empty store for one test; `cleanup` releases it (and drops what it wrote). */
export type HitStoreContractFactory = () => Promise<{ store: HitStore; cleanup(): Promise<void> }>;

const ACCOUNT = 'ACCOUNT00001';
const OTHER_ACCOUNT = 'ACCOUNT00002';

/** A hit with 12-character ids; `n` picks the hitId. */
export function contractHit(n: number, overrides: Partial<Hit> = {}): Hit {
  return aHit({ hitId: `HIT${String(n).padStart(9, '0')}`, accountId: ACCOUNT, ...overrides });
}

const window = { timeStart: '2026-01-10T00:00:00Z', timeEnd: '2026-01-11T00:00:00Z' };
const byId = <H extends { hitId: string }>(hits: H[]) => [...hits].sort((a, b) => (a.hitId < b.hitId ? -1 : 1));
const row = (rowIndex: number, overrides: Partial<AppliedRow> = {}): AppliedRow => ({ rowIndex, outcome: 'applied', hits: 1, postbacks: [], ...overrides });

/** Small value domains so that random filters match some hits and miss others. */
const FUNNELS = ['FUNNEL000001', 'FUNNEL000002'];
const GROUPS = ['FGROUP000001', 'FGROUP000002'];
const SOURCES = ['TSOURCE00001', 'TSOURCE00002', 'organic'];
const COUNTRIES = ['US', 'DE', ''];
const VISITORS = ['VISITOR00001', 'VISITOR00002'];
const IPS = ['203.0.113.7', '2001:db8::1', ''];
const TIMES = ['2026-01-09T23:59:59.999Z', '2026-01-10T00:00:00.000Z', '2026-01-10T13:30:00.000Z', '2026-01-10T23:59:59.999Z', '2026-01-11T00:00:00.000Z'];
const SLOT_VALUES = ['a', 'b', ''];
const hitArbitrary = (n: number) =>
  fc
    .record({
      idFunnel: fc.constantFrom(...FUNNELS),
      idFunnelGroup: fc.constantFrom(...GROUPS),
      idTrafficSource: fc.constantFrom(...SOURCES),
      countryCode: fc.constantFrom(...COUNTRIES),
      visitorId: fc.constantFrom(...VISITORS),
      ip: fc.constantFrom(...IPS),
      time: fc.constantFrom(...TIMES),
      isEntrance: fc.boolean(),
      external: fc.option(fc.constantFrom(...SLOT_VALUES), { nil: undefined }),
      c1: fc.option(fc.constantFrom(...SLOT_VALUES), { nil: undefined }),
    })
    .map(({ external, c1, ...fields }) =>
      contractHit(n, { ...fields, trackingFields: { ...(external !== undefined ? { external } : {}), ...(c1 !== undefined ? { c1 } : {}) } }),
    );
const hitsArbitrary = fc.integer({ min: 0, max: 12 }).chain((count) => fc.tuple(...Array.from({ length: count }, (_, i) => hitArbitrary(i))));
const subset = <T>(values: T[]) => fc.subarray(values);
const filterArbitrary: fc.Arbitrary<HitFilter> = fc.record({
  timeStart: fc.constantFrom('2026-01-10T00:00:00.000Z', '2026-01-09T00:00:00.000Z'),
  timeEnd: fc.constantFrom('2026-01-11T00:00:00.000Z', '2026-01-10T23:59:59.999Z'),
  funnelGroupIds: subset(GROUPS),
  funnelIds: subset(FUNNELS),
  trafficSourceIds: subset(SOURCES),
  countryCodes: subset(COUNTRIES.filter(Boolean)),
  visitorIds: subset(VISITORS),
  ips: subset(IPS.filter(Boolean)),
  trackingFields: fc.dictionary(fc.constantFrom('external', 'c1', 'c2'), subset(SLOT_VALUES), { maxKeys: 2 }),
});
const entranceQueryArbitrary: fc.Arbitrary<EntranceQuery> = fc.record({
  timeStart: fc.constantFrom('2026-01-10T00:00:00.000Z', '2026-01-09T00:00:00.000Z'),
  timeEnd: fc.constantFrom('2026-01-11T00:00:00.000Z', '2026-01-10T23:59:59.999Z'),
  funnelIds: subset(FUNNELS),
  trafficSourceIds: subset(SOURCES),
  countryCode: fc.constantFrom('', 'US', 'DE'),
  trackingFields: fc.array(fc.record({ key: fc.constantFrom('external', 'c1'), value: fc.constantFrom(...SLOT_VALUES) }), { maxLength: 2 }),
});

/**
 * The behaviour every HitStore adapter must share. Registers a jest `describe` block; call it from
 * an adapter's spec file.
 */
export function describeHitStoreContract(adapterName: string, factory: HitStoreContractFactory, options: { propertyRuns?: number } = {}): void {
  const numRuns = options.propertyRuns ?? 25;

  describe(`HitStore contract: ${adapterName}`, () => {
    let store: HitStore;
    let cleanup: () => Promise<void>;

    beforeEach(async () => {
      ({ store, cleanup } = await factory());
    });
    afterEach(async () => {
      await cleanup();
    });

    it('stores hits and reads them back by id, scoped to the account', async () => {
      const hit = contractHit(1, {
        trackingFields: { external: 'clk', c20: 'z' },
        cost: '0.125',
        conversions: [{ transactionId: 'T1', payout: '12.5', time: '2026-01-10T12:05:00.000Z' }],
        customEvents: { '3': 2 },
        postbackCalled: true,
        isEntrance: false,
      });
      const foreign = contractHit(2, { accountId: OTHER_ACCOUNT });
      expect(await store.insertHits([hit, foreign])).toEqual({ inserted: 2, ignored: 0 });
      expect(await store.getHits(ACCOUNT, [hit.hitId, foreign.hitId, 'HIT999999999'])).toEqual([hit]);
      expect(await store.getHits(OTHER_ACCOUNT, [hit.hitId, foreign.hitId])).toEqual([foreign]);
      expect(await store.getHits(ACCOUNT, [])).toEqual([]);
    });

    it('keeps every field of a hit: node, offer source, action, previous hit, visitor, tags, clicks, all slots and events', async () => {
      const hit = contractHit(1, {
        trackingFields: { campaign: 'spring', external: 'clk-9', c1: 'a', c7: 'b b', c20: 'ü' },
        conversions: [
          { transactionId: 'T1', payout: '12.5', time: '2026-01-10T12:05:00.000Z' },
          { transactionId: '', payout: '0.000001', time: '2026-01-11T00:00:00.000Z' },
        ],
        customEvents: { '1': 1, '10': 7 },
        cost: '123456789012.123456',
        nodeType: 'offerGroup',
        idOfferSource: 'OSOURCE00001',
        action: 64,
        previousHitId: 'HIT000000777',
        visitor: Object.fromEntries(HIT_VISITOR_FIELDS.map((field, i) => [field, `${field}-${i}`])) as Hit['visitor'],
        visitorTags: ['TAG000000001', 'TAG000000002'],
        clicks: 3,
        isEntrance: false,
        postbackCalled: true,
      });
      await store.insertHits([hit]);
      expect(await store.getHits(ACCOUNT, [hit.hitId])).toEqual([hit]);
    });

    it('reads a hit ingested without the fields added later with their empty values', async () => {
      const { nodeType: _n, idOfferSource: _o, action: _a, previousHitId: _p, visitor: _v, visitorTags: _t, clicks: _c, ...old } = contractHit(1);
      expect((await ingestHits(store, [old])).inserted).toBe(1);
      expect(await store.getHits(ACCOUNT, [old.hitId])).toEqual([{ ...old, ...hitDefaults() }]);
    });

    it('counts a click on the previous hit when an action hit arrives after it, within 48 hours, once', async () => {
      const at = (hours: number) => new Date(Date.UTC(2026, 0, 10) + hours * 3600_000).toISOString();
      const lander = contractHit(1, { time: at(0) });
      const offer = contractHit(2, { time: at(1), action: 1, previousHitId: lander.hitId, isEntrance: false });
      await store.insertHits([lander]);
      await store.insertHits([offer]);
      // Ingested again: ignored, no second click.
      await store.insertHits([offer]);
      // In one batch with its previous hit, and a second action from the same hit.
      const other = contractHit(3, { time: at(2) });
      await store.insertHits([
        contractHit(4, { time: at(3), action: 2, previousHitId: other.hitId, isEntrance: false }),
        other,
        contractHit(5, { time: at(4), action: 1, previousHitId: lander.hitId, isEntrance: false }),
      ]);
      // Not counted: more than 48 h later, earlier than its previous hit, no action, or another account's hit.
      await store.insertHits([
        contractHit(6, { time: at(49), action: 1, previousHitId: lander.hitId }),
        contractHit(7, { time: at(1), action: 1, previousHitId: other.hitId }),
        contractHit(8, { time: at(5), action: 0, previousHitId: other.hitId }),
        contractHit(9, { time: at(5), action: 1, previousHitId: lander.hitId, accountId: OTHER_ACCOUNT }),
      ]);
      const clicks = byId(await store.getHits(ACCOUNT, [lander.hitId, offer.hitId, other.hitId])).map((hit) => hit.clicks);
      expect(clicks).toEqual([2, 0, 1]);
      // A click is not undone or redone by updates of the hit.
      const changed: Hit = { ...lander, clicks: 2, cost: '1' };
      await store.commitRows(ACCOUNT, 'JOB000000001', [changed], [row(0)]);
      expect((await store.getHits(ACCOUNT, [lander.hitId]))[0]).toMatchObject({ clicks: 2, cost: '1' });
    });

    it('ignores a hitId already stored for the account, also within one batch', async () => {
      await store.insertHits([contractHit(1, { cost: '1' })]);
      expect(await store.insertHits([contractHit(1, { cost: '2' }), contractHit(2), contractHit(2, { cost: '3' })])).toEqual({ inserted: 1, ignored: 2 });
      expect(byId(await store.getHits(ACCOUNT, [contractHit(1).hitId, contractHit(2).hitId])).map((hit) => hit.cost)).toEqual(['1', '0']);
      expect(await store.insertHits([contractHit(1, { accountId: OTHER_ACCOUNT })])).toEqual({ inserted: 1, ignored: 0 });
    });

    it('finds the entrances of a cost segment in hitId order, start inclusive, end exclusive', async () => {
      await store.insertHits([
        contractHit(5, { time: '2026-01-10T00:00:00.000Z' }),
        contractHit(3, { time: '2026-01-10T23:59:59.999Z' }),
        contractHit(4, { time: '2026-01-11T00:00:00.000Z' }),
        contractHit(1, { isEntrance: false }),
        contractHit(2, { countryCode: 'DE', trackingFields: { c1: 'x' } }),
        contractHit(6, { accountId: OTHER_ACCOUNT }),
      ]);
      const all = await store.findEntrances(ACCOUNT, { funnelIds: [], trafficSourceIds: [], ...window });
      expect(all.map((hit) => hit.hitId)).toEqual([contractHit(2).hitId, contractHit(3).hitId, contractHit(5).hitId]);
      const german = await store.findEntrances(ACCOUNT, {
        funnelIds: ['FUNNEL000001'],
        trafficSourceIds: ['TSOURCE00001'],
        ...window,
        countryCode: 'DE',
        trackingFields: [{ key: 'c1', value: 'x' }],
      });
      expect(german.map((hit) => hit.hitId)).toEqual([contractHit(2).hitId]);
      expect(await store.findEntrances(ACCOUNT, { funnelIds: ['FUNNEL000002'], trafficSourceIds: [], ...window })).toEqual([]);
    });

    it('finds exactly the entrances the domain rule matches', async () => {
      await fc.assert(
        fc.asyncProperty(hitsArbitrary, entranceQueryArbitrary, async (hits, query) => {
          const { store: fresh, cleanup: release } = await factory();
          try {
            await fresh.insertHits(hits);
            const expected = hits
              .filter((hit) => matchesEntranceQuery(hit, query))
              .map((hit) => hit.hitId)
              .sort();
            expect((await fresh.findEntrances(ACCOUNT, query)).map((hit) => hit.hitId)).toEqual(expected);
          } finally {
            await release();
          }
        }),
        { numRuns },
      );
    });

    it('counts exactly the hits the domain reset rule matches', async () => {
      await fc.assert(
        fc.asyncProperty(hitsArbitrary, filterArbitrary, async (hits, filter) => {
          const { store: fresh, cleanup: release } = await factory();
          try {
            await fresh.insertHits([...hits, contractHit(99, { accountId: OTHER_ACCOUNT })]);
            expect(await fresh.countHits(ACCOUNT, filter)).toBe(hits.filter((hit) => matchesHitFilter(hit, filter)).length);
          } finally {
            await release();
          }
        }),
        { numRuns },
      );
    });

    it('reads the states updates change, scoped to the account, as getHits has them', async () => {
      const hit = contractHit(1, {
        trackingFields: { campaign: 'spring', external: 'click/1', c20: 'last' },
        cost: '0.125',
        conversions: [{ transactionId: 'T1', payout: '2.5', time: '2026-01-10T12:00:00.000Z' }],
        customEvents: { '1': 3, '10': 1 },
        postbackCalled: true,
        idTrafficSource: 'TSOURCE00007',
        idFunnel: 'FUNNEL000007',
      });
      await store.insertHits([hit, contractHit(2), contractHit(3, { accountId: OTHER_ACCOUNT })]);
      const states = byId(await store.getHitStates(ACCOUNT, [hit.hitId, contractHit(2).hitId, contractHit(3).hitId, 'HIT999999999']));
      const project = ({ accountId, hitId, time, idFunnel, idTrafficSource, trackingFields, cost, conversions, customEvents, postbackCalled }: Hit) => ({
        accountId,
        hitId,
        time,
        idFunnel,
        idTrafficSource,
        trackingFields,
        cost,
        conversions,
        customEvents,
        postbackCalled,
      });
      expect(states).toEqual([project(hit), project(contractHit(2))]);
      expect(await store.getHitStates(ACCOUNT, [])).toEqual([]);
      // Only the tracking fields of the slots asked for (unknown slot names are no fields), only the updated fields asked for.
      const narrow = byId(await store.getHitStates(ACCOUNT, [hit.hitId, contractHit(2).hitId], { trackingSlots: ['c20', 'external', 'c99'] }));
      expect(narrow).toEqual([
        { ...project(hit), trackingFields: { external: 'click/1', c20: 'last' } },
        { ...project(contractHit(2)), trackingFields: {} },
      ]);
      const empty = { cost: '0', conversions: [], customEvents: {}, postbackCalled: false };
      expect(byId(await store.getHitStates(ACCOUNT, [hit.hitId], { trackingSlots: [], fields: [] }))).toEqual([
        { ...project(hit), ...empty, trackingFields: {} },
      ]);
      expect(byId(await store.getHitStates(ACCOUNT, [hit.hitId], { fields: ['conversions'] }))).toEqual([{ ...project(hit), cost: '0', customEvents: {} }]);
      expect(byId(await store.getHitStates(ACCOUNT, [hit.hitId], { trackingSlots: ['campaign'], fields: ['cost', 'customEvents'] }))).toEqual([
        { ...project(hit), conversions: [], postbackCalled: false, trackingFields: { campaign: 'spring' } },
      ]);
    });

    it('stores only the fields a commit names, leaving the others as they are', async () => {
      const hit = contractHit(1, {
        cost: '0.125',
        conversions: [{ transactionId: 'T1', payout: '2.5', time: '2026-01-10T12:00:00.000Z' }],
        customEvents: { '2': 4 },
        postbackCalled: true,
      });
      await store.insertHits([hit]);
      const [read] = await store.getHitStates(ACCOUNT, [hit.hitId], { trackingSlots: [], fields: ['customEvents'] });
      await store.commitRows(
        ACCOUNT,
        'JOB000000001',
        [{ ...read, customEvents: { '2': 5 } }],
        [{ rowIndex: 0, outcome: 'applied', hits: 1, postbacks: [] }],
        ['customEvents'],
      );
      const conversion = { transactionId: 'T2', payout: '1', time: '2026-01-11T00:00:00.000Z' };
      const [again] = await store.getHitStates(ACCOUNT, [hit.hitId], { fields: ['conversions'] });
      await store.commitRows(
        ACCOUNT,
        'JOB000000002',
        [{ ...again, conversions: [...again.conversions, conversion], postbackCalled: false }],
        [{ rowIndex: 0, outcome: 'applied', hits: 1, postbacks: [] }],
        ['conversions'],
      );
      const [stored] = await store.getHits(ACCOUNT, [hit.hitId]);
      expect(stored).toEqual({ ...hit, customEvents: { '2': 5 }, conversions: [...hit.conversions, conversion], postbackCalled: false });
    });

    it('commits changed hits with their job rows, and reads the rows back for that job and account only', async () => {
      const hit = contractHit(1);
      await store.insertHits([hit, contractHit(1, { accountId: OTHER_ACCOUNT })]);
      const changed: Hit = {
        ...hit,
        conversions: [{ transactionId: '', payout: '3', time: '2026-01-10T12:00:00.000Z' }],
        cost: '0.5',
        customEvents: { '1': 4 },
        postbackCalled: true,
      };
      const intent = {
        deliveryId: 'JOB000000001:0',
        hitId: hit.hitId,
        idTrafficSource: 'TSOURCE00001',
        postbackType: 'postbackUrl' as const,
        action: 'call' as const,
        target: 'https://ts.example/pb?p=3',
        payout: '3',
      };
      await store.commitRows(
        ACCOUNT,
        'JOB000000001',
        [changed],
        [row(0, { postbacks: [intent] }), row(1, { outcome: 'notFound', hits: 0 }), row(2, { outcome: 'failed', error: 'bad', hits: 0 })],
      );
      expect(await store.getHits(ACCOUNT, [hit.hitId])).toEqual([changed]);
      expect(await store.getHits(OTHER_ACCOUNT, [hit.hitId])).toEqual([contractHit(1, { accountId: OTHER_ACCOUNT })]);
      expect(await store.appliedRows(ACCOUNT, 'JOB000000001')).toEqual([
        row(0, { postbacks: [intent] }),
        row(1, { outcome: 'notFound', hits: 0 }),
        row(2, { outcome: 'failed', error: 'bad', hits: 0 }),
      ]);
      expect(await store.appliedRows(OTHER_ACCOUNT, 'JOB000000001')).toEqual([]);
      expect(await store.appliedRows(ACCOUNT, 'JOB000000002')).toEqual([]);
    });

    it('keeps the first record of a job row and does not create hits it does not have', async () => {
      await store.commitRows(ACCOUNT, 'JOB000000001', [contractHit(7, { cost: '9' })], [row(0, { hits: 1 })]);
      await store.commitRows(ACCOUNT, 'JOB000000001', [], [row(0, { outcome: 'noop', hits: 0 }), row(1)]);
      expect(await store.getHits(ACCOUNT, [contractHit(7).hitId])).toEqual([]);
      expect(await store.appliedRows(ACCOUNT, 'JOB000000001')).toEqual([row(0), row(1)]);
    });

    it('commits several jobs in order, each with its own rows, the later state of a hit standing, and reads their rows at once', async () => {
      await store.insertHits([contractHit(1), contractHit(2), contractHit(1, { accountId: OTHER_ACCOUNT })]);
      await store.commitRows(ACCOUNT, 'JOB000000005', [], [row(0)]);
      await store.commitJobs(ACCOUNT, [
        { jobId: 'JOB000000004', changed: [contractHit(1, { cost: '1' }), contractHit(2, { cost: '2' })], rows: [row(0), row(1)] },
        { jobId: 'JOB000000005', changed: [contractHit(1, { cost: '5' })], rows: [row(0, { outcome: 'noop', hits: 0 }), row(1)] },
        { jobId: 'JOB000000006', changed: [], rows: [row(0, { outcome: 'notFound', hits: 0 })] },
      ]);
      expect(byId(await store.getHits(ACCOUNT, [contractHit(1).hitId, contractHit(2).hitId])).map((hit) => hit.cost)).toEqual(['5', '2']);
      expect(await store.getHits(OTHER_ACCOUNT, [contractHit(1).hitId])).toEqual([contractHit(1, { accountId: OTHER_ACCOUNT })]);
      const recorded = await store.appliedRowsOfJobs(ACCOUNT, ['JOB000000004', 'JOB000000005', 'JOB000000006', 'JOB000000007']);
      expect(Object.fromEntries(recorded)).toEqual({
        JOB000000004: [row(0), row(1)],
        JOB000000005: [row(0), row(1)],
        JOB000000006: [row(0, { outcome: 'notFound', hits: 0 })],
      });
      expect(await store.appliedRowsOfJobs(OTHER_ACCOUNT, ['JOB000000004'])).toEqual(new Map());
    });

    it('records a job row once across deliveries, after its rows were read and while another delivery commits', async () => {
      await store.insertHits([contractHit(1)]);
      expect(await store.appliedRows(ACCOUNT, 'JOB000000003')).toEqual([]);
      await store.commitRows(ACCOUNT, 'JOB000000003', [contractHit(1, { cost: '1' })], [row(0), row(1)]);
      const [second, third] = await Promise.all([
        store.commitRows(ACCOUNT, 'JOB000000003', [], [row(1, { outcome: 'noop', hits: 0 }), row(2)]),
        store.appliedRows(ACCOUNT, 'JOB000000003').then(async (first) => {
          await store.commitRows(ACCOUNT, 'JOB000000003', [], [row(2, { outcome: 'failed', error: 'late', hits: 0 }), row(3)]);
          return first;
        }),
      ]);
      expect(second).toBeUndefined();
      expect(third.length).toBeGreaterThanOrEqual(2);
      expect(await store.appliedRows(ACCOUNT, 'JOB000000003')).toEqual([row(0), row(1), row(2), row(3)]);
    });

    it('removes the hits of a reset once per job row, reporting the count', async () => {
      await store.insertHits([
        contractHit(1),
        contractHit(2, { countryCode: 'DE' }),
        contractHit(3, { time: '2026-01-12T00:00:00.000Z' }),
        contractHit(4, { accountId: OTHER_ACCOUNT }),
      ]);
      const filter: HitFilter = { ...window, countryCodes: ['US', 'DE'] };
      expect(await store.countHits(ACCOUNT, filter)).toBe(2);
      expect(await store.deleteHits(ACCOUNT, 'JOB000000009', 0, filter)).toEqual(row(0, { hits: 2 }));
      expect(await store.countHits(ACCOUNT, filter)).toBe(0);
      expect((await store.getHits(ACCOUNT, [contractHit(1).hitId, contractHit(3).hitId])).map((hit) => hit.hitId)).toEqual([contractHit(3).hitId]);
      expect(await store.getHits(OTHER_ACCOUNT, [contractHit(4).hitId])).toHaveLength(1);

      // Redelivered after new matching hits arrived: nothing more is removed, the first count stands.
      await store.insertHits([contractHit(5)]);
      expect(await store.deleteHits(ACCOUNT, 'JOB000000009', 0, filter)).toEqual(row(0, { hits: 2 }));
      expect(await store.countHits(ACCOUNT, filter)).toBe(1);
      expect(await store.deleteHits(ACCOUNT, 'JOB000000010', 0, { ...window, countryCodes: ['FR'] })).toEqual(row(0, { outcome: 'noop', hits: 0 }));
    });

    it('takes a removed hit again when it is ingested again', async () => {
      await store.insertHits([contractHit(1)]);
      await store.deleteHits(ACCOUNT, 'JOB000000009', 0, window);
      expect(await store.insertHits([contractHit(1, { cost: '2' })])).toEqual({ inserted: 1, ignored: 0 });
      expect((await store.getHits(ACCOUNT, [contractHit(1).hitId]))[0].cost).toBe('2');
    });
  });
}
