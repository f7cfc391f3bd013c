import { createServer, type IncomingMessage, type ServerResponse, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { parseConversionsUpdate, type PostbackLogReport } from '@funnel/contracts';
import { createEventStore, type EventStore } from '@funnel/eventstore';
import { OutboundHttp } from '@funnel/platform';
import { aHit, type TrafficSourcePostbackSettings } from '@funnel/reporting-domain';
import { eventually, tempDir } from '@funnel/testing';
import { createHitStore } from '../hits/create-hit-store';
import type { HitStore } from '../hits/hit-store';
import { EmbeddedJobQueue } from '../queue/embedded-job-queue';
import { applyReportingUpdate } from '../service/apply-update';
import { JobRecords } from '../service/job-records';
import { PostbackSender } from '../service/postback-sender';
import type { PostbackPayload, UpdatePayload } from '../service/reporting.tokens';
import { UpdateWorker } from '../service/update-worker';
import { openPostbackLog } from './open-postback-log';
import { PostbackLogMessageController } from './postback-log.message.controller';
import { PostbackLogQueryTimeout, type PostbackLogStore } from './postback-log-store';

const ACCOUNT = 'ACCOUNT00001';
const OK_SOURCE = 'TSOURCE00001';
const FAILING_SOURCE = 'TSOURCE00002';
const PIXEL_SOURCE = 'TSOURCE00003';

/**
 * The postback log on the service's real parts: a conversions job applied by the update worker
 * (embedded queues, the event log, the hit store), its postback URLs called by the postback sender
 * through the SSRF guard (private addresses allowed) on a local receiver, the log in the DuckDB
 * hit warehouse, read through the message handler of POST /reporting/logs/postbacks.
 */
describe('postback log', () => {
  const dir = tempDir('postback-log');
  let receiver: Server;
  let base: string;
  let releaseOk: () => void = () => undefined;
  const okAnswered = new Promise<void>((resolve) => (releaseOk = resolve));
  let events: EventStore;
  let hits: HitStore;
  let log: PostbackLogStore;
  let updates: EmbeddedJobQueue<UpdatePayload>;
  let postbacks: EmbeddedJobQueue<PostbackPayload>;
  let http: OutboundHttp;
  let controller: PostbackLogMessageController;
  let apply: ReturnType<typeof applyReportingUpdate>;

  const source = (idTrafficSource: string, postbackType: 'postbackUrl' | 'pixelUrl', postbackCode: string): TrafficSourcePostbackSettings => ({
    idTrafficSource,
    postback: { postbackType, postbackCode },
    disableZeroRevenuePostbacks: false,
    outgoingPostbackProbability: 100,
    outgoingRevenueModifier: 100,
  });

  beforeAll(async () => {
    receiver = createServer((req: IncomingMessage, res: ServerResponse) => {
      if (req.url?.startsWith('/ok')) void okAnswered.then(() => res.writeHead(200).end());
      else res.writeHead(500).end();
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
    events = createEventStore({ dataDir: dir.path });
    hits = await createHitStore({ dataDir: dir.path });
    await hits.insertHits([
      aHit({ hitId: 'HIT000000001', accountId: ACCOUNT, idTrafficSource: OK_SOURCE, idFunnel: 'FUNNEL000001' }),
      aHit({ hitId: 'HIT000000002', accountId: ACCOUNT, idTrafficSource: FAILING_SOURCE, idFunnel: 'FUNNEL000002' }),
      aHit({ hitId: 'HIT000000003', accountId: ACCOUNT, idTrafficSource: PIXEL_SOURCE, idFunnel: 'FUNNEL000002' }),
    ]);
    // The log in the hit warehouse, as the service opens it.
    log = await openPostbackLog(hits.warehouse);
    const records = new JobRecords(events, log);
    const queueFile = join(dir.path, 'queues.sqlite');
    updates = new EmbeddedJobQueue<UpdatePayload>({ name: 'updates', subjectPrefix: 'u', filename: queueFile, pollIntervalMs: 20 });
    postbacks = new EmbeddedJobQueue<PostbackPayload>({
      name: 'postbacks',
      subjectPrefix: 'p',
      filename: queueFile,
      backoffMs: [20],
      maxAttempts: 3,
      pollIntervalMs: 20,
    });
    const sources: Record<string, TrafficSourcePostbackSettings> = {
      [OK_SOURCE]: source(OK_SOURCE, 'postbackUrl', `${base}/ok?hit={hitid}&p={payout}&token=s3cret`),
      [FAILING_SOURCE]: source(FAILING_SOURCE, 'postbackUrl', `${base}/fail?hit={hitid}`),
      [PIXEL_SOURCE]: source(PIXEL_SOURCE, 'pixelUrl', `${base}/pixel?hit={hitid}&key=abc`),
    };
    apply = applyReportingUpdate({ hits, sources: async (_accountId, id) => sources[id] });
    http = new OutboundHttp({ allowPrivate: true });
    await new UpdateWorker(updates, postbacks, apply, {}, records).onApplicationBootstrap();
    await new PostbackSender(postbacks, http, { postbackConcurrency: 4 }, records).onApplicationBootstrap();
    controller = new PostbackLogMessageController(log);
  });

  afterAll(async () => {
    releaseOk();
    await updates.close();
    await postbacks.close();
    await http.close();
    await log.close();
    await hits.close();
    await events.close();
    receiver.closeAllConnections();
    await new Promise((resolve) => receiver.close(resolve));
    dir.remove();
  });

  const query = (accountId: string, body: Record<string, unknown>): Promise<PostbackLogReport> =>
    controller.postbackLog({ context: { accountId, userId: 'u', permissions: ['reporting:read'], correlationId: 'c' }, body: { body } });

  const today = () => {
    const start = new Date();
    start.setUTCHours(0, 0, 0, 0);
    return { timeStart: start.toISOString(), timeEnd: new Date(start.getTime() + 24 * 3600 * 1000).toISOString() };
  };

  it("logs a conversions job's postbacks as decided, then each as its delivery ends: delivered, failed after its attempts, a pixel recorded", async () => {
    const update = parseConversionsUpdate({
      postbackCalls: 'all',
      hits: [
        { hitId: 'HIT000000001', payout: '2.5', transactionId: 'T1' },
        { hitId: 'HIT000000002', payout: '1' },
        { hitId: 'HIT000000003', payout: '1' },
      ],
    });
    await updates.enqueue([{ jobId: 'JOB000000001', type: 'conversions', accountId: ACCOUNT, queuedAt: new Date().toISOString(), payload: update }]);

    // The receiver holds the first postback's call: the log shows it pending.
    const decided = await eventually(async () => {
      const report = await query(ACCOUNT, today());
      expect(report.rowsTotal).toBe(3);
      return report;
    }, 20_000);
    expect(decided.rows.find((r) => r.rowIndex === 0)).toMatchObject({
      jobId: 'JOB000000001',
      hitId: 'HIT000000001',
      idTrafficSource: OK_SOURCE,
      idFunnel: 'FUNNEL000001',
      url: `${base}/ok?hit=HIT000000001&p=2.5&token=********`,
      kind: 'postbackUrl',
      status: 'pending',
      attempts: 0,
      lastError: null,
    });
    expect(decided.rows.find((r) => r.rowIndex === 2)).toMatchObject({
      kind: 'pixelUrl',
      status: 'recorded',
      url: `${base}/pixel?hit=HIT000000003&key=********`,
    });

    const failed = await eventually(async () => {
      const report = await query(ACCOUNT, { ...today(), statuses: ['failed'] });
      expect(report.rows).toHaveLength(1);
      return report.rows[0];
    }, 20_000);
    expect(failed).toMatchObject({ rowIndex: 1, hitId: 'HIT000000002', idTrafficSource: FAILING_SOURCE, status: 'failed', attempts: 3, lastError: 'HTTP 500' });
    expect((await query(ACCOUNT, { ...today(), statuses: ['pending'] })).rows.map((r) => r.rowIndex)).toEqual([0]);

    releaseOk();
    const delivered = await eventually(async () => {
      const report = await query(ACCOUNT, { ...today(), statuses: ['delivered'] });
      expect(report.rows).toHaveLength(1);
      return report.rows[0];
    }, 20_000);
    expect(delivered).toMatchObject({ rowIndex: 0, status: 'delivered', attempts: 1, lastError: null });

    // The per-job listing and the log agree (statuses, attempts, masked URLs).
    const listed = await new JobRecords(events).postbacks(ACCOUNT, 'JOB000000001');
    const logged = (await query(ACCOUNT, today())).rows.sort((a, b) => a.rowIndex - b.rowIndex);
    expect(logged.map((r) => ({ hitId: r.hitId, url: r.url, status: r.status, attempts: r.attempts, lastError: r.lastError }))).toEqual(listed);

    // Filters and paging; another account sees nothing.
    expect((await query(ACCOUNT, { ...today(), funnelIds: ['FUNNEL000002'], paging: { start: 0, length: 1 } })).rows.map((r) => r.rowIndex)).toEqual([2]);
    expect(await query(ACCOUNT, { ...today(), trafficSourceIds: [OK_SOURCE] })).toMatchObject({ rowsReturned: 1, rowsTotal: 1 });
    expect(await query('ACCOUNT00002', today())).toEqual({ rows: [], rowsReturned: 0, rowsTotal: 0 });
  }, 60_000);

  it('logs nothing twice when the job is applied again (a redelivery), and keeps the statuses', async () => {
    const before = await query(ACCOUNT, today());
    const update = parseConversionsUpdate({
      postbackCalls: 'all',
      hits: [
        { hitId: 'HIT000000001', payout: '2.5', transactionId: 'T1' },
        { hitId: 'HIT000000002', payout: '1' },
        { hitId: 'HIT000000003', payout: '1' },
      ],
    });
    // What a redelivered job does (the queue drops a second enqueue of the id): apply it again (the
    // hit store gives back the postbacks its rows decided) and record them again.
    const again = await apply({ jobId: 'JOB000000001', type: 'conversions', accountId: ACCOUNT, queuedAt: new Date().toISOString(), payload: update });
    expect(again.postbacks.map((p) => p.deliveryId)).toEqual(['JOB000000001:0', 'JOB000000001:1', 'JOB000000001:2']);
    await new JobRecords(events, log).postbacksDecided(ACCOUNT, 'JOB000000001', again.postbacks);
    expect(await query(ACCOUNT, today())).toEqual(before);
    expect(before.rows.map((r) => r.status).sort()).toEqual(['delivered', 'failed', 'recorded']);
  });

  it('refuses a bad request with the field at fault', async () => {
    await expect(query(ACCOUNT, { ...today(), paging: { length: 1001 } })).rejects.toMatchObject({
      status: 400,
      details: [expect.objectContaining({ field: 'paging.length' })],
    });
    await expect(query(ACCOUNT, { timeStart: '2025-01-01T00:00:00Z', timeEnd: '2026-01-03T00:00:00Z' })).rejects.toMatchObject({
      status: 400,
      details: [expect.objectContaining({ field: 'timeEnd', code: 'maxWindow' })],
    });
    await expect(query(ACCOUNT, { ...today(), statuses: ['queued'] })).rejects.toMatchObject({
      status: 400,
      details: [expect.objectContaining({ field: 'statuses' })],
    });
    await expect(query(ACCOUNT, { ...today(), status: ['failed'] })).rejects.toMatchObject({
      status: 400,
      details: [expect.objectContaining({ field: 'status', code: 'unknownField' })],
    });
    await expect(query(ACCOUNT, { ...today(), funnelIds: ['not-an-id'] })).rejects.toMatchObject({ status: 400 });
  });

  it('answers a query stopped at its time limit with 503 REPORTING.QUERY_TIMEOUT', async () => {
    const stopped = { find: () => Promise.reject(new PostbackLogQueryTimeout(10_000)) } as unknown as PostbackLogStore;
    const request = { context: { accountId: ACCOUNT, userId: 'u', permissions: ['reporting:read'], correlationId: 'c' }, body: { body: today() } };
    await expect(new PostbackLogMessageController(stopped).postbackLog(request)).rejects.toMatchObject({ status: 503, code: 'REPORTING.QUERY_TIMEOUT' });
  });
});
