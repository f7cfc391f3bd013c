import type { Hit, TrafficSourcePostbackSettings } from '@funnel/reporting-domain';
import { contractHit } from '../hits/hit-store.contract';
import type { HitStore } from '../hits/hit-store';
import { openTempHitStore } from '../hits/duckdb/temp-hit-store';
import { applyConversions } from './apply-conversions';
import { applyCost } from './apply-cost';
import { applyCustomEvents } from './apply-custom-events';
import { applyJobGroup, applyReportingJob } from './apply-job';
import { applyReset, countResetHits } from './apply-reset';
import { forgetPostbackSlots } from './postback-fields';
import type { ApplyDeps, ConversionsJobPayload, CostJobPayload, CustomEventsJobPayload } from './apply-types';

const ACCOUNT = 'ACCOUNT00001';
const QUEUED_AT = '2026-02-01T00:00:00.000Z';
const hitId = (n: number) => contractHit(n).hitId;
const SOURCE: TrafficSourcePostbackSettings = {
  idTrafficSource: 'TSOURCE00001',
  postback: { postbackType: 'postbackUrl', postbackCode: 'https://ts.example/pb?cid={external}&p={payout}&tx={txid}&token=s3cret' },
  disableZeroRevenuePostbacks: false,
  outgoingPostbackProbability: 100,
  outgoingRevenueModifier: 50,
  trackingFieldSlots: { external: { name: 'clickid' } },
};

function depsWith(sources: Record<string, TrafficSourcePostbackSettings> = { TSOURCE00001: SOURCE }): ApplyDeps & { lookups: string[] } {
  const lookups: string[] = [];
  return {
    lookups,
    trafficSource: async (id) => {
      lookups.push(id);
      return sources[id];
    },
    random: () => 0.5,
  };
}

const job = <P>(payload: P, jobId = 'JOB000000001') => ({ jobId, accountId: ACCOUNT, queuedAt: QUEUED_AT, payload });

/** A store whose commitRows throws once it has committed `batches` batches: a process dying mid-job. */
function crashingAfter(store: HitStore, batches: number): HitStore {
  let commits = 0;
  return Object.assign(Object.create(store) as HitStore, {
    commitRows: async (...args: Parameters<HitStore['commitRows']>) => {
      if (commits++ >= batches) throw new Error('process died');
      return store.commitRows(...args);
    },
  });
}

async function hitsOf(store: HitStore, ...ns: number[]): Promise<Hit[]> {
  return (await store.getHits(ACCOUNT, ns.map(hitId))).sort((a, b) => (a.hitId < b.hitId ? -1 : 1));
}

describe('reporting appliers', () => {
  let store: HitStore;
  beforeEach(async () => {
    store = await openTempHitStore();
    await store.insertHits([
      contractHit(1, { trackingFields: { external: 'click/1' } }),
      contractHit(2, { postbackCalled: true }),
      contractHit(3, { idTrafficSource: 'organic' }),
      contractHit(4, { accountId: 'ACCOUNT00002' }),
    ]);
  });
  afterEach(() => store.close());

  describe('conversions', () => {
    const payload: ConversionsJobPayload = {
      postbackCalls: 'onlyOnce',
      hits: [
        { hitId: hitId(1), payout: '10', transactionId: 'A' },
        { hitId: hitId(1), payout: '4', transactionId: 'B', time: '2026-01-20T00:00:00Z' },
        { hitId: hitId(2), payout: '1' },
        { hitId: hitId(3), payout: '2' },
        { hitId: hitId(4), payout: '3' },
        { hitId: 'HIT999999999', payout: '3' },
        { hitId: hitId(3), payout: 'lots' },
      ],
    };

    it("adds conversions, counts unknown and other accounts' hits as notFound, and decides the postbacks", async () => {
      const deps = depsWith();
      const result = await applyConversions(store, job(payload), deps);
      expect(result.counts).toEqual({ rows: 7, applied: 4, noop: 0, notFound: 2, failed: 1 });
      expect(result.errors).toEqual([
        { rowIndex: 4, hitId: hitId(4), code: 'REPORTING.HIT_NOT_FOUND', message: 'no hit with this hitId in the account' },
        { rowIndex: 5, hitId: 'HIT999999999', code: 'REPORTING.HIT_NOT_FOUND', message: 'no hit with this hitId in the account' },
        { rowIndex: 6, hitId: hitId(3), code: 'REPORTING.ROW_FAILED', message: expect.stringContaining('lots') },
      ]);
      // onlyOnce: hit 1 once (its first conversion), hit 2 had been called already, hit 3 is organic.
      expect(result.postbacks).toEqual([
        {
          deliveryId: 'JOB000000001:0',
          hitId: hitId(1),
          idTrafficSource: 'TSOURCE00001',
          idFunnel: 'FUNNEL000001',
          postbackType: 'postbackUrl',
          action: 'call',
          target: 'https://ts.example/pb?cid=click%2F1&p=5&tx=A&token=s3cret',
          payout: '5',
        },
      ]);
      expect(deps.lookups).toEqual(['TSOURCE00001']);
      const [one, two, three] = await hitsOf(store, 1, 2, 3);
      expect(one.conversions).toEqual([
        { transactionId: 'A', payout: '10', time: QUEUED_AT },
        { transactionId: 'B', payout: '4', time: '2026-01-20T00:00:00.000Z' },
      ]);
      expect(one.postbackCalled).toBe(true);
      expect(two.conversions).toEqual([{ transactionId: '', payout: '1', time: QUEUED_AT }]);
      expect(three.postbackCalled).toBe(false);
    });

    it('calls the postback of every converted hit with postbackCalls all, records pixels, and sends none when disabled', async () => {
      const pixel = {
        ...SOURCE,
        idTrafficSource: 'TSOURCE00002',
        postback: { postbackType: 'pixelUrl' as const, postbackCode: 'https://px.example/?h={hitid}' },
      };
      await store.insertHits([contractHit(5, { idTrafficSource: 'TSOURCE00002' })]);
      const all = { postbackCalls: 'all' as const, hits: [1, 2, 5].map((n) => ({ hitId: hitId(n), payout: '2' })) };
      const result = await applyConversions(store, job(all), depsWith({ TSOURCE00001: SOURCE, TSOURCE00002: pixel }));
      expect(result.postbacks.map((p) => [p.hitId, p.action, p.payout])).toEqual([
        [hitId(1), 'call', '1'],
        [hitId(2), 'call', '1'],
        [hitId(5), 'record', '1'],
      ]);
      expect(result.postbacks[2].target).toBe(`https://px.example/?h=${hitId(5)}`);
      const disabled = await applyConversions(
        store,
        job({ ...all, disablePostbacks: true, hits: [{ hitId: hitId(1), payout: '3', transactionId: 'X' }] }, 'JOB000000002'),
        depsWith(),
      );
      expect(disabled.postbacks).toEqual([]);
    });

    it("fills each postback with the tracking fields its source's postback names, whichever slots the account's postbacks used before", async () => {
      const zone = {
        ...SOURCE,
        idTrafficSource: 'TSOURCE00003',
        postback: { postbackType: 'postbackUrl' as const, postbackCode: 'https://zone.example/?z={trackingField.zone}&k={campaign}&c={external}' },
        trackingFieldSlots: { c3: { name: 'zone' } },
      };
      await store.insertHits([
        contractHit(5, { idTrafficSource: 'TSOURCE00003', trackingFields: { c3: 'z/9', campaign: 'spring', external: 'e5' } }),
        contractHit(6, { idTrafficSource: 'TSOURCE00003', trackingFields: { c3: 'z7' } }),
      ]);
      const deps = depsWith({ TSOURCE00001: SOURCE, TSOURCE00003: zone });
      // The account's first job: only source 1's slot ({external}) is used.
      const first = await applyConversions(store, job({ postbackCalls: 'all', hits: [{ hitId: hitId(1), payout: '2', transactionId: 'F' }] }), deps);
      expect(first.postbacks.map((p) => p.target)).toEqual(['https://ts.example/pb?cid=click%2F1&p=1&tx=F&token=s3cret']);
      // A later job meets a source whose postback names other slots (c3 by its field name, campaign).
      const hits = [5, 1, 6].map((n, i) => ({ hitId: hitId(n), payout: '2', transactionId: `T${i}` }));
      const second = await applyConversions(store, job({ postbackCalls: 'all', hits }, 'JOB000000002'), deps);
      expect(second.postbacks.map((p) => p.target)).toEqual([
        'https://zone.example/?z=z%2F9&k=spring&c=e5',
        'https://ts.example/pb?cid=click%2F1&p=1&tx=T1&token=s3cret',
        'https://zone.example/?z=z7&k=&c=',
      ]);
      // And so does a job of one batch per hit in a process that knows nothing of the account yet.
      forgetPostbackSlots();
      const again = hits.map((row, i) => ({ ...row, transactionId: `U${i}` }));
      const third = await applyConversions(store, job({ postbackCalls: 'all', hits: again }, 'JOB000000003'), { ...deps, batchSize: 1 });
      expect(third.postbacks.map((p) => p.target)).toEqual([
        'https://zone.example/?z=z%2F9&k=spring&c=e5',
        'https://ts.example/pb?cid=click%2F1&p=1&tx=U1&token=s3cret',
        'https://zone.example/?z=z7&k=&c=',
      ]);
      // A job sending no postback reads no tracking field, and the hits keep theirs.
      await applyConversions(store, job({ postbackCalls: 'none', hits }, 'JOB000000004'), deps);
      const [five] = await hitsOf(store, 5);
      expect(five.trackingFields).toEqual({ c3: 'z/9', campaign: 'spring', external: 'e5' });
      expect(five.conversions.map((c) => c.transactionId)).toEqual(['T0', 'U0']);
    });

    it("uses the funnel's postback override for its traffic source", async () => {
      await store.insertHits([contractHit(5, { idFunnel: 'FUNNEL000002' })]);
      const overrides = new Map([['FUNNEL000002/TSOURCE00001', { postbackType: 'javascript' as const, postbackCode: 'fire({payout})' }]]);
      const deps = { ...depsWith(), funnelPostback: async (idFunnel: string, idTrafficSource: string) => overrides.get(`${idFunnel}/${idTrafficSource}`) };
      const result = await applyConversions(
        store,
        job({ postbackCalls: 'all', hits: [1, 5, 5].map((n, i) => ({ hitId: hitId(n), payout: '8', transactionId: `T${i}` })) }),
        deps,
      );
      expect(result.postbacks.map((p) => [p.hitId, p.postbackType, p.action, p.target])).toEqual([
        [hitId(1), 'postbackUrl', 'call', 'https://ts.example/pb?cid=click%2F1&p=4&tx=T0&token=s3cret'],
        [hitId(5), 'javascript', 'record', 'fire(4)'],
        [hitId(5), 'javascript', 'record', 'fire(4)'],
      ]);
      expect(deps.lookups).toEqual(['TSOURCE00001']);
    });

    it('replaces the same transaction id, removes with -1, and calls nothing for a removal', async () => {
      await applyConversions(store, job({ hits: [{ hitId: hitId(1), payout: '1', transactionId: 'A' }] }), depsWith());
      const second = await applyConversions(
        store,
        job(
          {
            postbackCalls: 'all',
            hits: [
              { hitId: hitId(1), payout: '7', transactionId: 'A' },
              { hitId: hitId(1), payout: '-1' },
              { hitId: hitId(2), payout: '-1' },
            ],
          },
          'JOB000000002',
        ),
        depsWith(),
      );
      expect(second.counts).toEqual({ rows: 3, applied: 2, noop: 1, notFound: 0, failed: 0 });
      expect(second.postbacks.map((p) => p.payout)).toEqual(['3.5']);
      // The rows that changed a hit (the webhook events'): the noop removal (hit 2 has no conversion) is not one.
      expect(second.appliedRows).toEqual([0, 1]);
      expect((await hitsOf(store, 1))[0].conversions).toEqual([]);
    });

    it('applied twice gives the same state and the same result', async () => {
      const first = await applyConversions(store, job(payload), depsWith());
      const state = await hitsOf(store, 1, 2, 3);
      const again = await applyConversions(store, job(payload), depsWith());
      expect(again).toEqual(first);
      expect(await hitsOf(store, 1, 2, 3)).toEqual(state);
    });

    it('redelivered after a crash between batches applies each row once and reports what one delivery would', async () => {
      const reference = await openTempHitStore();
      await reference.insertHits(await hitsOf(store, 1, 2, 3));
      await reference.insertHits([contractHit(4, { accountId: 'ACCOUNT00002' })]);
      const expected = await applyConversions(reference, job(payload), { ...depsWith(), batchSize: 2 });

      await expect(applyConversions(crashingAfter(store, 2), job(payload), { ...depsWith(), batchSize: 2 })).rejects.toThrow('process died');
      expect(await store.appliedRows(ACCOUNT, 'JOB000000001')).toHaveLength(4);
      const result = await applyConversions(store, job(payload), { ...depsWith(), batchSize: 2 });
      expect(result).toEqual(expected);
      expect(await hitsOf(store, 1, 2, 3)).toEqual(await hitsOf(reference, 1, 2, 3));
      await reference.close();
    });

    it("gives a row the change an earlier batch made to its hit, when the hit was read before that batch's commit", async () => {
      // Each commit waits until the read started beside it has answered: that read sees the hits as they were before the commit.
      const reads: Promise<unknown>[] = [];
      const slow = Object.assign(Object.create(store) as HitStore, {
        getHitStates: (...args: Parameters<HitStore['getHitStates']>) => {
          const reading = store.getHitStates(...args);
          reads.push(reading);
          return reading;
        },
        commitRows: async (...args: Parameters<HitStore['commitRows']>) => {
          await Promise.all(reads);
          return store.commitRows(...args);
        },
      });
      const rows = [1, 2, 1, 2, 1].map((n, i) => ({ hitId: hitId(n), payout: '1', transactionId: `T${i}` }));
      const result = await applyConversions(slow, job({ hits: rows }), { ...depsWith(), batchSize: 2 });
      expect(result.counts).toEqual({ rows: 5, applied: 5, noop: 0, notFound: 0, failed: 0 });
      expect(reads).toHaveLength(3);
      const [one, two] = await hitsOf(store, 1, 2);
      expect(one.conversions.map((conversion) => conversion.transactionId)).toEqual(['T0', 'T2', 'T4']);
      expect(two.conversions.map((conversion) => conversion.transactionId)).toEqual(['T1', 'T3']);
    });

    it('stops the job when the traffic source cannot be read, leaving the batch unapplied', async () => {
      const failing: ApplyDeps = { trafficSource: async () => Promise.reject(new Error('assets service unavailable')) };
      await expect(applyConversions(store, job({ postbackCalls: 'all', hits: [{ hitId: hitId(1), payout: '1' }] }), failing)).rejects.toThrow(
        'assets service unavailable',
      );
      expect(await store.appliedRows(ACCOUNT, 'JOB000000001')).toEqual([]);
      expect((await hitsOf(store, 1))[0].conversions).toEqual([]);
    });
  });

  describe('custom events', () => {
    const payload: CustomEventsJobPayload = {
      hits: [
        { hitId: hitId(1), eventNumber: 1, time: QUEUED_AT },
        { hitId: hitId(1), eventNumber: 1, count: 4, time: QUEUED_AT },
        { hitId: hitId(2), eventNumber: 10, count: 2, time: QUEUED_AT },
        { hitId: 'HIT999999999', eventNumber: 1, time: QUEUED_AT },
        { hitId: hitId(3), eventNumber: 11, time: QUEUED_AT },
      ],
    };

    it('adds the counts', async () => {
      const result = await applyCustomEvents(store, job(payload));
      expect(result.counts).toEqual({ rows: 5, applied: 3, noop: 0, notFound: 1, failed: 1 });
      expect(result.postbacks).toEqual([]);
      expect((await hitsOf(store, 1, 2)).map((hit) => hit.customEvents)).toEqual([{ '1': 5 }, { '10': 2 }]);
    });

    it('redelivered after a crash adds each row once; delivered again it adds nothing', async () => {
      await expect(applyCustomEvents(crashingAfter(store, 1), job(payload), { batchSize: 2 })).rejects.toThrow('process died');
      expect((await hitsOf(store, 1))[0].customEvents).toEqual({ '1': 5 });
      const result = await applyCustomEvents(store, job(payload), { batchSize: 2 });
      expect(result.counts).toEqual({ rows: 5, applied: 3, noop: 0, notFound: 1, failed: 1 });
      expect(await applyCustomEvents(store, job(payload), { batchSize: 2 })).toEqual(result);
      expect((await hitsOf(store, 1, 2)).map((hit) => hit.customEvents)).toEqual([{ '1': 5 }, { '10': 2 }]);
    });
  });

  describe('cost', () => {
    const base = { funnelIDs: [], trafficSourceIDs: [], timeStart: '2026-01-10T00:00:00Z', timeEnd: '2026-01-11T00:00:00Z' };

    it('spreads a whole-segment cost to the cent, sets a per-entrance cost, and finishes a segment without entrances as a noop', async () => {
      const payload: CostJobPayload = {
        ...base,
        segments: [
          { cost: '10', costType: 'costForWholeSegment' },
          { cost: '0.25', costType: 'costPerEntrance', restrictToCountryCode: 'DE' },
          { cost: '1', costType: 'costPerEntrance', restrictToTrackingFields: [{ key: 'external', value: 'nobody' }] },
        ],
      };
      await store.insertHits([contractHit(6, { countryCode: 'DE' })]);
      const result = await applyCost(store, job(payload));
      expect(result.counts).toEqual({ rows: 3, applied: 2, noop: 1, notFound: 0, failed: 0 });
      expect(result.hits).toBe(5);
      // 10 over hits 1, 2, 3, 6: 2.5 each; then hit 6 (DE) is set to 0.25.
      expect((await hitsOf(store, 1, 2, 3, 6)).map((hit) => hit.cost)).toEqual(['2.5', '2.5', '2.5', '0.25']);
      expect(await applyCost(store, job(payload))).toEqual(result);
    });

    it('gives the left-over cents to the first entrances in hitId order', async () => {
      await applyCost(store, job({ ...base, segments: [{ cost: '1', costType: 'costForWholeSegment' }] }));
      expect((await hitsOf(store, 1, 2, 3)).map((hit) => hit.cost)).toEqual(['0.34', '0.33', '0.33']);
    });
  });

  describe('reset', () => {
    const params = { timeStart: '2026-01-10T00:00:00Z', timeEnd: '2026-01-11T00:00:00Z', restrictToCountryCodes: ['US'] };

    it('counts, then removes once', async () => {
      expect(await countResetHits(store, ACCOUNT, params)).toBe(3);
      const result = await applyReset(store, job(params));
      expect(result).toEqual({ counts: { rows: 1, applied: 1, noop: 0, notFound: 0, failed: 0 }, errors: [], postbacks: [], hits: 3, appliedRows: [0] });
      await store.insertHits([contractHit(7)]);
      expect(await applyReset(store, job(params))).toEqual(result);
      expect(await countResetHits(store, ACCOUNT, params)).toBe(1);
    });
  });

  describe('a large job', () => {
    /** Turns of the event loop taken while `run` runs: what a concurrent request gets. */
    async function turnsDuring(run: () => Promise<unknown>): Promise<number> {
      let turns = 0;
      let running = true;
      const turn = () => {
        if (!running) return;
        turns += 1;
        setImmediate(turn);
      };
      setImmediate(turn);
      await run();
      running = false;
      return turns;
    }

    it('lets the event loop run between its batches (a 5,000-row conversions job in 5 slices)', async () => {
      await store.insertHits(Array.from({ length: 50 }, (_, i) => contractHit(100 + i)));
      const hits = Array.from({ length: 5000 }, (_, i) => ({ hitId: hitId(100 + (i % 50)), payout: '1', transactionId: `T${i}` }));
      const turns = await turnsDuring(() => applyConversions(store, job({ hits }), { ...depsWith(), batchSize: 1000 }));
      expect(turns).toBeGreaterThanOrEqual(4);
    });

    it('lets the event loop run between its cost segments', async () => {
      const segments = Array.from({ length: 5 }, () => ({ cost: '1', costType: 'costPerEntrance' as const }));
      const turns = await turnsDuring(() =>
        applyCost(store, job({ funnelIDs: [], trafficSourceIDs: [], timeStart: '2026-01-10T00:00:00Z', timeEnd: '2026-01-11T00:00:00Z', segments })),
      );
      expect(turns).toBeGreaterThanOrEqual(4);
    });
  });

  describe('a group of jobs of the account', () => {
    const typed = <P>(type: string, payload: P, jobId: string) => ({ ...job(payload, jobId), type });
    const groupJobs = () => [
      typed('conversions', { postbackCalls: 'all', hits: [{ hitId: hitId(1), payout: '10', transactionId: 'A' }] }, 'JOB000000011'),
      typed(
        'customevents',
        {
          hits: [
            { hitId: hitId(1), eventNumber: 2, count: 3, time: QUEUED_AT },
            { hitId: hitId(9), eventNumber: 1 },
          ],
        },
        'JOB000000012',
      ),
      typed(
        'conversions',
        {
          postbackCalls: 'all',
          hits: [
            { hitId: hitId(1), payout: '12', transactionId: 'A' },
            { hitId: hitId(3), payout: '1', transactionId: 'B' },
          ],
        },
        'JOB000000013',
      ),
    ];

    it('gives each job the result and the hits the state that applying the jobs one after the other gives', async () => {
      const reference = await openTempHitStore();
      await reference.insertHits(await hitsOf(store, 1, 2, 3));
      const expected = [];
      for (const each of groupJobs()) expected.push(await applyReportingJob(reference, each, depsWith()));

      expect(await applyJobGroup(store, groupJobs(), () => depsWith())).toEqual(expected);
      expect(await hitsOf(store, 1, 2, 3)).toEqual(await hitsOf(reference, 1, 2, 3));
      expect(expected[2].postbacks.map((postback) => postback.deliveryId)).toEqual(['JOB000000013:0']);
      for (const each of groupJobs()) expect(await store.appliedRows(ACCOUNT, each.jobId)).toEqual(await reference.appliedRows(ACCOUNT, each.jobId));
      await reference.close();
    });

    it('applied again, as a group or one by one, applies no row twice and reports the same results', async () => {
      const first = await applyJobGroup(store, groupJobs(), () => depsWith());
      const state = await hitsOf(store, 1, 2, 3);
      expect(await applyJobGroup(store, groupJobs(), () => depsWith())).toEqual(first);
      for (const [i, each] of groupJobs().entries()) expect(await applyReportingJob(store, each, depsWith())).toEqual(first[i]);
      expect(await hitsOf(store, 1, 2, 3)).toEqual(state);
    });

    it('writes nothing when one of its jobs fails', async () => {
      const before = await hitsOf(store, 1, 2, 3);
      const failing = (each: { jobId: string }): ApplyDeps =>
        each.jobId === 'JOB000000013' ? { trafficSource: () => Promise.reject(new Error('assets service unavailable')) } : depsWith();
      await expect(applyJobGroup(store, groupJobs(), failing)).rejects.toThrow('assets service unavailable');
      expect(await hitsOf(store, 1, 2, 3)).toEqual(before);
      expect(await store.appliedRowsOfJobs(ACCOUNT, ['JOB000000011', 'JOB000000012', 'JOB000000013'])).toEqual(new Map());
    });

    it('takes only jobs whose rows each name a hit, of one account', async () => {
      const cost = typed('cost', { funnelIDs: [], trafficSourceIDs: [], timeStart: QUEUED_AT, timeEnd: QUEUED_AT, segments: [] }, 'JOB000000014');
      await expect(applyJobGroup(store, [groupJobs()[0], cost], () => depsWith())).rejects.toThrow('a cost job is applied on its own');
      await expect(applyJobGroup(store, [groupJobs()[0], { ...groupJobs()[1], accountId: 'ACCOUNT00002' }], () => depsWith())).rejects.toThrow(
        'a group holds jobs of one account',
      );
    });
  });

  it('dispatches on the job type', async () => {
    const result = await applyReportingJob(
      store,
      { ...job({ hits: [{ hitId: hitId(1), eventNumber: 2, time: QUEUED_AT }] }), type: 'customevents' },
      depsWith(),
    );
    expect(result.counts.applied).toBe(1);
    await expect(applyReportingJob(store, { ...job({}), type: 'toString' }, depsWith())).rejects.toThrow('unknown reporting job type');
  });
});
