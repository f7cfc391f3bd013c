import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ReportingSubjects, generateAssetId } from '@funnel/contracts';
import { aHit, type Hit } from '@funnel/reporting-domain';
import type { IngestHitsResult } from '@funnel/reporting-feature';
import { Deployment, describeInBothModes } from './harness';
import { importHits, openHitSink } from '../hits-import';

/**
 * /v1/reporting end to end: hits are written through the internal subject (and the CLI's import),
 * updates are accepted as jobs, applied by the workers, observed through the job records, the reset
 * count and the internal hit lookup; postbacks reach a local HTTP receiver (OUTBOUND_ALLOW_PRIVATE).
 */
let receiver: Server;
const received: string[] = [];
const env: NodeJS.ProcessEnv = { OUTBOUND_ALLOW_PRIVATE: 'true' };

beforeAll(async () => {
  receiver = createServer((req, res) => {
    received.push(req.url ?? '');
    res.writeHead(req.url?.includes('fail=1') ? 500 : 200).end('ok');
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  env.RECEIVER = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
});

afterAll(async () => {
  receiver.closeAllConnections();
  await new Promise((resolve) => receiver.close(resolve));
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describeInBothModes(
  '/v1/reporting',
  (d) => {
    let me: { apiKey: string; accountId: string };
    const call = (method: string, path: string, options: Parameters<Deployment['api']['call']>[2] = {}) =>
      d().api.call(method, path, { key: me.apiKey, ...options });
    let accountId: string;
    let other: { apiKey: string; accountId: string };
    let idTrafficSource: string;
    const idFunnel = generateAssetId();
    const idFunnelGroup = generateAssetId();
    const hitIds = Array.from({ length: 6 }, () => generateAssetId());

    const hit = (hitId: string, over: Partial<Hit> = {}): Hit =>
      aHit({
        hitId,
        visitorId: generateAssetId(),
        accountId,
        idFunnel,
        idFunnelGroup,
        idTrafficSource,
        countryCode: 'DE',
        trackingFields: { c1: 'blue' },
        ...over,
      });

    const hitsOf = async (ids: string[], account = accountId): Promise<Hit[]> => {
      const reply = await d()
        .internal()
        .request<{ hits: Hit[] }>(ReportingSubjects.hitsGet, {
          context: { accountId: account, userId: 'test', permissions: [], correlationId: 'test' },
          body: { hitIds: ids },
        });
      return reply.hits.sort((a, b) => ids.indexOf(a.hitId) - ids.indexOf(b.hitId));
    };

    const ingest = (hits: unknown) =>
      d()
        .internal()
        .request<IngestHitsResult>(ReportingSubjects.hitsIngest, { context: undefined as never, body: { hits } });

    /** The job once it finished (polling its record). */
    const finished = async (jobId: string, key?: string) => {
      for (let i = 0; i < 400; i++) {
        const { status, body } = await call('GET', `/reporting/jobs/?jobId=${jobId}`, key ? { key } : {});
        expect(status).toBe(200);
        if (body.status === 'done' || body.status === 'failed') return body;
        await sleep(50);
      }
      throw new Error(`job ${jobId} did not finish`);
    };

    const postbacksSettled = async (jobId: string) => {
      for (let i = 0; i < 400; i++) {
        const { body } = await call('GET', `/reporting/postbacks/?jobId=${jobId}`);
        if (body.postbacks.length && body.postbacks.every((p: { status: string }) => p.status !== 'queued')) return body.postbacks;
        await sleep(50);
      }
      throw new Error(`postbacks of ${jobId} did not settle`);
    };

    beforeAll(async () => {
      me = await d().newAccount(`reporting-${d().mode}@example.com`);
      accountId = me.accountId;
      other = await d().newAccount(`reporting-other-${d().mode}@example.com`);
      idTrafficSource = generateAssetId();
      const saved = await call('POST', '/trafficsource/save/', {
        body: {
          idTrafficSource,
          trafficSourceName: 'Push network',
          outgoingRevenueModifier: 50,
          postback: { postbackType: 'postbackUrl', postbackCode: `${env.RECEIVER}/pb?payout={payout}&txid={txid}&hit={hitid}&c1={c1}&token=s3cret` },
        },
      });
      expect(saved.status).toBe(200);
    });

    it('needs a credential with reporting:write', async () => {
      expect((await call('PUT', '/reporting/update/conversions/', { key: '', body: { hits: [] } })).status).toBe(401);
      const generated = await call('POST', '/apikeys/generate/', { body: { name: 'read only', permissions: ['assets:read'] } });
      expect(generated.status).toBe(200);
      for (const [method, path] of [
        ['PUT', '/reporting/update/conversions/'],
        ['POST', '/reporting/update/reset/'],
        ['GET', '/reporting/jobs/?jobId=000000000000'],
      ]) {
        expect((await call(method, path, { key: generated.body.key, body: method === 'GET' ? undefined : {} })).status).toBe(403);
      }
    });

    it('ingests hits on the internal subject only (no gateway route)', async () => {
      expect(await ingest(hitIds.map((id) => hit(id)))).toEqual({ inserted: 6, ignored: 0, invalid: [], invalidCount: 0 });
      expect((await call('POST', '/reporting/hits/ingest', { body: { hits: [] } })).status).toBe(404);
      expect((await hitsOf(hitIds)).map((h) => h.hitId)).toEqual(hitIds);
      expect(await hitsOf(hitIds, other.accountId)).toEqual([]);
    });

    it('stores the valid hits of a batch and names the invalid ones by index; a batch sent again is ignored', async () => {
      const ids = [generateAssetId(), generateAssetId(), generateAssetId(), generateAssetId()];
      // A funnel of its own, so that the cost and reset tests below do not see these hits.
      const own = (hitId: string) => hit(hitId, { idFunnel: generateAssetId() });
      const batch = [own(ids[0]), { ...own(ids[1]), countryCode: 'ZZ' }, own(ids[2]), 'not a hit', own(ids[3])];
      const invalid = [
        { index: 1, errors: [{ field: 'countryCode', message: expect.stringContaining('ISO 3166-1') }] },
        { index: 3, errors: [{ field: '', message: 'a hit must be an object' }] },
      ];
      expect(await ingest(batch)).toEqual({ inserted: 3, ignored: 0, invalid, invalidCount: 2 });
      expect((await hitsOf(ids)).map((h) => h.hitId)).toEqual([ids[0], ids[2], ids[3]]);
      expect(await ingest(batch)).toEqual({ inserted: 0, ignored: 3, invalid, invalidCount: 2 });
      expect(await hitsOf(ids)).toHaveLength(3);
    });

    it('refuses with 400 a message whose hits are not an array of 1..10,000, storing none of them', async () => {
      const hitId = generateAssetId();
      for (const hits of [{ 0: hit(hitId) }, hit(hitId), [], Array.from({ length: 10_001 }, () => hit(hitId)), undefined]) {
        await expect(ingest(hits)).rejects.toMatchObject({ status: 400, details: [expect.objectContaining({ field: 'hits' })] });
      }
      expect(await hitsOf([hitId])).toEqual([]);
    });

    it('applies conversions as a job, calls the postbacks and lists them masked', async () => {
      const unknown = generateAssetId();
      const { status, body } = await call('PUT', '/reporting/update/conversions/', {
        body: {
          hits: [
            { hitId: hitIds[0], payout: 10, transactionId: 'tx-1', time: '2026-01-11T00:00:00Z' },
            { hitId: hitIds[1], payout: '4.5' },
            { hitId: unknown, payout: 1 },
          ],
          postbackCalls: 'all',
        },
      });
      expect(status).toBe(200);
      expect(body.jobIds).toHaveLength(1);
      expect(Date.parse(body.queuedAt)).not.toBeNaN();
      const job = await finished(body.jobIds[0]);
      expect(job).toMatchObject({
        jobId: body.jobIds[0],
        type: 'conversions',
        status: 'done',
        counts: { rows: 3, applied: 2, noop: 0, notFound: 1, failed: 0 },
      });
      expect(job.errors).toEqual([expect.objectContaining({ rowIndex: 2, hitId: unknown, code: 'REPORTING.HIT_NOT_FOUND' })]);
      const [first, second] = await hitsOf([hitIds[0], hitIds[1]]);
      expect(first.conversions).toEqual([{ transactionId: 'tx-1', payout: '10', time: '2026-01-11T00:00:00.000Z' }]);
      expect(first.postbackCalled).toBe(true);
      expect(second.conversions).toEqual([expect.objectContaining({ transactionId: '', payout: '4.5' })]);

      const postbacks = await postbacksSettled(body.jobIds[0]);
      expect(postbacks).toEqual([
        {
          hitId: hitIds[0],
          url: `${env.RECEIVER}/pb?payout=5&txid=tx-1&hit=${hitIds[0]}&c1=blue&token=********`,
          status: 'delivered',
          attempts: 1,
          lastError: null,
        },
        {
          hitId: hitIds[1],
          url: `${env.RECEIVER}/pb?payout=2.25&txid=&hit=${hitIds[1]}&c1=blue&token=********`,
          status: 'delivered',
          attempts: 1,
          lastError: null,
        },
      ]);
      expect(received).toContain(`/pb?payout=5&txid=tx-1&hit=${hitIds[0]}&c1=blue&token=s3cret`);
    });

    it('retries a failing postback 5 times with backoff, then lists it failed; records pixel postbacks without calling them', async () => {
      const failing = generateAssetId();
      const pixel = generateAssetId();
      for (const [id, postback] of [
        [failing, { postbackType: 'postbackUrl', postbackCode: `${env.RECEIVER}/pb?fail=1&hit={hitid}` }],
        [pixel, { postbackType: 'pixelUrl', postbackCode: `${env.RECEIVER}/pixel?hit={hitid}&key=abc` }],
      ] as const) {
        expect((await call('POST', '/trafficsource/save/', { body: { idTrafficSource: id, trafficSourceName: `source ${id}`, postback } })).status).toBe(200);
      }
      const [a, b] = [generateAssetId(), generateAssetId()];
      await d()
        .internal()
        .request(ReportingSubjects.hitsIngest, {
          context: undefined as never,
          body: { hits: [hit(a, { idTrafficSource: failing, idFunnel: generateAssetId() }), hit(b, { idTrafficSource: pixel, idFunnel: generateAssetId() })] },
        });
      const { body } = await call('PUT', '/reporting/update/conversions/', {
        body: {
          hits: [
            { hitId: a, payout: 1 },
            { hitId: b, payout: 1 },
          ],
          postbackCalls: 'all',
        },
      });
      expect((await finished(body.jobIds[0])).counts).toMatchObject({ applied: 2 });
      const postbacks = await postbacksSettled(body.jobIds[0]);
      expect(postbacks).toEqual([
        { hitId: a, url: `${env.RECEIVER}/pb?fail=1&hit=${a}`, status: 'failed', attempts: 5, lastError: 'HTTP 500' },
        { hitId: b, url: `${env.RECEIVER}/pixel?hit=${b}&key=********`, status: 'recorded', attempts: 0, lastError: null },
      ]);
      expect(received.filter((url) => url === `/pb?fail=1&hit=${a}`)).toHaveLength(5);
      expect(received.some((url) => url.startsWith('/pixel'))).toBe(false);
    });

    it("calls a funnel's postback override for the traffic source instead of the source's own postback", async () => {
      const group = generateAssetId();
      const funnel = generateAssetId();
      expect((await call('POST', '/funnelgroup/save/', { body: { idFunnelGroup: group, funnelGroupName: 'Override group' } })).status).toBe(200);
      const saved = await call('POST', '/funnel/save/', {
        body: {
          idFunnel: funnel,
          idFunnelGroup: group,
          funnelName: 'Override funnel',
          postbackOverrides: [{ idTrafficSource, postbackType: 'postbackUrl', postbackCode: `${env.RECEIVER}/override?hit={hitid}&p={payout}` }],
        },
      });
      expect(saved.status).toBe(200);
      const hitId = generateAssetId();
      await d()
        .internal()
        .request(ReportingSubjects.hitsIngest, { context: undefined as never, body: { hits: [hit(hitId, { idFunnel: funnel, idFunnelGroup: group })] } });
      const { body } = await call('PUT', '/reporting/update/conversions/', { body: { hits: [{ hitId, payout: 8 }], postbackCalls: 'all' } });
      await finished(body.jobIds[0]);
      expect(await postbacksSettled(body.jobIds[0])).toEqual([
        { hitId, url: `${env.RECEIVER}/override?hit=${hitId}&p=4`, status: 'delivered', attempts: 1, lastError: null },
      ]);
    });

    it('answers the first job again for a retried Idempotency-Key, 409 for another body with it', async () => {
      const body = { hits: [{ hitId: hitIds[2], payout: 3, transactionId: 'idem' }] };
      const headers = { 'idempotency-key': `retry-${d().mode}` };
      const first = await call('PUT', '/reporting/update/conversions/', { body, headers });
      const again = await call('PUT', '/reporting/update/conversions/', { body, headers });
      expect(first.status).toBe(200);
      expect(again.body).toEqual(first.body);
      const job = await finished(first.body.jobIds[0]);
      expect(job.counts).toMatchObject({ rows: 1, applied: 1 });
      expect((await call('PUT', '/reporting/update/conversions/', { body, headers })).body).toEqual(first.body);
      expect((await hitsOf([hitIds[2]]))[0].conversions).toHaveLength(1);
      const reused = await call('PUT', '/reporting/update/conversions/', { body: { hits: [{ hitId: hitIds[2], payout: 4 }] }, headers });
      expect([reused.status, reused.body.code]).toEqual([409, 'REPORTING.IDEMPOTENCY_KEY_REUSED']);
    });

    it('refuses bad updates with 400 (every bad row named) and more than 10,000 conversions with 413', async () => {
      const unknownField = await call('PUT', '/reporting/update/conversions/', { body: { hits: [{ hitId: hitIds[0], payout: 1 }], colour: 'red' } });
      expect([unknownField.status, unknownField.body.details]).toEqual([400, [expect.objectContaining({ field: 'colour', code: 'unknownField' })]]);
      const rows = await call('PUT', '/reporting/update/customevents/', {
        body: {
          hits: [
            { hitId: hitIds[0], eventNumber: 1, time: '2026-01-10T12:00:00Z' },
            { hitId: 'x', eventNumber: 11, time: '2026-01-10T12:00:00Z' },
          ],
        },
      });
      expect(rows.status).toBe(400);
      expect(rows.body.details.map((detail: { field: string }) => detail.field)).toEqual(['hits[1].hitId', 'hits[1].eventNumber']);
      const many = await call('PUT', '/reporting/update/conversions/', {
        body: { hits: Array.from({ length: 10_001 }, () => ({ hitId: hitIds[0], payout: 1 })) },
      });
      expect([many.status, many.body.code]).toEqual([413, 'REPORTING.TOO_MANY_ROWS']);
      const window = await call('PUT', '/reporting/update/cost/', {
        body: {
          funnelIDs: [],
          trafficSourceIDs: [],
          timeStart: '2026-01-01T00:00:00Z',
          timeEnd: '2027-02-01T00:00:00Z',
          segments: [{ cost: 1, costType: 'costPerEntrance' }],
        },
      });
      expect([window.status, window.body.details[0].field]).toEqual([400, 'timeEnd']);
      const badId = await call('POST', '/reporting/update/reset/', {
        body: { timeStart: '2026-01-01T00:00:00Z', timeEnd: '2026-02-01T00:00:00Z', restrictToFunnelIDs: ['nope'] },
      });
      expect([badId.status, badId.body.details[0].code]).toEqual([400, 'isAssetId']);
      expect((await call('GET', '/reporting/jobs/?jobId=nope')).status).toBe(400);
    });

    it('accepts and applies the largest conversions update (10,000 rows, 256-character transaction ids); other routes keep the 1 MiB bound', async () => {
      const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
      const rows = (length: number) =>
        Array.from({ length: 10_000 }, () => ({
          hitId: generateAssetId(),
          payout: 1,
          transactionId: Array.from({ length }, () => alphabet[Math.floor(Math.random() * alphabet.length)]).join(''),
        }));
      // The largest update the spec allows: 10,000 rows with 256-character transaction ids (~3.1 MB,
      // over the 1 MiB other routes take and nats-server's default max_payload).
      const body = { hits: rows(256) };
      expect(JSON.stringify(body).length).toBeGreaterThan(3_000_000);
      const { status, body: answer } = await call('PUT', '/reporting/update/conversions/', { body });
      expect(status).toBe(200);
      expect(await finished(answer.jobIds[0])).toMatchObject({ status: 'done', counts: { rows: 10_000, notFound: 10_000 } });
      const tooLarge = await call('PUT', '/reporting/update/customevents/', { rawBody: JSON.stringify({ hits: [], pad: 'x'.repeat(1024 * 1024) }) });
      expect([tooLarge.status, tooLarge.body.code, tooLarge.body.error]).toEqual([413, 'REQUEST.BODY_TOO_LARGE', 'the body is larger than 1048576 bytes']);
      const overAll = await call('PUT', '/reporting/update/conversions/', { rawBody: JSON.stringify({ hits: [], pad: 'x'.repeat(16 * 1024 * 1024) }) });
      expect([overAll.status, overAll.body.code]).toEqual([413, 'REQUEST.BODY_TOO_LARGE']);
    });

    it('applies custom events', async () => {
      const { body } = await call('PUT', '/reporting/update/customevents/', {
        body: {
          hits: [
            { hitId: hitIds[3], eventNumber: 2, count: 3, time: '2026-01-10T13:00:00Z' },
            { hitId: hitIds[3], eventNumber: 2, time: '2026-01-10T13:00:00Z' },
          ],
        },
      });
      expect(await finished(body.jobIds[0])).toMatchObject({ status: 'done', counts: { rows: 2, applied: 2 } });
      expect((await hitsOf([hitIds[3]]))[0].customEvents).toEqual({ 2: 4 });
    });

    it('spreads a whole-segment cost over the entrances and finishes a segment without entrances as a noop', async () => {
      const { body } = await call('PUT', '/reporting/update/cost/', {
        body: {
          funnelIDs: [idFunnel],
          trafficSourceIDs: [],
          timeStart: '2026-01-10T00:00:00Z',
          timeEnd: '2026-01-11T00:00:00Z',
          segments: [
            { cost: '10', costType: 'costForWholeSegment', restrictToCountryCode: 'DE', restrictToTrackingFields: [{ key: 'c1', value: 'blue' }] },
            { cost: '1', costType: 'costPerEntrance', restrictToCountryCode: 'FR' },
          ],
        },
      });
      expect(await finished(body.jobIds[0])).toMatchObject({ status: 'done', counts: { rows: 2, applied: 1, noop: 1 } });
      const costs = (await hitsOf(hitIds)).map((h) => Number(h.cost));
      expect(costs.reduce((a, b) => a + b, 0)).toBeCloseTo(10, 6);
      expect(new Set(costs.map((c) => c.toFixed(2)))).toEqual(new Set(['1.66', '1.67']));
    });

    it('counts the hits a reset would remove (POST) and removes them (DELETE)', async () => {
      const filter = {
        timeStart: '2026-01-10T00:00:00Z',
        timeEnd: '2026-01-11T00:00:00Z',
        restrictToFunnelIDs: [idFunnel],
        restrictToTrackingFields: { c1: ['blue', 'red'] },
      };
      const count = await call('POST', '/reporting/update/reset/', { body: filter });
      expect(count).toMatchObject({ status: 200, body: { value: 6 } });
      expect((await call('POST', '/reporting/update/reset/', { body: { ...filter, restrictToCountryCodes: ['FR'] } })).body).toEqual({ value: 0 });
      const { body } = await call('DELETE', '/reporting/update/reset/', { body: { ...filter, restrictToVisitorIDs: [] } });
      expect(await finished(body.jobIds[0])).toMatchObject({ type: 'reset', status: 'done', counts: { rows: 1, applied: 1 } });
      expect((await call('POST', '/reporting/update/reset/', { body: filter })).body).toEqual({ value: 0 });
      expect(await hitsOf(hitIds)).toEqual([]);
    });

    it('keeps jobs and postbacks to their account', async () => {
      const { body } = await call('PUT', '/reporting/update/conversions/', { body: { hits: [{ hitId: hitIds[0], payout: 1 }] } });
      const jobId = body.jobIds[0];
      expect((await call('GET', `/reporting/jobs/?jobId=${jobId}`, { key: other.apiKey })).status).toBe(404);
      expect((await call('GET', `/reporting/postbacks/?jobId=${jobId}`, { key: other.apiKey })).status).toBe(404);
      expect((await finished(jobId)).counts).toMatchObject({ notFound: 1 });
      expect((await call('GET', `/reporting/postbacks/?jobId=${jobId}`)).body).toEqual({ jobId, postbacks: [] });
    });

    it('imports hits from an ndjson file with the CLI (into DATA_DIR in standalone mode, over NATS in distributed mode), naming the refused lines', async () => {
      const ids = [generateAssetId(), generateAssetId()];
      const file = join(d().dataDir, 'hits.ndjson');
      const lines = [
        JSON.stringify(hit(ids[0])),
        '{not json',
        '',
        JSON.stringify({ ...hit(generateAssetId()), time: 'yesterday' }),
        JSON.stringify(hit(ids[1])),
      ];
      writeFileSync(file, lines.join('\n') + '\n');
      const sink =
        d().mode === 'standalone'
          ? await openHitSink({ DATA_DIR: d().dataDir })
          : { via: 'nats' as const, write: (hits: unknown[]) => ingest(hits), close: async () => undefined };
      const invalid = [
        { line: 2, errors: [{ field: '', message: 'not JSON' }] },
        { line: 4, errors: [{ field: 'time', message: expect.any(String) }] },
      ];
      const via = d().mode === 'standalone' ? 'data-dir' : 'nats';
      try {
        expect(await importHits(file, sink)).toEqual({ inserted: 2, ignored: 0, invalid, invalidCount: 2, via });
        expect(await importHits(file, sink)).toEqual({ inserted: 0, ignored: 2, invalid, invalidCount: 2, via });
      } finally {
        await sink.close();
      }
      expect((await hitsOf(ids)).map((h) => h.hitId)).toEqual(ids);
    });
  },
  env,
);
