import { IntegrationErrorCodes, ServiceError, type CallerContext } from '@funnel/contracts';
import { join } from 'node:path';
import { SqliteEventStore } from '@funnel/eventstore';
import { tempDir, type TempDir } from '@funnel/testing';
import { type AdPlatform, AdPlatformRegistry, type AdPlatformTokens, type ConversionToUpload, type IntegrationRecord } from '@funnel/integrations-domain';
import { EmbeddedReadStore } from '@funnel/readstore';
import { aHit } from '@funnel/reporting-domain';
import type { IntegrationDeliveryEntry } from '@funnel/reporting-feature';
import type { WindowConversionsQuery } from '@funnel/reporting-queries-feature';
import type { IntegrationsService } from '../integrations/integrations.service';
import type { IntegrationJobDelivery, IntegrationJobPayload, IntegrationReporting } from './integration-jobs';
import { IntegrationSync } from './integration-sync.service';

const ACCOUNT = 'ACCOUNT00001';
const SOURCE = 'TSOURCE00001';
const NOW = Date.parse('2026-11-28T12:00:00.000Z');
const context: CallerContext = { accountId: ACCOUNT, userId: 'USER00000001', permissions: ['integrations:manage'], correlationId: 'c' };
const WINDOW = { timeStart: '2026-11-27T00:00:00.000Z', timeEnd: '2026-11-28T00:00:00.000Z' };

const record = (fields: Partial<IntegrationRecord> = {}): IntegrationRecord => ({
  idIntegration: 'INTEGRATION1',
  accountId: ACCOUNT,
  provider: 'fake',
  integrationName: 'Fake',
  status: 'active',
  lastError: null,
  expiresAt: null,
  scopes: [],
  createdAt: '2026-11-01T00:00:00.000Z',
  tokens: {} as IntegrationRecord['tokens'],
  adAccounts: [{ id: 'act_1', name: 'Main', currency: 'EUR', timezone: 'UTC' }],
  adAccountLinks: {},
  goalLinks: [
    { adAccountId: 'act_1', goalId: 'goal1', goalName: 'Shop', goalType: 'dataset', idTrafficSource: SOURCE, eventName: 'Purchase', clickIdField: 'external' },
  ],
  ...fields,
});

const conversion = (hitId: string, transactionId = '') => ({ hitId, transactionId, payout: '2', time: '2026-11-27T02:00:00.000Z' });
/** A hit of the linked source with a click id and the conversions it holds (those of the pages), and one of another source. */
const hitOf = (hitId: string, idTrafficSource = SOURCE, transactionIds = ['']) =>
  aHit({
    hitId,
    accountId: ACCOUNT,
    idTrafficSource,
    trackingFields: { external: `click-${hitId}` },
    time: '2026-11-27T01:00:00.000Z',
    conversions: transactionIds.map((tx) => {
      const { transactionId, payout, time } = conversion(hitId, tx);
      return { transactionId, payout, time };
    }),
  });

describe('IntegrationSync: an on-demand conversion sync (kind conversions)', () => {
  let readStore: EmbeddedReadStore;
  let logged: IntegrationDeliveryEntry[];
  let queued: { jobId: string; type: string; accountId: string; queuedAt: string; payload: IntegrationJobPayload }[];
  let sent: ConversionToUpload[][];
  let pagesAsked: WindowConversionsQuery[];
  let failOn: ((batch: readonly ConversionToUpload[]) => ServiceError | undefined) | undefined;
  let integration: IntegrationRecord;
  let sync: IntegrationSync;

  const platform = {
    name: 'Fake',
    capabilities: { conversionUpload: true, costSync: false, uploadBatchLimit: 2, uploadMaxAgeDays: 7 },
    async uploadConversions(_tokens: AdPlatformTokens, _goal: unknown, batch: readonly ConversionToUpload[]) {
      sent.push([...batch]);
      return {
        accepted: batch.filter((c) => c.eventId !== 'HIT000000003').length,
        rejected: batch.filter((c) => c.eventId === 'HIT000000003').map((c) => ({ eventId: c.eventId, reason: 'click id too old' })),
        answer: { received: batch.length },
      };
    },
  } as unknown as AdPlatform;

  /** Two pages of hits: three conversions, then two (one on a hit of another source, which no goal takes). */
  const PAGES = [
    {
      conversions: [conversion('HIT000000001', 'tx-1'), conversion('HIT000000001', 'tx-2'), conversion('HIT000000002')],
      next: { timeMs: 1, hitId: 'HIT000000002' },
    },
    { conversions: [conversion('HIT000000003'), conversion('HIT000000004'), conversion('HIT000000009')], next: null },
  ];
  const HITS = new Map(
    ['HIT000000001', 'HIT000000002', 'HIT000000003', 'HIT000000004']
      .map((id) => [id, id === 'HIT000000001' ? hitOf(id, SOURCE, ['tx-1', 'tx-2']) : hitOf(id)] as const)
      .concat([['HIT000000009', hitOf('HIT000000009', 'TSOURCE00002')]]),
  );

  let dir: TempDir;
  let eventStore: SqliteEventStore;

  const uploadedOf = (service: IntegrationSync) => (service as unknown as { uploaded: { start(): Promise<void>; stop(): Promise<void> } }).uploaded;

  beforeEach(async () => {
    dir = tempDir('conversion-sync');
    eventStore = new SqliteEventStore({ filename: join(dir.path, 'events.sqlite'), pollIntervalMs: 10 });
    readStore = new EmbeddedReadStore();
    logged = [];
    queued = [];
    sent = [];
    pagesAsked = [];
    failOn = undefined;
    integration = record();
    const integrations = {
      recordFor: async () => integration,
      liveRecordOrNull: async () => integration,
      platformFor: () => platform,
      trackingFieldNames: async () => ({}),
      async callAsJob<T>(_a: string, _i: string, _c: string, call: (p: AdPlatform, t: AdPlatformTokens) => Promise<T>): Promise<T> {
        return call(
          {
            ...platform,
            uploadConversions: async (tokens: AdPlatformTokens, goal: unknown, batch: readonly ConversionToUpload[]) => {
              const error = failOn?.(batch);
              if (error) throw error;
              return platform.uploadConversions(tokens, goal as never, batch);
            },
          } as AdPlatform,
          {} as AdPlatformTokens,
        );
      },
    } as unknown as IntegrationsService;
    const reporting: IntegrationReporting = {
      enqueueCost: async () => undefined,
      hits: async (_accountId, hitIds) => hitIds.map((id) => HITS.get(id)!).filter(Boolean),
      conversionsIn: async (query) => {
        pagesAsked.push(query);
        return PAGES[pagesAsked.length - 1];
      },
      logDeliveries: async (entries) => void logged.push(...entries),
    };
    const queue = { enqueue: async (jobs: typeof queued) => void queued.push(...jobs) } as never;
    sync = new IntegrationSync(integrations, { queue, reporting }, eventStore, readStore, () => NOW, new AdPlatformRegistry([platform as AdPlatform]));
    // What was uploaded is read first (the service starts it at bootstrap, which also consumes the queue).
    await uploadedOf(sync).start();
  });

  afterEach(async () => {
    await uploadedOf(sync).stop();
    await eventStore.close();
    dir.remove();
  });

  const run = async (attempt = 1) => {
    const job = queued[0];
    return sync.handle({ job, attempt, wait: (p: Promise<unknown>) => p } as unknown as IntegrationJobDelivery);
  };
  const status = async (jobId: string) => (await sync.status(context, jobId)).job;

  it('given conversions over two pages, when the job runs, then each page is sent to the goal in batches, the parts add up and each conversion is logged', async () => {
    const { jobId } = await sync.request(context, 'INTEGRATION1', { kind: 'conversions', ...WINDOW });
    expect(queued).toEqual([
      expect.objectContaining({
        jobId,
        type: 'conversions',
        payload: { kind: 'conversionSync', idIntegration: 'INTEGRATION1', ...WINDOW, trigger: 'request' },
      }),
    ]);
    expect(await status(jobId)).toMatchObject({ kind: 'conversions', trigger: 'request', status: 'queued', ...WINDOW });
    await run();
    expect(pagesAsked.map((q) => [q.trafficSourceIds, q.startMs, q.endMs, q.after ?? null])).toEqual([
      [[SOURCE], Date.parse(WINDOW.timeStart), Date.parse(WINDOW.timeEnd), null],
      [[SOURCE], Date.parse(WINDOW.timeStart), Date.parse(WINDOW.timeEnd), { timeMs: 1, hitId: 'HIT000000002' }],
    ]);
    expect(sent.map((batch) => batch.map((c) => c.eventId))).toEqual([
      ['HIT000000001:tx-1', 'HIT000000001:tx-2'],
      ['HIT000000002'],
      ['HIT000000003', 'HIT000000004'],
    ]);
    expect(sent[0][0]).toMatchObject({ clickId: 'click-HIT000000001', value: 2 });
    expect(await status(jobId)).toMatchObject({
      status: 'done',
      error: null,
      attempts: 1,
      parts: [{ adAccountId: 'act_1', costJobIds: [], rows: 4, rejected: 1, error: null }],
    });
    expect(logged.map((e) => [e.jobId, e.conversion?.eventId, e.status, e.answer])).toEqual([
      [jobId, 'HIT000000001:tx-1', 'accepted', '{"received":2}'],
      [jobId, 'HIT000000001:tx-2', 'accepted', '{"received":2}'],
      [jobId, 'HIT000000002', 'accepted', '{"received":1}'],
      [jobId, 'HIT000000003', 'rejected', 'click id too old'],
      [jobId, 'HIT000000004', 'accepted', '{"received":2}'],
    ]);
    expect(logged.every((e) => e.kind === 'conversions' && e.goalId === 'goal1' && e.reportingJobId === '' && e.provider === 'fake')).toBe(true);
  });

  it('given a 503 on the second page, when the job runs, then it is left queued for the retry with what was sent, the batch logged failed', async () => {
    const { jobId } = await sync.request(context, 'INTEGRATION1', { kind: 'conversions', ...WINDOW });
    failOn = (batch) =>
      batch[0].eventId === 'HIT000000003' ? new ServiceError(503, IntegrationErrorCodes.PROVIDER_UNAVAILABLE, 'Fake answered 503') : undefined;
    await expect(run()).rejects.toThrow('Fake answered 503');
    expect(await status(jobId)).toMatchObject({ status: 'queued', error: 'Fake answered 503', parts: [{ adAccountId: 'act_1', rows: 3 }] });
    expect(logged.slice(-2).map((e) => [e.conversion?.eventId, e.status, e.answer])).toEqual([
      ['HIT000000003', 'failed', 'Fake answered 503'],
      ['HIT000000004', 'failed', 'Fake answered 503'],
    ]);
  });

  it('given a token the provider no longer takes, when the job runs, then it stops at needs_reauth without reading further pages', async () => {
    const { jobId } = await sync.request(context, 'INTEGRATION1', { kind: 'conversions', ...WINDOW });
    failOn = () => ServiceError.conflict(IntegrationErrorCodes.NEEDS_REAUTH, 'token expired; reauthorize the integration');
    await run();
    expect(pagesAsked).toHaveLength(1);
    expect(await status(jobId)).toMatchObject({ status: 'needs_reauth', error: 'token expired; reauthorize the integration' });
    expect(logged.map((e) => e.status)).toEqual(['failed', 'failed']);
  });

  it('refuses a window wholly older than the provider takes, and an integration without a linked goal, queuing nothing', async () => {
    const old = { kind: 'conversions', timeStart: '2026-11-01T00:00:00.000Z', timeEnd: '2026-11-20T00:00:00.000Z' };
    await expect(sync.request(context, 'INTEGRATION1', old)).rejects.toMatchObject({ status: 400, code: IntegrationErrorCodes.SYNC_NOT_POSSIBLE });
    integration = record({ goalLinks: [] });
    await expect(sync.request(context, 'INTEGRATION1', { kind: 'conversions', ...WINDOW })).rejects.toMatchObject({
      status: 400,
      code: IntegrationErrorCodes.SYNC_NOT_POSSIBLE,
    });
    expect(queued).toEqual([]);
  });
});
