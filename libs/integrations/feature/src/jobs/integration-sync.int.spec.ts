import { Test } from '@nestjs/testing';
import type { INestApplicationContext } from '@nestjs/common';
import { join } from 'node:path';
import type { CallerContext, CostUpdate, SyncJobView } from '@funnel/contracts';
import { SqliteEventStore } from '@funnel/eventstore';
import { EmbeddedReadStore } from '@funnel/readstore';
import type { EncryptedSecret, SecretCipher } from '@funnel/assets-domain';
import { EmbeddedJobQueue, type JobEnvelope } from '@funnel/reporting-feature';
import { aHit, type Hit } from '@funnel/reporting-domain';
import { tempDir, type TempDir } from '@funnel/testing';
import type { ServiceClient } from '@funnel/platform';
import {
  type AdAccount,
  type AdPlatform,
  AdPlatformError,
  AdPlatformRegistry,
  type AdPlatformTokens,
  type CampaignDayCost,
  type ConversionGoal,
  type ConversionToUpload,
  type CostWindow,
  type GoalTarget,
  type UploadOutcome,
  derivedJobId,
} from '@funnel/integrations-domain';
import { IntegrationsFeatureModule } from '../integrations-feature.module';
import { IntegrationsService, TOKEN_REFRESH_MARGIN_MS } from '../integrations/integrations.service';
import { conversionUploadsListener } from './conversion-uploads';
import type { IntegrationJobDelivery, IntegrationJobPayload, IntegrationJobQueue } from './integration-jobs';
import { IntegrationSync } from './integration-sync.service';

const ACCOUNT = 'ACCOUNT00001';
const TRAFFIC_SOURCE = 'TSOURCE00001';
const context: CallerContext = { accountId: ACCOUNT, userId: 'USER00000001', permissions: [], correlationId: 'test' };
const HOUR = 3600_000;
const DAY = 24 * HOUR;

interface Call {
  what: string;
  accessToken: string;
  /** Real time of the call (the waits are real: Retry-After, the queue's backoff). */
  at: number;
  batch?: string[];
}

/** An ad platform with OAuth refresh, answering from memory; `failures` scripts what its next calls of a kind throw. */
class FakePlatform implements AdPlatform {
  readonly provider = 'fake';
  readonly name = 'Fake Ads';
  readonly configured = true;
  readonly capabilities = {
    costSync: true,
    conversionUpload: true,
    pkce: false,
    refresh: true,
    revoke: false,
    uploadBatchLimit: 2,
    uploadMaxAgeDays: 7,
    needs: { goalEventName: false, clickIdFields: ['external'] },
  };
  readonly calls: Call[] = [];
  /** Per kind of call, what its next calls throw (null: it answers). */
  readonly failures: Record<string, (AdPlatformError | null)[]> = {};
  /** Lifetime of the access tokens it issues. */
  tokenLifetimeMs = 2 * HOUR;
  private issued = 0;

  constructor(private readonly clock: () => number) {}

  authorizationUrl(request: { state: string }): URL {
    return new URL(`https://ads.example.com/authorize?state=${request.state}`);
  }
  async exchangeCode(): Promise<AdPlatformTokens> {
    return this.tokens();
  }
  async refresh(tokens: AdPlatformTokens): Promise<AdPlatformTokens> {
    this.called('refresh', tokens);
    return this.tokens();
  }
  async revoke(): Promise<boolean> {
    return false;
  }
  async listAdAccounts(tokens: AdPlatformTokens): Promise<AdAccount[]> {
    this.called('listAdAccounts', tokens);
    return [{ id: 'A1', name: 'Main', currency: 'EUR', timezone: 'UTC' }];
  }
  async listConversionGoals(tokens: AdPlatformTokens): Promise<ConversionGoal[]> {
    this.called('listConversionGoals', tokens);
    return [{ id: 'G1', name: 'Purchases', type: 'conversion_action' }];
  }
  async pullCosts(tokens: AdPlatformTokens, _adAccountId: string, window: CostWindow): Promise<CampaignDayCost[]> {
    this.called('pullCosts', tokens);
    return [{ campaignId: 'C1', day: window.since, spend: 5, currency: 'EUR' }];
  }
  /** When set, uploads answer only once it resolves (a slow provider). */
  uploadGate: Promise<void> | undefined;

  async uploadConversions(tokens: AdPlatformTokens, _goal: GoalTarget, batch: readonly ConversionToUpload[]): Promise<UploadOutcome> {
    this.called('uploadConversions', tokens, batch);
    await this.uploadGate;
    return { accepted: batch.length, rejected: [], answer: { received: batch.length } };
  }

  /** The calls of a kind that did not throw. */
  done(what: string): Call[] {
    return this.calls.filter((call) => call.what === what);
  }

  private called(what: string, tokens: AdPlatformTokens, batch?: readonly ConversionToUpload[]): void {
    const failure = this.failures[what]?.shift();
    this.calls.push({ what: failure ? `${what}!` : what, accessToken: tokens.accessToken, at: Date.now(), batch: batch?.map((c) => c.eventId) });
    if (failure) throw failure;
  }

  private tokens(): AdPlatformTokens {
    const n = ++this.issued;
    return {
      accessToken: `access-${n}`,
      refreshToken: `refresh-${n}`,
      expiresAt: new Date(this.clock() + this.tokenLifetimeMs).toISOString(),
      scopes: ['ads'],
    };
  }
}

/** Tokens "encrypted" reversibly: the box itself is tested with the assets feature. */
const secrets: SecretCipher = {
  encrypt: (plain: string): EncryptedSecret => ({ $secret: 'aes-256-gcm', keyId: 'test', iv: '', data: Buffer.from(plain).toString('base64'), tag: '' }),
  decrypt: (secret: EncryptedSecret) => Buffer.from(secret.data, 'base64').toString(),
};

/** The assets service: the one traffic source of the account. */
const assets = {
  request: async (subject: string, payload: { context: CallerContext; body: { query: Record<string, string> } }) => {
    const id = Object.values(payload.body.query)[0];
    if (payload.context.accountId !== ACCOUNT || id !== TRAFFIC_SOURCE) throw Object.assign(new Error('not found'), { status: 404 });
    return { result: { idTrafficSource: TRAFFIC_SOURCE, trafficSourceName: 'Ads', trackingFieldSlots: {} } };
  },
  subscribe: () => () => undefined,
  close: async () => undefined,
} as unknown as ServiceClient;

/** A queue that only records what is queued (the scheduler's replicas). */
class RecordingQueue {
  readonly queued: JobEnvelope<IntegrationJobPayload>[] = [];
  async enqueue(jobs: readonly JobEnvelope<IntegrationJobPayload>[]) {
    const duplicates = jobs.filter((job) => this.queued.some((q) => q.jobId === job.jobId)).map((job) => job.jobId);
    this.queued.push(...jobs.filter((job) => !duplicates.includes(job.jobId)));
    return { duplicates };
  }
  /** Nothing is consumed: the test looks at what the scheduler queued. */
  async consume(): Promise<void> {
    return undefined;
  }
  async depth() {
    return this.queued.length;
  }
  async close(): Promise<void> {
    return undefined;
  }
}

/** The integrations' job queue of the standalone stores, in `dir`. */
function openIntegrationQueue(dir: string): EmbeddedJobQueue<IntegrationJobPayload> {
  return new EmbeddedJobQueue<IntegrationJobPayload>({
    name: 'REPORTING_INTEGRATIONS',
    subjectPrefix: 'reporting.integrations',
    filename: join(dir, 'queue.sqlite'),
    maxAttempts: 4,
    backoffMs: [300],
    pollIntervalMs: 20,
  });
}
describe('integration jobs: tokens, provider failures, uploads and the schedule (fake clock, fake ad platform)', () => {
  let dir: TempDir;
  let eventStore: SqliteEventStore;
  let readStore: EmbeddedReadStore;
  let now: number;
  const clock = () => now;
  let platform: FakePlatform;
  let queue: EmbeddedJobQueue<IntegrationJobPayload>;
  let costs: { jobId: string; update: CostUpdate }[];
  let hits: Map<string, Hit>;
  const apps: INestApplicationContext[] = [];

  async function boot(jobQueue: IntegrationJobQueue = queue) {
    const moduleRef = await Test.createTestingModule({
      imports: [
        IntegrationsFeatureModule.forRoot({
          eventStore,
          readStore,
          platforms: new AdPlatformRegistry([platform]),
          secrets,
          assets,
          settings: { redirectUri: 'https://app.example.com/callback' },
          clock,
          jobs: {
            queue: jobQueue,
            reporting: {
              enqueueCost: async (_accountId, jobId, update) => void costs.push({ jobId, update }),
              hits: async (_accountId, hitIds) => hitIds.map((id) => hits.get(id)).filter((hit): hit is Hit => hit !== undefined),
              // The on-demand conversion sync's query and the deliveries log are proven in conversion-sync.int.spec.ts.
              conversionsIn: async () => ({ conversions: [], next: null }),
              logDeliveries: async () => undefined,
            },
            scheduleCheckMs: 3_600_000,
            maxRetryAfterSeconds: 5,
          },
        }),
      ],
    }).compile();
    const app = await moduleRef.init();
    apps.push(app);
    return { service: app.get(IntegrationsService, { strict: false }), sync: app.get(IntegrationSync, { strict: false }) };
  }

  async function connect(service: IntegrationsService): Promise<string> {
    const { state } = await service.start(context, { provider: 'fake' });
    const { integration } = await service.complete(context, { state, code: 'the-code' });
    await service.linkAdAccount(context, integration.idIntegration, 'A1', { idTrafficSource: TRAFFIC_SOURCE });
    return integration.idIntegration;
  }

  async function settled(sync: IntegrationSync, jobId: string): Promise<SyncJobView> {
    for (let i = 0; i < 300; i++) {
      const job = await sync.status(context, jobId).then(
        (answer) => answer.job,
        () => undefined,
      );
      if (job && job.status !== 'queued' && job.status !== 'running') return job;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    throw new Error(`job ${jobId} did not settle`);
  }

  const costSync = async (sync: IntegrationSync, id: string) =>
    settled(sync, (await sync.request(context, id, { kind: 'cost', timeStart: '2026-03-10T00:00:00Z', timeEnd: '2026-03-11T00:00:00Z' })).jobId);

  beforeEach(() => {
    dir = tempDir('integration-jobs');
    eventStore = new SqliteEventStore({ filename: join(dir.path, 'events.sqlite'), pollIntervalMs: 10 });
    readStore = new EmbeddedReadStore();
    now = Date.parse('2026-03-12T10:00:00Z');
    platform = new FakePlatform(clock);
    queue = openIntegrationQueue(dir.path);
    costs = [];
    hits = new Map();
  });

  afterEach(async () => {
    for (const app of apps.splice(0)) await app.close();
    await queue.close();
    await eventStore.close();
    await readStore.close();
    dir.remove();
  });

  it('refreshes a token that expires within the margin before the call, and only then', async () => {
    const { service, sync } = await boot();
    const id = await connect(service);
    // Two hours left: used as it is.
    expect(await costSync(sync, id)).toMatchObject({ status: 'done', parts: [{ adAccountId: 'A1', rows: 1, error: null }] });
    expect(platform.calls.map((c) => [c.what, c.accessToken])).toEqual([
      ['listAdAccounts', 'access-1'],
      ['pullCosts', 'access-1'],
    ]);
    // Less than the margin left: refreshed first, the call made with the new token, which is kept.
    now += 2 * HOUR - TOKEN_REFRESH_MARGIN_MS + 1000;
    expect(await costSync(sync, id)).toMatchObject({ status: 'done' });
    expect(platform.calls.slice(2).map((c) => [c.what, c.accessToken])).toEqual([
      ['refresh', 'access-1'],
      ['pullCosts', 'access-2'],
    ]);
    expect((await service.get(context, id)).integration).toMatchObject({ status: 'active', expiresAt: new Date(now + 2 * HOUR).toISOString() });
    expect(await costSync(sync, id)).toMatchObject({ status: 'done' });
    expect(platform.calls.slice(4).map((c) => [c.what, c.accessToken])).toEqual([['pullCosts', 'access-2']]);
  });

  it('marks the integration needs_reauth when the refresh is refused, calling nothing else', async () => {
    const { service, sync } = await boot();
    const id = await connect(service);
    now += 2 * HOUR;
    platform.failures.refresh = [new AdPlatformError('auth', 'the token refresh was refused: invalid_grant')];
    expect(await costSync(sync, id)).toMatchObject({ status: 'needs_reauth', error: expect.stringContaining('invalid_grant') });
    expect(platform.calls.map((c) => c.what)).toEqual(['listAdAccounts', 'refresh!']);
    expect((await service.get(context, id)).integration).toMatchObject({ status: 'needs_reauth', lastError: expect.stringContaining('invalid_grant') });
  });

  it('stops at a revoked token (401): needs_reauth, no further provider call until reauthorized, then syncs again', async () => {
    const { service, sync } = await boot();
    const id = await connect(service);
    platform.failures.pullCosts = [new AdPlatformError('auth', 'pulling costs: the provider answered 401')];
    expect(await costSync(sync, id)).toMatchObject({ status: 'needs_reauth', error: expect.stringContaining('401') });
    expect((await service.get(context, id)).integration).toMatchObject({ status: 'needs_reauth' });
    const calls = platform.calls.length;
    expect(await costSync(sync, id)).toMatchObject({ status: 'needs_reauth' });
    await expect(service.goals(context, id, 'A1')).rejects.toMatchObject({ status: 409, code: 'INTEGRATION.NEEDS_REAUTH' });
    expect(platform.calls.length).toBe(calls);

    const { state } = await service.reauthorize(context, id);
    expect((await service.complete(context, { state, code: 'again' })).integration).toMatchObject({ status: 'active', lastError: null });
    expect(await costSync(sync, id)).toMatchObject({ status: 'done', parts: [{ adAccountId: 'A1', rows: 1, error: null }] });
    expect(platform.done('pullCosts').at(-1)!.accessToken).toBe('access-2');
  });

  it("retries a 5xx with the queue's backoff, then succeeds, queueing each day's cost update once", async () => {
    const { service, sync } = await boot();
    const id = await connect(service);
    platform.failures.pullCosts = [new AdPlatformError('unavailable', 'pulling costs: the provider answered 503')];
    const job = await costSync(sync, id);
    expect(job).toMatchObject({ status: 'done', attempts: 2, parts: [{ adAccountId: 'A1', rows: 1, error: null }] });
    const pulls = platform.calls.filter((c) => c.what.startsWith('pullCosts'));
    expect(pulls.map((c) => c.what)).toEqual(['pullCosts!', 'pullCosts']);
    // The queue's first backoff (300 ms here) between the two.
    expect(pulls[1].at - pulls[0].at).toBeGreaterThanOrEqual(250);
    expect(costs).toHaveLength(1);
    expect(costs[0].update).toMatchObject({
      trafficSourceIDs: [TRAFFIC_SOURCE],
      segments: [{ cost: '5', costType: 'costForWholeSegment', restrictToTrackingFields: [{ key: 'campaign', value: 'C1' }] }],
    });
  });

  it('waits out a 429 Retry-After within the attempt; a longer one than it waits goes to the backoff', async () => {
    const { service, sync } = await boot();
    const id = await connect(service);
    platform.failures.pullCosts = [new AdPlatformError('rate_limited', 'pulling costs: too many calls', 1)];
    expect(await costSync(sync, id)).toMatchObject({ status: 'done', attempts: 1 });
    let pulls = platform.calls.filter((c) => c.what.startsWith('pullCosts'));
    expect(pulls.map((c) => c.what)).toEqual(['pullCosts!', 'pullCosts']);
    expect(pulls[1].at - pulls[0].at).toBeGreaterThanOrEqual(950);

    platform.failures.pullCosts = [new AdPlatformError('rate_limited', 'pulling costs: too many calls', 600)];
    expect(await costSync(sync, id)).toMatchObject({ status: 'done', attempts: 2 });
    pulls = platform.calls.filter((c) => c.what.startsWith('pullCosts')).slice(2);
    expect(pulls.map((c) => c.what)).toEqual(['pullCosts!', 'pullCosts']);
  });

  it('uploads in batches of the provider limit, each conversion once (a retried job, the same conversions again), none too old, only with a goal link', async () => {
    const { service, sync } = await boot();
    const id = await connect(service);
    const listener = conversionUploadsListener(readStore, queue);
    const hitAt = new Date(now - DAY).toISOString();
    const make = (external: string) =>
      aHit({ hitId: `HIT${external.padStart(9, '0')}`, accountId: ACCOUNT, idTrafficSource: TRAFFIC_SOURCE, time: hitAt, trackingFields: { external } });
    const converted = ['1', '2', '3', '4', '5'].map(make);
    const old = make('6');
    const conversionTime = new Date(now - HOUR).toISOString();
    for (const hit of converted) hits.set(hit.hitId, { ...hit, conversions: [{ transactionId: 'T', payout: '2', time: conversionTime }] });
    hits.set(old.hitId, { ...old, conversions: [{ transactionId: 'T', payout: '2', time: new Date(now - 8 * DAY).toISOString() }] });
    const reportingJob = (jobId: string, rows: Hit[]) => ({
      jobId,
      type: 'conversions',
      accountId: ACCOUNT,
      queuedAt: new Date(now).toISOString(),
      payload: { hits: rows.map((hit) => ({ hitId: hit.hitId, payout: '2', transactionId: 'T' })) },
    });
    const rows = [...converted, old];

    // No goal linked yet: nothing queued.
    await listener(reportingJob('RJOB00000001', rows));
    expect(await queue.depth()).toBe(0);

    await service.linkGoal(context, id, 'A1', 'G1', { idTrafficSource: TRAFFIC_SOURCE, clickIdField: 'external' });
    // The second request fails (503): the job is retried, the first batch not sent again.
    platform.failures.uploadConversions = [null, new AdPlatformError('unavailable', 'sending conversions: the provider answered 503')];
    await listener(reportingJob('RJOB00000002', rows));
    const uploadJobId = derivedJobId('upload-RJOB00000002', id);
    expect(await settled(sync, uploadJobId)).toMatchObject({ kind: 'conversions', status: 'done', attempts: 2, parts: [{ adAccountId: 'A1', error: null }] });
    const batches = platform.calls.filter((c) => c.what.startsWith('uploadConversions')).map((c) => [c.what, c.batch]);
    expect(batches).toEqual([
      ['uploadConversions', ['HIT000000001:T', 'HIT000000002:T']],
      ['uploadConversions!', ['HIT000000003:T', 'HIT000000004:T']],
      ['uploadConversions', ['HIT000000003:T', 'HIT000000004:T']],
      ['uploadConversions', ['HIT000000005:T']],
    ]);

    // The same conversions applied again by another job (one of them only, among rows that did not change): nothing sent.
    await listener(reportingJob('RJOB00000003', rows), [0, 5]);
    await listener(reportingJob('RJOB00000004', rows));
    for (let i = 0; i < 200 && (await queue.depth()) > 0; i++) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await queue.depth()).toBe(0);
    // Handled, with nothing to send: no status either.
    for (const jobId of ['RJOB00000003', 'RJOB00000004']) {
      await expect(sync.status(context, derivedJobId(`upload-${jobId}`, id))).rejects.toMatchObject({ status: 404 });
    }
    expect(platform.done('uploadConversions').flatMap((c) => c.batch)).toEqual(converted.map((hit) => `${hit.hitId}:T`));
  });

  it('sends a conversion once when two jobs naming it run at the same time and the provider is slow (an update applied twice in quick succession)', async () => {
    const { service, sync } = await boot();
    const id = await connect(service);
    const listener = conversionUploadsListener(readStore, queue);
    const hit = aHit({
      hitId: 'HIT000000007',
      accountId: ACCOUNT,
      idTrafficSource: TRAFFIC_SOURCE,
      time: new Date(now - DAY).toISOString(),
      trackingFields: { external: '7' },
    });
    hits.set(hit.hitId, { ...hit, conversions: [{ transactionId: '', payout: '7', time: new Date(now - HOUR).toISOString() }] });
    await service.linkGoal(context, id, 'A1', 'G1', { idTrafficSource: TRAFFIC_SOURCE, clickIdField: 'external' });
    let open!: () => void;
    platform.uploadGate = new Promise<void>((resolve) => (open = resolve));
    const reportingJob = (jobId: string) => ({
      jobId,
      type: 'conversions',
      accountId: ACCOUNT,
      queuedAt: new Date(now).toISOString(),
      payload: { hits: [{ hitId: hit.hitId, payout: '7' }] },
    });
    await listener(reportingJob('RJOB00000011'));
    await listener(reportingJob('RJOB00000012'));
    const uploads = () => platform.calls.filter((c) => c.what === 'uploadConversions');
    // The first job's upload waits on the provider; the second job (two run at once) gets a second to
    // reach the provider too, as it did when both found the conversion unsent.
    for (let i = 0; i < 300 && uploads().length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    for (let i = 0; i < 100 && uploads().length < 2; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    open();
    await settled(sync, derivedJobId('upload-RJOB00000011', id));
    for (let i = 0; i < 200 && (await queue.depth()) > 0; i++) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(uploads().flatMap((c) => c.batch)).toEqual(['HIT000000007']);
  });

  it('claims each 3-hour slot once across two replicas and a restart, queueing the trailing 3 days', async () => {
    const first = new RecordingQueue();
    const second = new RecordingQueue();
    const a = await boot(first as unknown as IntegrationJobQueue);
    const b = await boot(second as unknown as IntegrationJobQueue);
    const id = await connect(a.service);
    // The next slot: both replicas look at once.
    now = (Math.floor(now / (3 * HOUR)) + 1) * 3 * HOUR + 60_000;
    const counts = await Promise.all([a.sync.schedule(), b.sync.schedule()]);
    expect(counts.sort()).toEqual([0, 1]);
    const queued = [...first.queued, ...second.queued];
    expect(queued).toHaveLength(1);
    expect(queued[0]).toMatchObject({
      type: 'cost',
      accountId: ACCOUNT,
      payload: { kind: 'cost', idIntegration: id, trigger: 'schedule', timeStart: '2026-03-10T00:00:00.000Z', timeEnd: new Date(now).toISOString() },
    });
    // A restarted replica within the slot, and a later look: nothing more.
    const c = await boot(new RecordingQueue() as unknown as IntegrationJobQueue);
    now += HOUR;
    expect(await c.sync.schedule()).toBe(0);
    expect(await a.sync.schedule()).toBe(0);
    // The slot after: once again.
    now += 2 * HOUR;
    expect((await Promise.all([a.sync.schedule(), b.sync.schedule(), c.sync.schedule()])).reduce((x, y) => x + y)).toBe(1);
  });
  describe('across a restart of the standalone stores (the same files)', () => {
    const stateFile = () => join(dir.path, 'readstate.sqlite');
    const openQueue = () => openIntegrationQueue(dir.path);
    /** Stops the app and its stores, as a stopped process leaves them, and opens them again from their files. */
    async function restart(): Promise<void> {
      for (const app of apps.splice(0)) await app.close();
      await queue.close();
      await eventStore.close();
      await readStore.close();
      eventStore = new SqliteEventStore({ filename: join(dir.path, 'events.sqlite'), pollIntervalMs: 10 });
      readStore = new EmbeddedReadStore({ stateFile: stateFile() });
      queue = openQueue();
    }

    beforeEach(async () => {
      await readStore.close();
      readStore = new EmbeddedReadStore({ stateFile: stateFile() });
    });

    it("answers a finished job's status after the restart", async () => {
      const { service, sync } = await boot();
      const id = await connect(service);
      const { jobId } = await sync.request(context, id, { kind: 'cost', timeStart: '2026-03-10T00:00:00Z', timeEnd: '2026-03-11T00:00:00Z' });
      const done = await settled(sync, jobId);
      expect(done).toMatchObject({ status: 'done', attempts: 1, parts: [{ adAccountId: 'A1', rows: 1, error: null }] });
      await restart();
      const { sync: restarted } = await boot();
      expect((await restarted.status(context, jobId)).job).toEqual(done);
    });

    it('runs a job that was running when the process stopped, to its end: its status does not stay running', async () => {
      // The process before the restart: its job queue takes jobs but never hands one to the sync (it died first) ...
      const stalled = { enqueue: (jobs: readonly JobEnvelope<IntegrationJobPayload>[]) => queue.enqueue(jobs), consume: async () => undefined };
      const { service, sync } = await boot(stalled as unknown as IntegrationJobQueue);
      const id = await connect(service);
      const { jobId } = await sync.request(context, id, { kind: 'cost', timeStart: '2026-03-10T00:00:00Z', timeEnd: '2026-03-11T00:00:00Z' });
      expect((await sync.status(context, jobId)).job).toMatchObject({ status: 'queued', attempts: 0 });
      // ... but one delivery of the job, running when it died: its pull from the provider never answers.
      platform.pullCosts = () => new Promise<never>(() => undefined);
      expect(await queue.depth()).toBe(1);
      void sync.handle({
        job: {
          jobId,
          type: 'cost',
          accountId: ACCOUNT,
          queuedAt: new Date(now).toISOString(),
          payload: { kind: 'cost', idIntegration: id, timeStart: '2026-03-10T00:00:00.000Z', timeEnd: '2026-03-11T00:00:00.000Z', trigger: 'request' },
        },
        attempt: 1,
        wait: (pending) => pending,
      } as IntegrationJobDelivery);
      for (let i = 0; i < 100 && (await sync.status(context, jobId)).job.status !== 'running'; i++) await new Promise((resolve) => setTimeout(resolve, 10));
      expect((await sync.status(context, jobId)).job).toMatchObject({ status: 'running', attempts: 1 });

      await restart();
      platform = new FakePlatform(clock);
      const { sync: restarted } = await boot();
      expect(await settled(restarted, jobId)).toMatchObject({ status: 'done', error: null, parts: [{ adAccountId: 'A1', rows: 1, error: null }] });
      expect(costs).toHaveLength(1);
    });
  });
});
