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
  CONDITION_KIND,
  generateAssetId,
} from '@funnel/contracts';
import { EventStore, ReadStreamOptions, SqliteEventStore } from '@funnel/eventstore';
import { EmbeddedReadStore } from '@funnel/readstore';
import { AssetRecord, AssetRegistry, aLargeFunnel } from '@funnel/assets-domain';
import { ASSET_KINDS, SerializedJson, jsonValue } from '@funnel/contracts';
import { AssetsFeatureModule } from './assets-feature.module';
import { AssetCommands } from './asset-commands';
import { AssetQueries } from './asset-queries';
import { AssetProjector } from './asset-projector';
import { AssetHistory } from './asset-history';
import { IDS_PER_TURN } from './turn-taking';
import { assetsCollection } from './asset-documents';

/** Lets a test hold stream reads until N of them are waiting, forcing two commands to decide on one revision. */
class ReadBarrierStore {
  private waiting: (() => void)[] = [];
  private armedFor = 0;
  /** Appends to streams this accepts fail, as if the process had stopped before them. */
  failAppends?: (stream: string, events: { type: string }[]) => boolean;

  constructor(readonly inner: EventStore) {}

  arm(readers: number): void {
    this.armedFor = readers;
  }

  wrap(): EventStore {
    return new Proxy(this.inner, {
      get: (target, property, receiver) => {
        if (property === 'append') {
          return (stream: string, ...rest: unknown[]) => {
            if (this.failAppends?.(stream, rest[0] as { type: string }[])) return Promise.reject(new Error(`crash before appending to ${stream}`));
            return (target.append as (...args: unknown[]) => unknown)(stream, ...rest);
          };
        }
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
    expect(
      ((await queries.findById(VISITOR_TAG_KIND, context(), { query: { idTag: body.idTag }, body: undefined })).result as SerializedJson).value<AssetRecord>()
        .tagName,
    ).toBe(winner);
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
    const all = jsonValue<AssetRecord[]>((await queries.findByStatus(VISITOR_TAG_KIND, context(), { query: { status: 'all' }, body: undefined })).result);
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

  describe('a duplicate cut short by a crash after the local copies', () => {
    const registry = new AssetRegistry(ASSET_KINDS);
    const ROUTES = [{ idRoute: 'us', routeName: 'US', ruleGroups: [{ rules: [{ attribute: 'country', operator: 'is', values: ['US'] }] }] }];

    /** A group holding a funnel whose nodes name its local page group and condition, and a global page group. */
    async function funnelWithLocals() {
      const [idFunnelGroup, idFunnel, idLocalGroup, idGlobalGroup, idCondition] = Array.from({ length: 5 }, () => generateAssetId());
      const create = (kind: typeof FUNNEL_KIND, body: Record<string, unknown>) => commands.create(kind, context(), { query: {}, body });
      await create(FUNNEL_GROUP_KIND, { idFunnelGroup, funnelGroupName: 'g' });
      await create(PAGE_GROUP_KIND, { idPageGroup: idLocalGroup, pageGroupName: 'local', pageType: 'lander', restrictToFunnelId: idFunnel, pages: [] });
      await create(PAGE_GROUP_KIND, { idPageGroup: idGlobalGroup, pageGroupName: 'global', pageType: 'offer', pages: [] });
      await create(CONDITION_KIND, { idCondition, conditionName: 'geo', restrictToFunnelId: idFunnel, routes: ROUTES });
      const node = (nodeType: string, params: Record<string, unknown> = {}) => ({
        idNode: generateAssetId(),
        nodeName: nodeType,
        nodeType,
        posX: 0.5,
        posY: 0.5,
        ...params,
      });
      const nodes = [
        node('root'),
        node('condition', { nodeConditionParams: { idCondition } }),
        node('landerGroup', { nodePageGroupParams: { idPageGroup: idLocalGroup } }),
        node('offerGroup', { nodePageGroupParams: { idPageGroup: idGlobalGroup } }),
      ];
      const link = (from: number, to: number, params: Record<string, unknown>) => ({
        idConnection: generateAssetId(),
        idSourceNode: nodes[from].idNode,
        idTargetNode: nodes[to].idNode,
        ...params,
      });
      const connections = [
        link(0, 1, { connectionRotatorParams: { weight: 1 } }),
        link(1, 2, { connectionLogicParams: { onRouteKeys: ['us', 'default'] } }),
        link(2, 3, { connectionPageParams: { onActionNumber: 1 } }),
      ];
      await create(FUNNEL_KIND, { idFunnel, idFunnelGroup, funnelName: 'f', nodes, connections });
      return { idFunnelGroup, idFunnel, idLocalGroup, idGlobalGroup, idCondition };
    }

    /** The live funnels of a group, and the live assets local to a funnel, from the read model once it reached the log's head. */
    async function readModel(idFunnelGroup: string) {
      await app.get(AssetProjector).waitFor(await eventStore.headPosition());
      const funnels = await queries.liveByField('funnel', 'ACCOUNT00001', 'idFunnelGroup', idFunnelGroup);
      const locals = async (idFunnel: string) => ({
        pageGroups: await queries.liveByField('pagegroup', 'ACCOUNT00001', 'restrictToFunnelId', idFunnel),
        conditions: await queries.liveByField('condition', 'ACCOUNT00001', 'restrictToFunnelId', idFunnel),
      });
      return { funnels, locals };
    }

    it('a funnel duplicate completes at the next start: the copy, once, naming its own local copies', async () => {
      const source = await funnelWithLocals();
      // The process stops after the local copies are stored, before the copy of the funnel itself.
      barrier.failAppends = (_, events) => events[0].type === 'FunnelCreated';
      await expect(commands.duplicate(FUNNEL_KIND, context(), { query: { idFunnel: source.idFunnel }, body: { name: 'copy' } })).rejects.toThrow(/crash/);
      const cut = await readModel(source.idFunnelGroup);
      // Meanwhile no reader sees a copy: only the source funnel is there (with its local assets copied, local to the unborn copy).
      expect(cut.funnels.map((f) => f.idFunnel)).toEqual([source.idFunnel]);
      const named = (kind: string, field: string, name: string) => queries.liveByField(kind, 'ACCOUNT00001', field, name);
      expect(await named('pagegroup', 'pageGroupName', 'local')).toHaveLength(2);
      expect(await named('condition', 'conditionName', 'geo')).toHaveLength(2);
      await app.close();
      barrier.failAppends = undefined;
      await boot(eventStore);

      const { funnels, locals } = await readModel(source.idFunnelGroup);
      expect(funnels).toHaveLength(2);
      const copy = funnels.find((f) => f.idFunnel !== source.idFunnel)!;
      expect(copy).toMatchObject({ funnelName: 'copy', idFunnelGroup: source.idFunnelGroup, status: 'active' });
      const own = await locals(String(copy.idFunnel));
      expect(own.pageGroups).toHaveLength(1);
      expect(own.conditions).toHaveLength(1);
      const nodes = copy.nodes as Record<string, Record<string, string>>[];
      expect(nodes[1].nodeConditionParams.idCondition).toBe(own.conditions[0].idCondition);
      expect(nodes[2].nodePageGroupParams.idPageGroup).toBe(own.pageGroups[0].idPageGroup);
      expect(nodes[3].nodePageGroupParams.idPageGroup).toBe(source.idGlobalGroup);
      expect(own.pageGroups[0].idPageGroup).not.toBe(source.idLocalGroup);
      // Each local asset was copied once; the source keeps its own.
      expect(await named('pagegroup', 'pageGroupName', 'local')).toHaveLength(2);
      expect(await named('condition', 'conditionName', 'geo')).toHaveLength(2);
      expect((await locals(source.idFunnel)).pageGroups.map((g) => g.idPageGroup)).toEqual([source.idLocalGroup]);
      const copyStream = await eventStore.readStream(registry.streamName('funnel', 'ACCOUNT00001', String(copy.idFunnel)));
      expect(copyStream.map((e) => e.type)).toEqual(['FunnelDuplicateDecided', 'FunnelCreated']);
      // Another start replays the log from its beginning (a fresh embedded read store): the decision completes to the same assets.
      await app.close();
      await boot(eventStore);
      expect((await readModel(source.idFunnelGroup)).funnels).toHaveLength(2);
    });

    it('a funnel group duplicate completes at the next start with a copy of each funnel and its local assets', async () => {
      const source = await funnelWithLocals();
      // The process stops after the group's copy and its funnel's local copies, before the funnel's copy.
      barrier.failAppends = (_, events) => events[0].type === 'FunnelCreated';
      await expect(
        commands.duplicate(FUNNEL_GROUP_KIND, context(), { query: { idFunnelGroup: source.idFunnelGroup }, body: { name: 'group copy' } }),
      ).rejects.toThrow(/crash/);
      await app.close();
      barrier.failAppends = undefined;
      await boot(eventStore);
      await app.get(AssetProjector).waitFor(await eventStore.headPosition());
      const groups = ((await queries.findByStatus(FUNNEL_GROUP_KIND, context(), { query: { status: 'all' }, body: undefined })).result as AssetRecord[]).filter(
        (g) => g.funnelGroupName === 'group copy',
      );
      expect(groups).toHaveLength(1);
      const { funnels, locals } = await readModel(String(groups[0].idFunnelGroup));
      expect(funnels).toHaveLength(1);
      const own = await locals(String(funnels[0].idFunnel));
      const nodes = funnels[0].nodes as Record<string, Record<string, string>>[];
      expect(own.conditions.map((c) => c.idCondition)).toEqual([nodes[1].nodeConditionParams.idCondition]);
      expect(own.pageGroups.map((g) => g.idPageGroup)).toEqual([nodes[2].nodePageGroupParams.idPageGroup]);
      expect(nodes[2].nodePageGroupParams.idPageGroup).not.toBe(source.idLocalGroup);
    });
  });

  describe("a duplicate too large for one event, on a log that takes at most 1 MiB in one append (EventStoreDB's default MaxAppendSize)", () => {
    const MAX_APPEND_BYTES = 1024 * 1024;
    const FUNNELS = 20;
    const registry = new AssetRegistry(ASSET_KINDS);

    beforeEach(async () => {
      await app.close();
      await eventStore.close();
      eventStore = new SqliteEventStore({ filename: ':memory:', maxAppendBytes: MAX_APPEND_BYTES });
      await boot(eventStore);
    });

    /** A 200-node funnel (a root, a rotator, 99 lander and 99 offer nodes, each lander leading to an offer) in the group. */
    const largeFunnel = (idFunnelGroup: string, funnelName: string, lander: string, offer: string) =>
      aLargeFunnel({ idFunnelGroup, funnelName, landerGroups: [lander], offerGroups: [offer] });

    /** A group of 20 such funnels: their copies do not fit in one append. */
    async function largeGroup() {
      const [idFunnelGroup, lander, offer] = [generateAssetId(), generateAssetId(), generateAssetId()];
      await commands.create(FUNNEL_GROUP_KIND, context(), { query: {}, body: { idFunnelGroup, funnelGroupName: 'large' } });
      await commands.create(PAGE_GROUP_KIND, context(), { query: {}, body: { idPageGroup: lander, pageGroupName: 'landers', pageType: 'lander', pages: [] } });
      await commands.create(PAGE_GROUP_KIND, context(), { query: {}, body: { idPageGroup: offer, pageGroupName: 'offers', pageType: 'offer', pages: [] } });
      const names: string[] = [];
      for (let i = 0; i < FUNNELS; i++) {
        const funnel = largeFunnel(idFunnelGroup, `funnel ${i}`, lander, offer);
        await commands.create(FUNNEL_KIND, context(), { query: {}, body: funnel });
        names.push(String(funnel.funnelName));
      }
      return { idFunnelGroup, names };
    }

    const duplicateGroup = (idFunnelGroup: string) =>
      commands.duplicate(FUNNEL_GROUP_KIND, context(), { query: { idFunnelGroup }, body: { name: 'group copy' } });

    /** The groups named 'group copy', and every funnel of the account, once the read model reached the log's head. */
    async function copies() {
      await app.get(AssetProjector).waitFor(await eventStore.headPosition());
      const groups = ((await queries.findByStatus(FUNNEL_GROUP_KIND, context(), { query: { status: 'all' }, body: undefined })).result as AssetRecord[]).filter(
        (g) => g.funnelGroupName === 'group copy',
      );
      const funnels = (await queries.findByStatus(FUNNEL_KIND, context(), { query: { status: 'all' }, body: undefined })).result as AssetRecord[];
      return { groups, funnels };
    }

    /** Each funnel of the copied group exists once: one per source funnel, each stream one Created. */
    async function expectEveryCopyOnce(idCopy: string, names: string[]) {
      const inCopy = await queries.liveByField('funnel', 'ACCOUNT00001', 'idFunnelGroup', idCopy);
      expect(inCopy.map((f) => f.funnelName).sort()).toEqual([...names].sort());
      expect((inCopy[0].nodes as unknown[]).length).toBe(200);
      for (const funnel of inCopy) {
        const stream = await eventStore.readStream(registry.streamName('funnel', 'ACCOUNT00001', String(funnel.idFunnel)));
        expect(stream.map((e) => e.type)).toEqual(['FunnelCreated']);
      }
      expect((await copies()).funnels).toHaveLength(2 * names.length);
    }

    it('is written in parts, each its own append under the bound, and creates every copy once', async () => {
      const source = await largeGroup();
      const { id } = await duplicateGroup(source.idFunnelGroup);
      const stream = await eventStore.readStream(registry.streamName('funnelgroup', 'ACCOUNT00001', id));
      const types = stream.map((e) => e.type);
      const parts = types.filter((t) => t === 'FunnelGroupDuplicatePlanned').length;
      expect(parts).toBeGreaterThan(1);
      expect(types).toEqual([...Array.from({ length: parts }, () => 'FunnelGroupDuplicatePlanned'), 'FunnelGroupDuplicateDecided', 'FunnelGroupCreated']);
      expect(stream.slice(0, parts).map((e) => e.data.part)).toEqual(Array.from({ length: parts }, (_, i) => i));
      expect(stream[parts].data.parts).toBe(parts);
      // Together the plan is more than one append takes: a single decision would have been refused.
      const planBytes = stream.slice(0, parts + 1).reduce((sum, e) => sum + Buffer.byteLength(JSON.stringify(e.data)), 0);
      expect(planBytes).toBeGreaterThan(MAX_APPEND_BYTES);
      const { groups } = await copies();
      expect(groups.map((g) => g.idFunnelGroup)).toEqual([id]);
      await expectEveryCopyOnce(id, source.names);
      // The copy's history lists its parts and decision (no record: no changes), then its Created.
      const history = await app.get(AssetHistory).history(FUNNEL_GROUP_KIND, context(), { query: { idFunnelGroup: id }, body: undefined });
      expect(history.map((h) => [h.type, h.changes.length > 0])).toEqual([...types.map((type) => [type, type === 'FunnelGroupCreated'])].reverse());
    });

    it('cut short between its parts and its decision creates nothing, also after a restart; the duplicate tried again succeeds', async () => {
      const source = await largeGroup();
      let cut: string | undefined;
      barrier.failAppends = (stream, events) => {
        if (events[0].type !== 'FunnelGroupDuplicateDecided') return false;
        cut = stream;
        return true;
      };
      await expect(duplicateGroup(source.idFunnelGroup)).rejects.toThrow(/crash/);
      const parts = (await eventStore.readStream(cut!)).map((e) => e.type);
      expect(parts.length).toBeGreaterThan(1);
      expect(new Set(parts)).toEqual(new Set(['FunnelGroupDuplicatePlanned']));
      expect(await copies()).toMatchObject({ groups: [] });
      expect((await copies()).funnels).toHaveLength(FUNNELS);
      // The process manager replays the log from its beginning at the next start: parts without a decision are inert.
      await app.close();
      barrier.failAppends = undefined;
      await boot(eventStore, new EmbeddedReadStore());
      expect(await copies()).toMatchObject({ groups: [] });
      expect((await copies()).funnels).toHaveLength(FUNNELS);
      expect((await eventStore.readStream(cut!)).map((e) => e.type)).toEqual(parts);
      // The id the parts took is never used.
      const idCut = registry.parseStreamName(cut!)!.id;
      expect(await queries.current('funnelgroup', 'ACCOUNT00001', idCut)).toBeNull();

      const { id } = await duplicateGroup(source.idFunnelGroup);
      expect(id).not.toBe(idCut);
      expect((await copies()).groups.map((g) => g.idFunnelGroup)).toEqual([id]);
      await expectEveryCopyOnce(id, source.names);
    });

    it('decided in parts and cut short before its copies, is completed from its parts at the next start, each copy once', async () => {
      const source = await largeGroup();
      // The process stops after the decision and the group's copy, before any funnel's copy.
      barrier.failAppends = (_, events) => events[0].type === 'FunnelCreated';
      await expect(duplicateGroup(source.idFunnelGroup)).rejects.toThrow(/crash/);
      expect((await copies()).funnels).toHaveLength(FUNNELS);
      await app.close();
      barrier.failAppends = undefined;
      await boot(eventStore);
      const { groups } = await copies();
      expect(groups).toHaveLength(1);
      const id = String(groups[0].idFunnelGroup);
      const types = (await eventStore.readStream(registry.streamName('funnelgroup', 'ACCOUNT00001', id))).map((e) => e.type);
      expect(types.filter((t) => t === 'FunnelGroupDuplicatePlanned').length).toBeGreaterThan(1);
      expect(types.slice(-2)).toEqual(['FunnelGroupDuplicateDecided', 'FunnelGroupCreated']);
      await expectEveryCopyOnce(id, source.names);
      // Another start replays the log from its beginning (a fresh embedded read store): the decision completes to the same assets.
      await app.close();
      await boot(eventStore);
      await expectEveryCopyOnce(id, source.names);
    });

    it('a record larger than one append takes is refused with a 413 ASSET.TOO_LARGE, nothing stored', async () => {
      // A log that takes less than one 200-node funnel (~60 kB) in one append.
      await app.close();
      await eventStore.close();
      eventStore = new SqliteEventStore({ filename: ':memory:', maxAppendBytes: 32 * 1024 });
      await boot(eventStore);
      const [idFunnelGroup, lander, offer] = [generateAssetId(), generateAssetId(), generateAssetId()];
      await commands.create(FUNNEL_GROUP_KIND, context(), { query: {}, body: { idFunnelGroup, funnelGroupName: 'large' } });
      await commands.create(PAGE_GROUP_KIND, context(), { query: {}, body: { idPageGroup: lander, pageGroupName: 'landers', pageType: 'lander', pages: [] } });
      await commands.create(PAGE_GROUP_KIND, context(), { query: {}, body: { idPageGroup: offer, pageGroupName: 'offers', pageType: 'offer', pages: [] } });
      const funnel = largeFunnel(idFunnelGroup, 'too large', lander, offer);
      const write = commands.create(FUNNEL_KIND, context(), { query: {}, body: funnel });
      await expect(write).rejects.toBeInstanceOf(ServiceError);
      await expect(write).rejects.toMatchObject({ status: 413, code: 'ASSET.TOO_LARGE', message: expect.stringMatching(/at most 32768 bytes in one write/) });
      expect(await eventStore.readStream(registry.streamName('funnel', 'ACCOUNT00001', String(funnel.idFunnel)))).toEqual([]);
    });
  });

  it('find/byId answers the current record after an update, an archive and a rename of its category (answers are kept per revision)', async () => {
    const idCategory = generateAssetId();
    await commands.create(CATEGORY_KIND, context(), { query: {}, body: { idCategory, categoryName: 'before', categoryType: 'visitorTag' } });
    const body = tag({ idCategory });
    await commands.create(VISITOR_TAG_KIND, context(), { query: {}, body });
    const read = async () =>
      ((await queries.findById(VISITOR_TAG_KIND, context(), { query: { idTag: body.idTag }, body: undefined })).result as SerializedJson).value<AssetRecord>();
    expect(await read()).toMatchObject({ tagName: 'a', categoryName: 'before', status: 'active' });
    await commands.update(VISITOR_TAG_KIND, context(), { query: {}, body: { ...body, tagName: 'b' } });
    expect(await read()).toMatchObject({ tagName: 'b', categoryName: 'before' });
    await commands.update(CATEGORY_KIND, context(), { query: {}, body: { idCategory, categoryName: 'after', categoryType: 'visitorTag' } });
    expect(await read()).toMatchObject({ tagName: 'b', categoryName: 'after' });
    await commands.archive(VISITOR_TAG_KIND, context(), { query: {}, body: { entries: [body.idTag] } });
    expect(await read()).toMatchObject({ status: 'archived' });
    // Another account never gets the answer kept for this one.
    await expect(queries.findById(VISITOR_TAG_KIND, context('ACCOUNT00002'), { query: { idTag: body.idTag }, body: undefined })).rejects.toMatchObject({
      status: 404,
    });
  });

  it('find/byIds, find/byCategory and lists of full records answer the current records after an update, a rename of their category and a delete (answers are kept per revision)', async () => {
    const idCategory = generateAssetId();
    await commands.create(CATEGORY_KIND, context(), { query: {}, body: { idCategory, categoryName: 'before', categoryType: 'visitorTag' } });
    const placed = tag({ idCategory, tagName: 'placed' });
    const loose = tag({ tagName: 'loose' });
    for (const body of [placed, loose]) await commands.create(VISITOR_TAG_KIND, context(), { query: {}, body });
    const records = async (answer: Promise<{ result: unknown }>) => jsonValue<AssetRecord[]>((await answer).result);
    const byIds = (accountId?: string) =>
      records(
        queries.findByIds(VISITOR_TAG_KIND, context(accountId), { query: { idTags: `${loose.idTag},${generateAssetId()},${placed.idTag}` }, body: undefined }),
      );
    const inCategory = () => records(queries.findByCategory(VISITOR_TAG_KIND, context(), { query: { idCategory }, body: undefined }));
    const listed = (status: string) => records(queries.findByStatus(VISITOR_TAG_KIND, context(), { query: { status }, body: undefined }));

    // In the order asked, the missing id left out; find/byId's answer is the same record.
    expect(await byIds()).toEqual([
      expect.objectContaining({ idTag: loose.idTag, tagName: 'loose', idCategory: '', categoryName: '', owner: 'ACCOUNT00001' }),
      expect.objectContaining({ idTag: placed.idTag, tagName: 'placed', idCategory, categoryName: 'before', owner: 'ACCOUNT00001' }),
    ]);
    const single = await queries.findById(VISITOR_TAG_KIND, context(), { query: { idTag: placed.idTag }, body: undefined });
    expect((single.result as SerializedJson).value()).toEqual((await byIds())[1]);
    expect(await inCategory()).toEqual([expect.objectContaining({ idTag: placed.idTag, categoryName: 'before' })]);

    await commands.update(VISITOR_TAG_KIND, context(), { query: {}, body: { ...placed, tagName: 'renamed' } });
    await commands.update(CATEGORY_KIND, context(), { query: {}, body: { idCategory, categoryName: 'after', categoryType: 'visitorTag' } });
    expect((await byIds()).map((r) => [r.tagName, r.categoryName])).toEqual([
      ['loose', ''],
      ['renamed', 'after'],
    ]);
    expect(await inCategory()).toEqual([expect.objectContaining({ tagName: 'renamed', categoryName: 'after' })]);

    await commands.delete(VISITOR_TAG_KIND, context(), { query: {}, body: { entries: [loose.idTag] } });
    expect((await byIds()).map((r) => r.idTag)).toEqual([placed.idTag]);
    expect((await listed('not-deleted')).map((r) => r.idTag)).toEqual([placed.idTag]);
    // A list of all statuses still shows the deleted one, as it is now.
    expect((await listed('all')).find((r) => r.idTag === loose.idTag)).toMatchObject({ tagName: 'loose', status: 'deleted' });
    // Another account never gets the answers kept for this one.
    expect(await byIds('ACCOUNT00002')).toEqual([]);
  });

  it("find/byIds answers, byte for byte, the JSON array of find/byId's answers: in the order asked, each once, the missing, deleted and other accounts' left out", async () => {
    const idCategory = generateAssetId();
    await commands.create(CATEGORY_KIND, context(), { query: {}, body: { idCategory, categoryName: 'Catégorie ✓', categoryType: 'visitorTag' } });
    const tags = [tag({ tagName: 'Ünïcödé 𝄞 "quoted"' }), tag({ idCategory, tagName: 'placed' }), tag({ tagName: 'plain' }), tag({ tagName: 'gone' })];
    for (const body of tags) await commands.create(VISITOR_TAG_KIND, context(), { query: {}, body });
    const elsewhere = tag({ tagName: 'another account' });
    await commands.create(VISITOR_TAG_KIND, context('ACCOUNT00002'), { query: {}, body: elsewhere });
    await commands.delete(VISITOR_TAG_KIND, context(), { query: {}, body: { entries: [tags[3].idTag] } });
    const [unicode, placed, plain, gone] = tags.map((t) => t.idTag);
    const byIdText = async (idTag: string) =>
      ((await queries.findById(VISITOR_TAG_KIND, context(), { query: { idTag }, body: undefined })).result as SerializedJson).bytes.toString('utf8');
    const byIds = async (query: Record<string, string | string[]>) => {
      const answer = await queries.findByIds(VISITOR_TAG_KIND, context(), { query, body: undefined });
      return { text: (answer.result as SerializedJson).bytes.toString('utf8'), nextCursor: answer.nextCursor };
    };
    const arrayOf = async (ids: string[]) => `[${(await Promise.all(ids.map(byIdText))).join(',')}]`;

    // Twice: the first read serializes the records, the second answers the kept ones.
    for (let read = 0; read < 2; read++) {
      const asked = [plain, generateAssetId(), unicode, gone, elsewhere.idTag, plain, placed].join(',');
      const { text } = await byIds({ idTags: asked });
      expect(text).toBe(await arrayOf([plain, unicode, placed]));
      expect(text).toBe(JSON.stringify(JSON.parse(text)));
      expect(JSON.parse(text).map((r: AssetRecord) => [r.tagName, r.categoryName])).toEqual([
        ['plain', ''],
        ['Ünïcödé 𝄞 "quoted"', ''],
        ['placed', 'Catégorie ✓'],
      ]);
      // Repeated parameters, and ids in another order.
      expect((await byIds({ idTags: [`${placed},${unicode}`, plain] })).text).toBe(await arrayOf([placed, unicode, plain]));
      // Paged: in id order, after the cursor.
      const sorted = [plain, unicode, placed].sort();
      const first = await byIds({ idTags: asked, limit: '2' });
      expect(first.text).toBe(await arrayOf(sorted.slice(0, 2)));
      const second = await byIds({ idTags: asked, limit: '2', cursor: first.nextCursor! });
      expect(second).toEqual({ text: await arrayOf(sorted.slice(2)), nextCursor: undefined });
      expect((await byIds({ idTags: [gone, generateAssetId()].join(',') })).text).toBe('[]');
    }
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
    const found = (
      (await queries.findById(VISITOR_TAG_KIND, context(), { query: { idTag: child.idTag }, body: undefined })).result as SerializedJson
    ).value<AssetRecord>();
    expect(found.idCategory).toBe(a);
  });
  describe('unarchive restores what the archive archived', () => {
    const registry = new AssetRegistry(ASSET_KINDS);
    const ROUTES = [{ idRoute: 'us', routeName: 'US', ruleGroups: [{ rules: [{ attribute: 'country', operator: 'is', values: ['US'] }] }] }];
    const create = (kind: typeof FUNNEL_KIND, body: Record<string, unknown>) => commands.create(kind, context(), { query: {}, body });
    const status = async (kind: string, id: string) => (await queries.current(kind, 'ACCOUNT00001', id))?.status;

    /** A funnel in `idFunnelGroup` with a local page group and condition, and a local page group archived on its own. */
    async function funnelWithLocals(idFunnelGroup: string) {
      const [idFunnel, idPageGroup, idCondition, idArchivedBefore] = Array.from({ length: 4 }, () => generateAssetId());
      await create(FUNNEL_KIND, { idFunnel, idFunnelGroup, funnelName: 'f' });
      await create(PAGE_GROUP_KIND, { idPageGroup, pageGroupName: 'local', pageType: 'lander', restrictToFunnelId: idFunnel, pages: [] });
      await create(CONDITION_KIND, { idCondition, conditionName: 'geo', restrictToFunnelId: idFunnel, routes: ROUTES });
      await create(PAGE_GROUP_KIND, { idPageGroup: idArchivedBefore, pageGroupName: 'old', pageType: 'lander', restrictToFunnelId: idFunnel, pages: [] });
      await commands.archive(PAGE_GROUP_KIND, context(), { query: {}, body: { entries: [idArchivedBefore] } });
      return { idFunnel, idPageGroup, idCondition, idArchivedBefore };
    }

    async function statuses(f: Awaited<ReturnType<typeof funnelWithLocals>>) {
      await app.get(AssetProjector).waitFor(await eventStore.headPosition());
      return {
        funnel: await status('funnel', f.idFunnel),
        pageGroup: await status('pagegroup', f.idPageGroup),
        condition: await status('condition', f.idCondition),
        archivedBefore: await status('pagegroup', f.idArchivedBefore),
      };
    }

    async function group() {
      const idFunnelGroup = generateAssetId();
      await create(FUNNEL_GROUP_KIND, { idFunnelGroup, funnelGroupName: 'g' });
      return idFunnelGroup;
    }

    it("a funnel's unarchive restores the local assets its archive archived, not one archived on its own before", async () => {
      const f = await funnelWithLocals(await group());
      await commands.archive(FUNNEL_KIND, context(), { query: {}, body: { entries: [f.idFunnel] } });
      expect(await statuses(f)).toEqual({ funnel: 'archived', pageGroup: 'archived', condition: 'archived', archivedBefore: 'archived' });
      await commands.unarchive(FUNNEL_KIND, context(), { query: {}, body: { entries: [f.idFunnel] } });
      expect(await statuses(f)).toEqual({ funnel: 'active', pageGroup: 'active', condition: 'active', archivedBefore: 'archived' });
    });

    it('a local asset archived on its own after the funnel was archived stays archived when the funnel is unarchived', async () => {
      const f = await funnelWithLocals(await group());
      await commands.archive(FUNNEL_KIND, context(), { query: {}, body: { entries: [f.idFunnel] } });
      // Unarchived and archived again on its own while the funnel is archived: its own archive now.
      await commands.unarchive(PAGE_GROUP_KIND, context(), { query: {}, body: { entries: [f.idPageGroup] } });
      await commands.archive(PAGE_GROUP_KIND, context(), { query: {}, body: { entries: [f.idPageGroup] } });
      await commands.unarchive(FUNNEL_KIND, context(), { query: {}, body: { entries: [f.idFunnel] } });
      expect(await statuses(f)).toEqual({ funnel: 'active', pageGroup: 'archived', condition: 'active', archivedBefore: 'archived' });
    });

    it("a funnel group's unarchive restores the funnels its cascade archived and their local assets, not a funnel archived on its own", async () => {
      const idFunnelGroup = await group();
      const [reached, own] = [await funnelWithLocals(idFunnelGroup), await funnelWithLocals(idFunnelGroup)];
      await commands.archive(FUNNEL_KIND, context(), { query: {}, body: { entries: [own.idFunnel] } });
      await commands.archive(FUNNEL_GROUP_KIND, context(), { query: {}, body: { entries: [idFunnelGroup], cascadeAction: 'cascade' } });
      expect(await statuses(reached)).toEqual({ funnel: 'archived', pageGroup: 'archived', condition: 'archived', archivedBefore: 'archived' });
      await commands.unarchive(FUNNEL_GROUP_KIND, context(), { query: {}, body: { entries: [idFunnelGroup] } });
      expect(await status('funnelgroup', idFunnelGroup)).toBe('active');
      expect(await statuses(reached)).toEqual({ funnel: 'active', pageGroup: 'active', condition: 'active', archivedBefore: 'archived' });
      expect(await statuses(own)).toEqual({ funnel: 'archived', pageGroup: 'archived', condition: 'archived', archivedBefore: 'archived' });
    });

    it("a category's unarchive restores the children its cascade archived", async () => {
      const idCategory = generateAssetId();
      await commands.create(CATEGORY_KIND, context(), { query: {}, body: { idCategory, categoryName: 'c', categoryType: 'visitorTag' } });
      const [reached, own] = [tag({ idCategory }), tag({ idCategory })];
      for (const body of [reached, own]) await commands.create(VISITOR_TAG_KIND, context(), { query: {}, body });
      await commands.archive(VISITOR_TAG_KIND, context(), { query: {}, body: { entries: [own.idTag] } });
      await commands.archive(CATEGORY_KIND, context(), { query: {}, body: { entries: [idCategory], cascadeAction: 'cascade' } });
      await commands.unarchive(CATEGORY_KIND, context(), { query: {}, body: { entries: [idCategory] } });
      expect([await status('visitortag', reached.idTag), await status('visitortag', own.idTag)]).toEqual(['active', 'archived']);
    });

    it("a funnel group's unarchive cut short by a crash restores the funnels and their local assets at the next start", async () => {
      const idFunnelGroup = await group();
      const f = await funnelWithLocals(idFunnelGroup);
      await commands.archive(FUNNEL_GROUP_KIND, context(), { query: {}, body: { entries: [idFunnelGroup], cascadeAction: 'cascade' } });
      await app.close();
      // The group's unarchive is in the log, but the process stopped before its funnels were reached.
      const stream = registry.streamName('funnelgroup', 'ACCOUNT00001', idFunnelGroup);
      const last = (await eventStore.readStream(stream)).at(-1)!;
      await eventStore.append(stream, [{ type: 'FunnelGroupUnarchived', data: { children: { action: 'cascade' } } }], { expectedRevision: last.revision });
      await boot(eventStore);
      expect(await statuses(f)).toEqual({ funnel: 'active', pageGroup: 'active', condition: 'active', archivedBefore: 'archived' });
    });

    it("a funnel's unarchive cut short by a crash restores its local assets at the next start", async () => {
      const f = await funnelWithLocals(await group());
      await commands.archive(FUNNEL_KIND, context(), { query: {}, body: { entries: [f.idFunnel] } });
      await app.close();
      const stream = registry.streamName('funnel', 'ACCOUNT00001', f.idFunnel);
      const last = (await eventStore.readStream(stream)).at(-1)!;
      await eventStore.append(stream, [{ type: 'FunnelUnarchived', data: { children: { action: 'cascade' } } }], { expectedRevision: last.revision });
      await boot(eventStore);
      expect(await statuses(f)).toEqual({ funnel: 'active', pageGroup: 'active', condition: 'active', archivedBefore: 'archived' });
    });
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

    it('a duplicate of a group of six 500-node funnels lets other work run: each funnel is copied, checked and stored in turns of its own', async () => {
      const [idFunnelGroup, lander, offer] = [generateAssetId(), generateAssetId(), generateAssetId()];
      await commands.create(FUNNEL_GROUP_KIND, context(), { query: {}, body: { idFunnelGroup, funnelGroupName: 'large' } });
      await commands.create(PAGE_GROUP_KIND, context(), { query: {}, body: { idPageGroup: lander, pageGroupName: 'l', pageType: 'lander', pages: [] } });
      await commands.create(PAGE_GROUP_KIND, context(), { query: {}, body: { idPageGroup: offer, pageGroupName: 'o', pageType: 'offer', pages: [] } });
      for (let i = 0; i < 6; i++) {
        const funnel = aLargeFunnel({ idFunnelGroup, funnelName: `funnel ${i}`, nodes: 500, landerGroups: [lander], offerGroups: [offer] });
        await commands.create(FUNNEL_KIND, context(), { query: {}, body: funnel });
      }
      // The heavy steps of a funnel's copy: remapping its graph, checking it, storing it. A ticker that
      // runs once per event-loop turn records the most of them done between two turns.
      const rules = new AssetRegistry(ASSET_KINDS).rules('funnel');
      const remaps = jest.spyOn(rules, 'remapDuplicate');
      const checks = jest.spyOn(rules, 'check');
      const appends = jest.spyOn(eventStore, 'append');
      const heavySteps = () =>
        remaps.mock.calls.length + checks.mock.calls.length + appends.mock.calls.filter(([stream]) => stream.startsWith('funnel-')).length;
      let [turns, stepsBefore, mostStepsInATurn, running] = [0, 0, 0, true];
      const tick = () => {
        const steps = heavySteps();
        mostStepsInATurn = Math.max(mostStepsInATurn, steps - stepsBefore);
        stepsBefore = steps;
        turns++;
        if (running) setImmediate(tick);
      };
      setImmediate(tick);
      let copy: { id: string };
      let steps = 0;
      try {
        copy = await commands.duplicate(FUNNEL_GROUP_KIND, context(), { query: { idFunnelGroup }, body: { name: 'copy' } });
      } finally {
        running = false;
        steps = heavySteps();
        for (const spy of [remaps, checks, appends]) spy.mockRestore();
      }
      const copied = await queries.liveByField('funnel', 'ACCOUNT00001', 'idFunnelGroup', copy.id);
      expect(copied.map((f) => (f.nodes as unknown[]).length)).toEqual([500, 500, 500, 500, 500, 500]);
      // Six remaps, six checks and six creates, each in a turn of its own (not all of them in one, as before).
      expect(steps).toBeGreaterThanOrEqual(18);
      expect(turns).toBeGreaterThanOrEqual(18);
      expect(mostStepsInATurn).toBe(1);
    }, 120_000);

    it('an archive of 1,000 ids lets other work run while it loads them, and writes them as one group commit of the log', async () => {
      const entries = ids(1000);
      for (const idTag of entries) await commands.create(VISITOR_TAG_KIND, context(), { query: {}, body: { idTag, tagName: idTag } });
      // A ticker that runs once per event-loop turn, recording the most stream loads the archive made between two turns.
      const loads = jest.spyOn(eventStore, 'readStream');
      const appends = jest.spyOn(eventStore, 'append');
      const bulkAppends = jest.spyOn(eventStore, 'appendMany');
      let turns = 0;
      let loadsBefore = 0;
      let mostLoadsInATurn = 0;
      let running = true;
      const tick = () => {
        const count = loads.mock.calls.length;
        mostLoadsInATurn = Math.max(mostLoadsInATurn, count - loadsBefore);
        loadsBefore = count;
        turns++;
        if (running) setImmediate(tick);
      };
      setImmediate(tick);
      let [loaded, appended, bulk] = [0, 0, 0];
      try {
        await commands.archive(VISITOR_TAG_KIND, context(), { query: {}, body: { entries } });
      } finally {
        running = false;
        [loaded, appended, bulk] = [loads.mock.calls.length, appends.mock.calls.length, bulkAppends.mock.calls.length];
        for (const spy of [loads, appends, bulkAppends]) spy.mockRestore();
      }
      const listed = await queries.findByStatus(VISITOR_TAG_KIND, context(), { query: { status: 'archived' }, body: undefined });
      expect(jsonValue(listed.result)).toHaveLength(1000);
      // 1,000 loads in turns of IDS_PER_TURN ids: the ticker runs between every batch, so no turn holds more than one batch.
      expect(loaded).toBeGreaterThanOrEqual(1000);
      expect(turns).toBeGreaterThanOrEqual(1000 / IDS_PER_TURN);
      expect(mostLoadsInATurn).toBeLessThanOrEqual(IDS_PER_TURN);
      // One write of the log: one transaction, which records one time for all of its events.
      expect([appended, bulk]).toEqual([0, 1]);
      const archivedAt = new Set<number>();
      for (const idTag of entries) {
        const events = await eventStore.readStream(`visitortag-ACCOUNT00001.${idTag}`);
        expect(events.map((e) => e.type)).toEqual([expect.stringMatching(/Created$/), expect.stringMatching(/Archived$/)]);
        archivedAt.add(events[1].recordedAt.getTime());
      }
      expect(archivedAt.size).toBe(1);
    }, 60_000);

    it('a bulk archive one of whose ids lost a race answers its 409: the ids before it are archived, it and those after it are not', async () => {
      const [a, b, c] = [tag(), tag(), tag()];
      for (const body of [a, b, c]) await commands.create(VISITOR_TAG_KIND, context(), { query: {}, body });
      // b is renamed after the archive decided on it and before the archive writes.
      const appendMany = eventStore.appendMany.bind(eventStore);
      const bulk = jest.spyOn(eventStore, 'appendMany').mockImplementationOnce(async (appends) => {
        await commands.update(VISITOR_TAG_KIND, context(), { query: {}, body: { ...b, tagName: 'renamed' } });
        return appendMany(appends);
      });
      try {
        await expect(commands.archive(VISITOR_TAG_KIND, context(), { query: {}, body: { entries: [a.idTag, b.idTag, c.idTag] } })).rejects.toMatchObject({
          status: 409,
          code: 'ASSET.CONCURRENT_MODIFICATION',
          message: expect.stringContaining(b.idTag),
        });
      } finally {
        bulk.mockRestore();
      }
      const statusOf = async (idTag: string) =>
        ((await queries.findById(VISITOR_TAG_KIND, context(), { query: { idTag }, body: undefined })).result as SerializedJson).value<AssetRecord>();
      expect((await statusOf(a.idTag)).status).toBe('archived');
      expect(await statusOf(b.idTag)).toMatchObject({ status: 'active', tagName: 'renamed' });
      expect((await statusOf(c.idTag)).status).toBe('active');
    });
  });
});
