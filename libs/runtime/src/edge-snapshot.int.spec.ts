import { connect } from 'nats';
import { type INestApplicationContext } from '@nestjs/common';
import { generateAssetId } from '@funnel/contracts';
import { EVENT_STORE, type EventStore } from '@funnel/eventstore';
import { ASSET_REGISTRY } from '@funnel/assets-feature';
import type { AssetRegistry } from '@funnel/assets-domain';
import { type ServiceClient, natsAccessOptions } from '@funnel/platform';
import type { CompiledFunnel, FunnelAssets } from '@funnel/routing';
import { tempDir } from '@funnel/testing';
import { type RunningApp, startStandalone } from './standalone';
import { ADMIN, type Api, type Deployment, apiAt, distributedDeployment } from './e2e/harness';
import { type AssetEventFeed, EdgeSnapshot, EventStoreAssetEventFeed, NatsAssetEventFeed } from '@funnel/edge-feature';

/** What the test needs of a deployment: its API, a client of the internal subjects, a feed, a restart of the services. */
interface Edge {
  api(): Api;
  client(): ServiceClient;
  feed(): AssetEventFeed;
  restartServices(): Promise<void>;
  cleanup(): Promise<void>;
}

async function standaloneEdge(): Promise<Edge> {
  const dir = tempDir('edge-snapshot');
  const env = {
    DATA_DIR: dir.path,
    LOG_LEVEL: 'error',
    BOOTSTRAP_ADMIN_EMAIL: ADMIN.email,
    BOOTSTRAP_ADMIN_PASSWORD: ADMIN.password,
    BOOTSTRAP_API_KEY: ADMIN.apiKey,
    PORT: '0',
    EDGE_PORT: '0',
    HOST: '127.0.0.1',
    OPS_PORT: '0',
    RATE_LIMIT_PER_SECOND: '1000000',
    RATE_LIMIT_BURST: '1000000',
  };
  let running: RunningApp | undefined = await startStandalone(env);
  const context = (): INestApplicationContext => running!.context!;
  return {
    api: () => apiAt(`http://127.0.0.1:${running!.port}/v1`, ADMIN.apiKey),
    client: () => running!.internal!,
    feed: () =>
      new EventStoreAssetEventFeed(context().get<EventStore>(EVENT_STORE, { strict: false }), context().get<AssetRegistry>(ASSET_REGISTRY, { strict: false })),
    async restartServices() {
      await running?.close();
      running = await startStandalone(env);
    },
    async cleanup() {
      await running?.close();
      running = undefined;
      dir.remove();
    },
  };
}

async function distributedEdge(): Promise<Edge> {
  const deployment: Deployment = await distributedDeployment();
  return {
    api: () => deployment.api,
    client: () => deployment.internal(),
    feed: () => {
      const { url, user, password } = deployment.natsAccess!('tracking-edge');
      return new NatsAssetEventFeed(() => connect({ servers: url, ...natsAccessOptions({ user, password }) }));
    },
    async restartServices() {
      await deployment.stop();
      await deployment.restart();
    },
    cleanup: () => deployment.cleanup(),
  };
}

/** Resolves once `test` holds after an applied event (or at once), rejects after 10 s. */
function until(snapshot: EdgeSnapshot, test: () => boolean, what: string): Promise<void> {
  if (test()) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      stop();
      reject(new Error(`the snapshot did not reflect ${what} within 10 s`));
    }, 10_000);
    const stop = snapshot.onApplied(() => {
      if (!test()) return;
      clearTimeout(timer);
      stop();
      resolve();
    });
  });
}

function ok(res: { status: number; text: string }, what: string) {
  if (res.status !== 200) throw new Error(`${what} answered ${res.status}: ${res.text}`);
}

describe.each([
  ['standalone', standaloneEdge],
  ['distributed', distributedEdge],
] as const)('the edge asset snapshot in %s mode', (_mode, start) => {
  let edge: Edge;
  let snapshot: EdgeSnapshot;
  let accountId: string;
  const compiled: FunnelAssets[] = [];
  const newSnapshot = () =>
    new EdgeSnapshot({
      client: edge.client(),
      feed: edge.feed(),
      domainsRefreshMs: 0,
      logger: { log: () => undefined, warn: () => undefined, error: () => undefined },
      compile: (assets) => {
        compiled.push(assets);
        return { idFunnel: assets.funnel.idFunnel, funnelName: String(assets.funnel.funnelName), assets } as unknown as CompiledFunnel;
      },
    });

  beforeAll(async () => {
    edge = await start();
    // The admin's account: the id the API answers in a record it saved.
    const idTag = generateAssetId();
    ok(await edge.api().call('POST', '/visitortag/save/', { body: { idTag, tagName: 'first' } }), 'save tag');
    snapshot = newSnapshot();
    snapshot.start();
    await snapshot.whenReady();
    accountId = (
      await edge.client().request<{ assets: { accountId: string; assetId: string }[] }>('assets.internal.edgesnapshot', {
        context: { accountId: '', userId: '', permissions: [], correlationId: 'test' },
        body: {},
      })
    ).assets.find((asset) => asset.assetId === idTag)!.accountId;
    expect(snapshot.asset(accountId, 'visitortag', idTag)).toMatchObject({ status: 'active' });
  });
  afterAll(async () => {
    await snapshot?.stop();
    await edge?.cleanup();
  });

  it('reflects a save through the API, then its delete: the deleted asset is gone for good', async () => {
    const idTag = generateAssetId();
    ok(await edge.api().call('POST', '/visitortag/save/', { body: { idTag, tagName: 'Buyers' } }), 'save');
    await until(snapshot, () => snapshot.asset(accountId, 'visitortag', idTag) !== undefined, 'the save');
    ok(await edge.api().call('PUT', '/visitortag/save/', { body: { idTag, tagName: 'Big buyers' } }), 'update');
    await until(snapshot, () => JSON.stringify(snapshot.asset(accountId, 'visitortag', idTag)).includes('Big buyers'), 'the update');
    ok(await edge.api().call('DELETE', '/visitortag/delete/', { body: { entries: [idTag] } }), 'delete');
    await until(snapshot, () => snapshot.asset(accountId, 'visitortag', idTag) === undefined, 'the delete');
  });

  it('compiles a funnel on first use and again after an asset it names changed, not before', async () => {
    const group = { idFunnelGroup: generateAssetId(), funnelGroupName: 'Spring' };
    const root = { idNode: generateAssetId(), nodeName: 'root', nodeType: 'root', posX: 0.5, posY: 0.5 };
    const funnel = { idFunnel: generateAssetId(), idFunnelGroup: group.idFunnelGroup, funnelName: 'Spring sale', nodes: [root], connections: [] };
    ok(await edge.api().call('POST', '/funnelgroup/save/', { body: group }), 'save group');
    ok(await edge.api().call('POST', '/funnel/save/', { body: funnel }), 'save funnel');
    await until(snapshot, () => snapshot.funnel(accountId, funnel.idFunnel) !== undefined, 'the funnel');
    const before = compiled.length;
    expect(snapshot.funnel(accountId, funnel.idFunnel)!.assets.funnelGroup).toMatchObject({ funnelGroupName: 'Spring' });
    expect(snapshot.funnel(accountId, funnel.idFunnel)).toBe(snapshot.funnel(accountId, funnel.idFunnel));
    expect(snapshot.funnel('another-account', funnel.idFunnel)).toBeUndefined();
    ok(await edge.api().call('PUT', '/funnelgroup/save/', { body: { ...group, funnelGroupName: 'Summer' } }), 'rename group');
    await until(snapshot, () => (snapshot.funnel(accountId, funnel.idFunnel)!.assets.funnelGroup as any)?.funnelGroupName === 'Summer', 'the group rename');
    expect(compiled.length).toBe(before + 1);
    ok(await edge.api().call('DELETE', '/funnel/delete/', { body: { entries: [funnel.idFunnel] } }), 'delete funnel');
    await until(snapshot, () => snapshot.funnel(accountId, funnel.idFunnel) === undefined, 'the funnel delete');
  });

  it('reloads at a restart: what was saved is there, what was deleted is not', async () => {
    const kept = generateAssetId();
    const deleted = generateAssetId();
    ok(await edge.api().call('POST', '/visitortag/save/', { body: { idTag: kept, tagName: 'kept' } }), 'save');
    ok(await edge.api().call('POST', '/visitortag/save/', { body: { idTag: deleted, tagName: 'deleted' } }), 'save');
    ok(await edge.api().call('DELETE', '/visitortag/delete/', { body: { entries: [deleted] } }), 'delete');
    await snapshot.stop();
    await edge.restartServices();
    snapshot = newSnapshot();
    snapshot.start();
    await snapshot.whenReady();
    expect(snapshot.asset(accountId, 'visitortag', kept)).toMatchObject({ status: 'active' });
    expect(snapshot.asset(accountId, 'visitortag', deleted)).toBeUndefined();
    // And it follows again from there.
    const later = generateAssetId();
    ok(await edge.api().call('POST', '/visitortag/save/', { body: { idTag: later, tagName: 'later' } }), 'save');
    await until(snapshot, () => snapshot.asset(accountId, 'visitortag', later) !== undefined, 'a save after the restart');
  });

  it('reflects each of 200 saves in a row (the time from each save to the snapshot is printed)', async () => {
    const idTag = generateAssetId();
    ok(await edge.api().call('POST', '/visitortag/save/', { body: { idTag, tagName: 'v0' } }), 'save');
    await until(snapshot, () => snapshot.asset(accountId, 'visitortag', idTag) !== undefined, 'the first save');
    const fromSend: number[] = [];
    const fromAnswer: number[] = [];
    for (let i = 1; i <= 200; i++) {
      const name = `v${i}`;
      const sent = performance.now();
      let appliedAt = 0;
      const seen = until(
        snapshot,
        () =>
          (snapshot.asset(accountId, 'visitortag', idTag) as any)?.tagName === name ||
          JSON.stringify(snapshot.asset(accountId, 'visitortag', idTag)).includes(`"${name}"`),
        `save ${i}`,
      ).then(() => (appliedAt = performance.now()));
      ok(await edge.api().call('PUT', '/visitortag/save/', { body: { idTag, tagName: name } }), 'update');
      const answered = performance.now();
      await seen;
      fromSend.push(appliedAt - sent);
      fromAnswer.push(Math.max(0, appliedAt - answered));
    }
    const pct = (values: number[], p: number) =>
      [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.ceil((p / 100) * values.length) - 1)].toFixed(1);
    console.log(
      `[edge snapshot ${_mode}] save -> snapshot over 200 saves: from the request p50 ${pct(fromSend, 50)} ms, p99 ${pct(fromSend, 99)} ms; from the API's answer p50 ${pct(fromAnswer, 50)} ms, p99 ${pct(fromAnswer, 99)} ms`,
    );
    expect(fromSend).toHaveLength(200);
  });
});
