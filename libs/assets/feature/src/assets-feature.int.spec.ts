import { Test } from '@nestjs/testing';
import { INestApplicationContext } from '@nestjs/common';
import {
  CallerContext,
  ServiceError,
  VISITOR_TAG_KIND,
  CATEGORY_KIND,
  FUNNEL_GROUP_KIND,
  FUNNEL_KIND,
  PAGE_GROUP_KIND,
  generateAssetId,
} from '@funnel/contracts';
import { EventStore, ReadStreamOptions, SqliteEventStore } from '@funnel/eventstore';
import { EmbeddedReadStore } from '@funnel/readstore';
import { AssetRecord, AssetRegistry } from '@funnel/assets-domain';
import { ASSET_KINDS } from '@funnel/contracts';
import { AssetsFeatureModule } from './assets-feature.module';
import { AssetCommands } from './asset-commands';
import { AssetQueries } from './asset-queries';
import { AssetProjector } from './asset-projector';
import { assetsCollection } from './asset-documents';

/** Lets a test hold stream reads until N of them are waiting, forcing two commands to decide on one revision. */
class ReadBarrierStore {
  private waiting: (() => void)[] = [];
  private armedFor = 0;

  constructor(readonly inner: EventStore) {}

  arm(readers: number): void {
    this.armedFor = readers;
  }

  wrap(): EventStore {
    return new Proxy(this.inner, {
      get: (target, property, receiver) => {
        if (property !== 'readStream') return Reflect.get(target, property, receiver);
        return async (stream: string, options?: ReadStreamOptions) => {
          const events = await target.readStream(stream, options);
          if (this.armedFor > 0) {
            await new Promise<void>((resolve) => {
              this.waiting.push(resolve);
              if (this.waiting.length === this.armedFor) {
                this.armedFor = 0;
                this.waiting.splice(0).forEach((release) => release());
              }
            });
          }
          return events;
        };
      },
    });
  }
}

const context = (accountId = 'ACCOUNT00001'): CallerContext => ({ accountId, userId: 'U', permissions: [], correlationId: 'test' });

describe('asset feature over SQLite and the embedded read store', () => {
  let app: INestApplicationContext;
  let eventStore: SqliteEventStore;
  let barrier: ReadBarrierStore;
  let commands: AssetCommands;
  let queries: AssetQueries;

  async function boot(store: SqliteEventStore, readStore = new EmbeddedReadStore()) {
    barrier = new ReadBarrierStore(store);
    const moduleRef = await Test.createTestingModule({ imports: [AssetsFeatureModule.forRoot({ eventStore: barrier.wrap(), readStore })] }).compile();
    app = moduleRef;
    await app.init();
    commands = app.get(AssetCommands);
    queries = app.get(AssetQueries);
  }

  beforeEach(async () => {
    eventStore = new SqliteEventStore({ filename: ':memory:' });
    await boot(eventStore);
  });
  afterEach(async () => {
    await app.close();
    await eventStore.close();
  });

  const tag = (over: Record<string, unknown> = {}) => ({ idTag: generateAssetId(), tagName: 'a', ...over });

  it('of two updates with the same If-Match decided on the same revision, the append refuses the loser with a 412 naming the current revision', async () => {
    const body = tag();
    await commands.create(VISITOR_TAG_KIND, context(), { query: {}, body });
    barrier.arm(2);
    const headers = { 'if-match': 'W/"0"' };
    const results = await Promise.allSettled([
      commands.update(VISITOR_TAG_KIND, context(), { query: {}, body: { ...body, tagName: 'first' }, headers }),
      commands.update(VISITOR_TAG_KIND, context(), { query: {}, body: { ...body, tagName: 'second' }, headers }),
    ]);
    const rejected = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(rejected).toHaveLength(1);
    expect(rejected[0].reason).toMatchObject({ status: 412, code: 'ASSET.REVISION_MISMATCH', message: expect.stringContaining('current revision is 1') });
    const found = await queries.findById(VISITOR_TAG_KIND, context(), { query: { idTag: body.idTag }, body: undefined });
    expect(found.revision).toBe(1);
  });

  it('of two updates decided on the same revision, one wins and the other is a 409; both writes are not silently merged', async () => {
    const body = tag();
    await commands.create(VISITOR_TAG_KIND, context(), { query: {}, body });
    barrier.arm(2);
    const results = await Promise.allSettled([
      commands.update(VISITOR_TAG_KIND, context(), { query: {}, body: { ...body, tagName: 'first' } }),
      commands.update(VISITOR_TAG_KIND, context(), { query: {}, body: { ...body, tagName: 'second' } }),
    ]);
    const fulfilled = results.filter((r) => r.status === 'fulfilled');
    const rejected = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(fulfilled).toHaveLength(1);
    expect(rejected).toHaveLength(1);
    expect(rejected[0].reason).toBeInstanceOf(ServiceError);
    expect((rejected[0].reason as ServiceError).status).toBe(409);
    const winner = results[0].status === 'fulfilled' ? 'first' : 'second';
    expect(((await queries.findById(VISITOR_TAG_KIND, context(), { query: { idTag: body.idTag }, body: undefined })).result as AssetRecord).tagName).toBe(
      winner,
    );
    const stream = await eventStore.readStream(new AssetRegistry(ASSET_KINDS).streamName('visitortag', 'ACCOUNT00001', body.idTag));
    expect(stream.map((e) => e.type)).toEqual(['VisitorTagCreated', 'VisitorTagUpdated']);
  });

  it('two creates of one id racing: one 409', async () => {
    const body = tag();
    barrier.arm(2);
    const results = await Promise.allSettled([1, 2].map(() => commands.create(VISITOR_TAG_KIND, context(), { query: {}, body })));
    expect(results.filter((r) => r.status === 'rejected').map((r) => ((r as PromiseRejectedResult).reason as ServiceError).code)).toEqual([
      'ASSET.ALREADY_EXISTS',
    ]);
  });

  it('the projection is idempotent: applying the log again changes nothing', async () => {
    const body = tag();
    await commands.create(VISITOR_TAG_KIND, context(), { query: {}, body });
    await commands.archive(VISITOR_TAG_KIND, context(), { query: {}, body: { entries: [body.idTag] } });
    const collection = assetsCollection((app.get(AssetProjector) as unknown as { readStore: EmbeddedReadStore }).readStore);
    const before = await collection.find({});
    const all: Parameters<AssetProjector['project']>[0] = [];
    await new Promise<void>((resolve) => {
      const sub = eventStore.subscribeToAll({ onEvents: (e) => void all.push(...e) });
      void sub.caughtUp.then(() => sub.stop()).then(resolve);
    });
    await app.get(AssetProjector).project(all);
    await app.get(AssetProjector).project(all.slice(0, 1));
    expect(await collection.find({})).toEqual(before);
    expect(before[0]).toMatchObject({ revision: 1, status: 'archived' });
  });

  it('a category cascade cut short by a crash is completed from the log at the next start', async () => {
    const idCategory = generateAssetId();
    await commands.create(CATEGORY_KIND, context(), { query: {}, body: { idCategory, categoryName: 'c', categoryType: 'visitorTag' } });
    const child = tag({ idCategory });
    await commands.create(VISITOR_TAG_KIND, context(), { query: {}, body: child });
    await app.close();
    // The parent's decision is in the log, but the process stopped before the children were moved.
    const registry = new AssetRegistry(ASSET_KINDS);
    await eventStore.append(
      registry.streamName('category', 'ACCOUNT00001', idCategory),
      [{ type: 'CategoryDeleted', data: { children: { action: 'orphan' } } }],
      {
        expectedRevision: 0,
      },
    );
    await boot(eventStore);
    const all = (await queries.findByStatus(VISITOR_TAG_KIND, context(), { query: { status: 'all' }, body: undefined })).result as AssetRecord[];
    expect(all.find((t) => t.idTag === child.idTag)).toMatchObject({ idCategory: '', status: 'active' });
  });

  it('a funnel group cascade cut short by a crash deletes the funnels and their local assets at the next start', async () => {
    const [idFunnelGroup, idFunnel, idPageGroup] = [generateAssetId(), generateAssetId(), generateAssetId()];
    await commands.create(FUNNEL_GROUP_KIND, context(), { query: {}, body: { idFunnelGroup, funnelGroupName: 'g' } });
    await commands.create(PAGE_GROUP_KIND, context(), {
      query: {},
      body: { idPageGroup, pageGroupName: 'local', pageType: 'lander', restrictToFunnelId: idFunnel, pages: [] },
    });
    await commands.create(FUNNEL_KIND, context(), { query: {}, body: { idFunnel, idFunnelGroup, funnelName: 'f' } });
    await app.close();
    // The group's decision is in the log, but the process stopped before its funnels were reached.
    const registry = new AssetRegistry(ASSET_KINDS);
    await eventStore.append(
      registry.streamName('funnelgroup', 'ACCOUNT00001', idFunnelGroup),
      [{ type: 'FunnelGroupDeleted', data: { children: { action: 'cascade' } } }],
      { expectedRevision: 0 },
    );
    await boot(eventStore);
    // The cascade has written the children's events by now; the read model shows them once it reaches the log's head.
    await app.get(AssetProjector).waitFor(await eventStore.headPosition());
    expect(await queries.current('funnel', 'ACCOUNT00001', idFunnel)).toMatchObject({ status: 'deleted' });
    expect(await queries.current('pagegroup', 'ACCOUNT00001', idPageGroup)).toMatchObject({ status: 'deleted' });
  });

  it('a later change to a child is not undone by replaying an older cascade', async () => {
    const a = generateAssetId();
    const b = generateAssetId();
    for (const id of [a, b])
      await commands.create(CATEGORY_KIND, context(), { query: {}, body: { idCategory: id, categoryName: id, categoryType: 'visitorTag' } });
    const child = tag({ idCategory: a });
    await commands.create(VISITOR_TAG_KIND, context(), { query: {}, body: child });
    await commands.archive(CATEGORY_KIND, context(), { query: {}, body: { entries: [a], cascadeAction: 'orphan' } });
    await commands.moveCategory(VISITOR_TAG_KIND, context(), { query: {}, body: { entries: [child.idTag], idCategory: a } });
    await app.close();
    await boot(eventStore);
    const found = (await queries.findById(VISITOR_TAG_KIND, context(), { query: { idTag: child.idTag }, body: undefined })).result as AssetRecord;
    expect(found.idCategory).toBe(a);
  });
  describe('bulk operations', () => {
    const ids = (count: number) => Array.from({ length: count }, () => generateAssetId());

    it('refuse more than 1,000 entries or find/byIds ids with a 400, changing nothing', async () => {
      const entries = ids(1001);
      await expect(commands.archive(VISITOR_TAG_KIND, context(), { query: {}, body: { entries } })).rejects.toMatchObject({ status: 400 });
      await expect(queries.findByIds(VISITOR_TAG_KIND, context(), { query: { idTags: entries.join(',') }, body: undefined })).rejects.toMatchObject({
        status: 400,
        message: expect.stringContaining('at most 1000'),
      });
    });

    it('an archive of 1,000 ids lets other work run while it goes: the loop is never held for a large share of it', async () => {
      const entries = ids(1000);
      for (const idTag of entries) await commands.create(VISITOR_TAG_KIND, context(), { query: {}, body: { idTag, tagName: idTag } });
      // A ticker that runs once per event-loop turn, recording the longest time the loop was held between two turns.
      let turns = 0;
      let longestHoldMs = 0;
      let last = performance.now();
      let running = true;
      const tick = () => {
        const now = performance.now();
        longestHoldMs = Math.max(longestHoldMs, now - last);
        last = now;
        turns++;
        if (running) setImmediate(tick);
      };
      setImmediate(tick);
      const startedAt = performance.now();
      await commands.archive(VISITOR_TAG_KIND, context(), { query: {}, body: { entries } });
      const totalMs = performance.now() - startedAt;
      running = false;
      const listed = await queries.findByStatus(VISITOR_TAG_KIND, context(), { query: { status: 'archived' }, body: undefined });
      expect(listed.result).toHaveLength(1000);
      // 1,000 loads and 1,000 appends in turns of 50 ids: dozens of turns, none holding the loop for a fifth of the whole.
      expect(turns).toBeGreaterThanOrEqual(20);
      expect(longestHoldMs).toBeLessThan(totalMs / 5);
    }, 60_000);
  });
});
