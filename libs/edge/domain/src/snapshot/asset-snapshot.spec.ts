import { type AssetEventMessage, generateAssetId } from '@funnel/contracts';
import { type FunnelAssets, compileFunnel } from '@funnel/routing';
import { AssetSnapshotState } from './asset-snapshot-state';
import { CompiledFunnels } from './compiled-funnels';
import { collectFunnelAssets } from './funnel-assets';
import { DomainDirectory, normaliseHost } from './domain-directory';

const ACCOUNT = 'acct-1';
const OTHER = 'acct-2';
let position = 100;

function event(kind: string, type: string, assetId: string, revision: number, data: Record<string, unknown> = {}, accountId = ACCOUNT): AssetEventMessage {
  position += 1;
  return {
    eventId: generateAssetId(),
    type,
    kind,
    accountId,
    assetId,
    revision,
    position: `${position}/${position}`,
    occurredAt: new Date(0).toISOString(),
    actor: { userId: null, keyId: null },
    correlationId: null,
    data,
  };
}

const tag = (idVisitorTag: string, name = 'tag') => ({ idVisitorTag, visitorTagName: name, status: 'active', idCategory: '' });

describe('AssetSnapshotState: applying asset events', () => {
  it('records Created and Updated, sets the status on Archived and Unarchived, moves on MovedToCategory', () => {
    const state = new AssetSnapshotState();
    const id = generateAssetId();
    state.apply(event('visitortag', 'VisitorTagCreated', id, 0, { record: tag(id, 'first') }));
    expect(state.get(ACCOUNT, 'visitortag', id)).toMatchObject({ visitorTagName: 'first', status: 'active' });
    state.apply(event('visitortag', 'VisitorTagUpdated', id, 1, { record: tag(id, 'second') }));
    state.apply(event('visitortag', 'VisitorTagArchived', id, 2));
    expect(state.get(ACCOUNT, 'visitortag', id)).toMatchObject({ visitorTagName: 'second', status: 'archived' });
    state.apply(event('visitortag', 'VisitorTagUnarchived', id, 3));
    state.apply(event('visitortag', 'VisitorTagMovedToCategory', id, 4, { idCategory: 'cat-1' }));
    expect(state.get(ACCOUNT, 'visitortag', id)).toMatchObject({ status: 'active', idCategory: 'cat-1' });
    expect(state.get(OTHER, 'visitortag', id)).toBeUndefined();
  });

  it('removes a deleted asset for good: a resent older event does not bring it back', () => {
    const state = new AssetSnapshotState();
    const id = generateAssetId();
    const created = event('visitortag', 'VisitorTagCreated', id, 0, { record: tag(id) });
    state.apply(created);
    const deleted = state.apply(event('visitortag', 'VisitorTagDeleted', id, 1));
    expect(deleted).toMatchObject({ applied: true, gap: false });
    expect(state.get(ACCOUNT, 'visitortag', id)).toBeUndefined();
    expect(state.recordsOf(ACCOUNT, 'visitortag')).toEqual([]);
    expect(state.apply(created)).toEqual({ applied: false, reason: 'seen' });
    expect(state.get(ACCOUNT, 'visitortag', id)).toBeUndefined();
  });

  it('applies an event once: a duplicate (same revision) changes nothing', () => {
    const state = new AssetSnapshotState();
    const id = generateAssetId();
    const updated = event('visitortag', 'VisitorTagUpdated', id, 1, { record: tag(id, 'new') });
    state.apply(event('visitortag', 'VisitorTagCreated', id, 0, { record: tag(id, 'old') }));
    expect(state.apply(updated)).toMatchObject({ applied: true });
    expect(state.apply(updated)).toEqual({ applied: false, reason: 'seen' });
    expect(state.get(ACCOUNT, 'visitortag', id)).toMatchObject({ visitorTagName: 'new' });
  });

  it('skips events the load already reflects, by position and by revision, and applies later ones', () => {
    const state = new AssetSnapshotState();
    const id = generateAssetId();
    const before = event('visitortag', 'VisitorTagUpdated', id, 3, { record: tag(id, 'before the load') });
    state.put({ kind: 'visitortag', accountId: ACCOUNT, assetId: id, revision: 4, record: tag(id, 'loaded') });
    state.markLoaded(before.position);
    expect(state.apply(before)).toEqual({ applied: false, reason: 'loaded' });
    // Read by a later page than the position: the document was already ahead of it.
    expect(state.apply(event('visitortag', 'VisitorTagUpdated', id, 4, { record: tag(id, 'also in the load') }))).toEqual({ applied: false, reason: 'seen' });
    expect(state.apply(event('visitortag', 'VisitorTagUpdated', id, 5, { record: tag(id, 'after') }))).toMatchObject({ applied: true, gap: false });
    expect(state.get(ACCOUNT, 'visitortag', id)).toMatchObject({ visitorTagName: 'after' });
    expect(state.position).toBe(`${position}/${position}`);
  });

  it('tells a gap: an event whose revision is not the next one (the record is still taken)', () => {
    const state = new AssetSnapshotState();
    const id = generateAssetId();
    state.apply(event('visitortag', 'VisitorTagCreated', id, 0, { record: tag(id) }));
    expect(state.apply(event('visitortag', 'VisitorTagUpdated', id, 2, { record: tag(id, 'later') }))).toMatchObject({ applied: true, gap: true });
    expect(state.get(ACCOUNT, 'visitortag', id)).toMatchObject({ visitorTagName: 'later' });
    expect(state.apply(event('visitortag', 'VisitorTagUpdated', generateAssetId(), 3, { record: tag(id) }))).toMatchObject({ gap: true });
  });

  it("ignores kinds that route nothing, and a duplicate's decision (its copies come as their own Created events)", () => {
    const state = new AssetSnapshotState();
    expect(state.apply(event('shortlink', 'ShortLinkCreated', generateAssetId(), 0, { record: {} }))).toEqual({ applied: false, reason: 'notRouting' });
    const copy = generateAssetId();
    state.apply(event('visitortag', 'VisitorTagDuplicateDecided', copy, 0, { copies: [] }));
    expect(state.get(ACCOUNT, 'visitortag', copy)).toBeUndefined();
    expect(state.apply(event('visitortag', 'VisitorTagCreated', copy, 1, { record: tag(copy, 'copy') }))).toMatchObject({ applied: true, gap: false });
    expect(state.get(ACCOUNT, 'visitortag', copy)).toMatchObject({ visitorTagName: 'copy' });
  });
});

/** An account with: a funnel (root -> lander node of a page group), the group's page, its offer source, two traffic sources, and an unrelated tag. */
function anAccount() {
  const state = new AssetSnapshotState();
  const ids = {
    funnel: generateAssetId(),
    funnelGroup: generateAssetId(),
    pageGroup: generateAssetId(),
    page: generateAssetId(),
    offerSource: generateAssetId(),
    trafficSources: [generateAssetId(), generateAssetId()],
    unrelatedTag: generateAssetId(),
    namedTag: generateAssetId(),
  };
  const put = (kind: string, assetId: string, record: Record<string, unknown>, accountId = ACCOUNT) =>
    state.put({ kind, accountId, assetId, revision: 0, record: { status: 'active', ...record } });
  const funnelRecord = (name: string) => ({
    idFunnel: ids.funnel,
    idFunnelGroup: ids.funnelGroup,
    funnelName: name,
    nodes: [
      { idNode: 'root-node-01', nodeType: 'root' },
      { idNode: 'lander-nd-01', nodeType: 'landerGroup', nodePageGroupParams: { idPageGroup: ids.pageGroup } },
      { idNode: 'tags-node-01', nodeType: 'visitorTag', nodeVisitorTagParams: { idTags: [ids.namedTag] } },
    ],
    connections: [],
  });
  put('funnel', ids.funnel, funnelRecord('funnel'));
  put('funnelgroup', ids.funnelGroup, { idFunnelGroup: ids.funnelGroup });
  put('pagegroup', ids.pageGroup, { idPageGroup: ids.pageGroup, pages: [{ idPage: ids.page, weight: 1 }] });
  put('page', ids.page, { idPage: ids.page, offerParams: { idOfferSource: ids.offerSource } });
  put('offersource', ids.offerSource, { idOfferSource: ids.offerSource });
  for (const id of ids.trafficSources) put('trafficsource', id, { idTrafficSource: id });
  put('visitortag', ids.unrelatedTag, tag(ids.unrelatedTag));
  put('trafficsource', generateAssetId(), { idTrafficSource: 'other account' }, OTHER);
  return { state, ids, funnelRecord };
}

describe("collectFunnelAssets: a funnel's assets from the snapshot", () => {
  it('takes what the funnel names, what those name in turn, and every traffic source of the account', () => {
    const { state, ids } = anAccount();
    const collected = collectFunnelAssets(state, ACCOUNT, ids.funnel)!;
    const idsOf = (records: readonly Record<string, unknown>[], field: string) => records.map((record) => record[field]).sort();
    expect(collected.assets.funnel).toMatchObject({ idFunnel: ids.funnel });
    expect(collected.assets.funnelGroup).toMatchObject({ idFunnelGroup: ids.funnelGroup });
    expect(idsOf(collected.assets.pageGroups, 'idPageGroup')).toEqual([ids.pageGroup]);
    expect(idsOf(collected.assets.pages, 'idPage')).toEqual([ids.page]);
    expect(idsOf(collected.assets.offerSources, 'idOfferSource')).toEqual([ids.offerSource]);
    expect(idsOf(collected.assets.trafficSources, 'idTrafficSource')).toEqual([...ids.trafficSources].sort());
    // Named but not in the snapshot (yet): absent, still a name it depends on.
    expect(collected.assets.visitorTags).toEqual([]);
    expect(collected.names.has(ids.namedTag)).toBe(true);
    expect(collected.names.has(ids.unrelatedTag)).toBe(false);
  });

  it('answers undefined for a missing funnel, a deleted one, and one of another account', () => {
    const { state, ids } = anAccount();
    expect(collectFunnelAssets(state, OTHER, ids.funnel)).toBeUndefined();
    expect(collectFunnelAssets(state, ACCOUNT, generateAssetId())).toBeUndefined();
    state.apply(event('funnel', 'FunnelDeleted', ids.funnel, 1));
    expect(collectFunnelAssets(state, ACCOUNT, ids.funnel)).toBeUndefined();
  });
});

describe('CompiledFunnels: compiled on first use, kept until an asset it names changes', () => {
  function setup() {
    const account = anAccount();
    const compiled: FunnelAssets[] = [];
    const funnels = new CompiledFunnels(account.state, (assets) => {
      compiled.push(assets);
      return { version: compiled.length, assets };
    });
    const change = (kind: string, type: string, assetId: string, data: Record<string, unknown> = {}) => {
      const revision = (account.state.revisionOf(ACCOUNT, kind, assetId) ?? -1) + 1;
      const outcome = account.state.apply(event(kind, type, assetId, revision, data));
      if (outcome.applied) funnels.invalidate(outcome.change);
    };
    return { ...account, compiled, funnels, change };
  }

  it('compiles once for repeated use', () => {
    const { funnels, ids, compiled } = setup();
    expect(funnels.get(ACCOUNT, ids.funnel)).toBe(funnels.get(ACCOUNT, ids.funnel));
    expect(compiled).toHaveLength(1);
    expect(funnels.compiled).toBe(1);
  });

  it('compiles again after a change to the funnel, a page it reaches, or any traffic source of the account', () => {
    const { funnels, ids, compiled, change, funnelRecord } = setup();
    funnels.get(ACCOUNT, ids.funnel);
    change('funnel', 'FunnelUpdated', ids.funnel, { record: { ...funnelRecord('renamed'), status: 'active' } });
    expect(funnels.get(ACCOUNT, ids.funnel)!.assets.funnel).toMatchObject({ funnelName: 'renamed' });
    change('page', 'PageUpdated', ids.page, { record: { idPage: ids.page, pageName: 'new page', status: 'active' } });
    expect(funnels.get(ACCOUNT, ids.funnel)!.assets.pages).toEqual([expect.objectContaining({ pageName: 'new page' })]);
    change('trafficsource', 'TrafficSourceArchived', ids.trafficSources[1]);
    expect(funnels.get(ACCOUNT, ids.funnel)!.assets.trafficSources).toContainEqual(
      expect.objectContaining({ idTrafficSource: ids.trafficSources[1], status: 'archived' }),
    );
    expect(compiled).toHaveLength(4);
  });

  it('compiles again when an asset it named but lacked appears', () => {
    const { funnels, ids, change } = setup();
    expect(funnels.get(ACCOUNT, ids.funnel)!.assets.visitorTags).toEqual([]);
    change('visitortag', 'VisitorTagCreated', ids.namedTag, { record: tag(ids.namedTag, 'named') });
    expect(funnels.get(ACCOUNT, ids.funnel)!.assets.visitorTags).toEqual([expect.objectContaining({ visitorTagName: 'named' })]);
  });

  it('keeps the compiled funnel over a change to an asset it does not name', () => {
    const { funnels, ids, compiled, change } = setup();
    funnels.get(ACCOUNT, ids.funnel);
    change('visitortag', 'VisitorTagUpdated', ids.unrelatedTag, { record: tag(ids.unrelatedTag, 'renamed') });
    funnels.get(ACCOUNT, ids.funnel);
    expect(compiled).toHaveLength(1);
  });

  it('answers undefined once the funnel is deleted, and does not keep a compile that threw', () => {
    const { ids, change, funnels } = setup();
    funnels.get(ACCOUNT, ids.funnel);
    change('funnel', 'FunnelDeleted', ids.funnel);
    expect(funnels.get(ACCOUNT, ids.funnel)).toBeUndefined();
    let fail = true;
    const live = anAccount();
    const flakyLive = new CompiledFunnels(live.state, () => {
      if (fail) throw new Error('not built yet');
      return 'compiled';
    });
    expect(() => flakyLive.get(ACCOUNT, live.ids.funnel)).toThrow('not built yet');
    fail = false;
    expect(flakyLive.get(ACCOUNT, live.ids.funnel)).toBe('compiled');
  });
});

describe('DomainDirectory', () => {
  it("finds a live domain's account whatever the host's case, port or trailing dot; not a deleted one", () => {
    const directory = new DomainDirectory();
    directory.replace([
      { domain: 'track.example.com', accountId: ACCOUNT, status: 'active' },
      { domain: 'pending.example.com', accountId: OTHER, status: 'pending' },
      { domain: 'gone.example.com', accountId: OTHER, status: 'deleted' },
    ]);
    expect(directory.accountOf('Track.Example.COM.:3001')).toBe(ACCOUNT);
    expect(directory.accountOf('pending.example.com')).toBe(OTHER);
    expect(directory.accountOf('gone.example.com')).toBeUndefined();
    expect(directory.accountOf('example.com')).toBeUndefined();
    expect(normaliseHost('[::1]:3001')).toBe('[::1]');
  });
});

describe("CompiledFunnels with the engine's compileFunnel", () => {
  it('compiles the snapshot funnel, and compiles the new version after an update', () => {
    const state = new AssetSnapshotState();
    const idFunnel = generateAssetId();
    const idFunnelGroup = generateAssetId();
    const root = { idNode: generateAssetId(), nodeName: 'root', nodeType: 'root', posX: 0.5, posY: 0.5 };
    const funnel = (funnelName: string) => ({ idFunnel, idFunnelGroup, funnelName, nodes: [root], connections: [], status: 'active' });
    state.put({
      kind: 'funnelgroup',
      accountId: ACCOUNT,
      assetId: idFunnelGroup,
      revision: 0,
      record: { idFunnelGroup, funnelGroupName: 'g', status: 'active' },
    });
    state.put({ kind: 'funnel', accountId: ACCOUNT, assetId: idFunnel, revision: 0, record: funnel('first') });
    const funnels = new CompiledFunnels(state, compileFunnel);
    expect(funnels.get(ACCOUNT, idFunnel)).toMatchObject({ idFunnel, funnelName: 'first', idFunnelGroup, idRootNode: root.idNode });
    const outcome = state.apply(event('funnel', 'FunnelUpdated', idFunnel, 1, { record: funnel('second') }));
    if (outcome.applied) funnels.invalidate(outcome.change);
    expect(funnels.get(ACCOUNT, idFunnel)).toMatchObject({ funnelName: 'second' });
  });
});
