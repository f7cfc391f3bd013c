/**
 * `BENCH_ONLY=edge`: the tracking edge's figures.
 * - Entrance redirects per second and p99 over HTTP, standalone, for a realistic funnel saved through the
 *   API (root -> rotator -> condition -> lander group), paired round by round with raw Fastify answering a
 *   fixed 302 (the ratio is the figure), and the edge process's CPU time per redirect.
 * - Its floor (edge-floor.bench.ts): raw Fastify making the durable writes of such a redirect (its
 *   hits into DuckDB and its session into SQLite) before the fixed 302, paired the same way.
 * - The time from an asset save through the API to the edge's first redirect that uses it (p50/p99 over
 *   SAVES saves), standalone and, where nats-server is installed, distributed.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { generateAssetId } from '@funnel/contracts';
import { type Child, freePort, root, runCommand, runTs, waitForHttp } from '../processes';
import { edgeGet, waitForRedirect } from './edge-client';
import { edgeFloorFigures } from './edge-floor.bench';
import { DOMAIN, pairedRedirects, unexpected } from './paired-redirects';
import { accountOf, apiPoster, seedEdgeFunnel } from './seed';

/** What the section needs from the bench's main. */
export interface EdgeBenchKit {
  durationSeconds: number;
  rounds: number;
  key: string;
  email: string;
  password: string;
  appEnv(dataDir: string, extra?: NodeJS.ProcessEnv): NodeJS.ProcessEnv;
  tmp(): string;
  /** Processes stopped by the bench's main at the end (and on failure). */
  children: Child[];
  record(name: string, value: string, ratio?: string, target?: string): void;
  log(line: string): void;
}

const SAVES = Number(process.env.BENCH_EDGE_SAVES ?? 100);
/** `BENCH_EDGE_MODES=standalone` (or `floor`, `distributed`, a comma-separated list): only those modes' figures (default all three). */
const MODES = new Set((process.env.BENCH_EDGE_MODES ?? 'standalone,floor,distributed').split(','));
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
};
const ms = (n: number) => `${n.toFixed(n < 10 ? 1 : 0)} ms`;

/** A funnel whose every entrance redirects to one page: root -> a lander group of that page. Answers the token and the page. */
async function seedFreshnessFunnel(base: string, key: string) {
  const post = apiPoster(base, key);
  const id = () => generateAssetId();
  const idFunnelGroup = id();
  await post('/funnelgroup/save/', { idFunnelGroup, funnelGroupName: 'edge freshness' });
  const idTrafficSource = id();
  await post('/trafficsource/save/', { idTrafficSource, trafficSourceName: 'edge freshness source' });
  const page = { idPage: id(), pageType: 'lander', pageName: 'freshness lander', baseURL: 'https://fresh.example.com/lp?rev=0' };
  await post('/page/save/', page);
  const idPageGroup = id();
  await post('/pagegroup/save/', { idPageGroup, pageGroupName: 'freshness landers', pageType: 'lander', pages: [{ idPage: page.idPage }] });
  const rootNode = { idNode: id(), nodeName: 'root', nodeType: 'root', posX: 0.5, posY: 0.5 };
  const landers = { idNode: id(), nodeName: 'landers', nodeType: 'landerGroup', posX: 0.5, posY: 0.5, nodePageGroupParams: { idPageGroup } };
  const idFunnel = id();
  await post('/funnel/save/', {
    idFunnel,
    idFunnelGroup,
    funnelName: 'edge freshness funnel',
    nodes: [rootNode, landers],
    connections: [{ idConnection: id(), idSourceNode: rootNode.idNode, idTargetNode: landers.idNode, connectionRotatorParams: { weight: 1 } }],
  });
  return { token: `${idFunnel}${idTrafficSource}`, page };
}

/**
 * SAVES times: a PUT of the page with a new `rev` in its URL, then GETs of the entrance (one after the
 * other) until its redirect carries that rev. Answers the times from the save's request and from its answer.
 */
async function saveToUse(
  base: string,
  key: string,
  edgePort: number,
  accountId: string,
): Promise<{ fromRequest: number[]; fromAnswer: number[]; polls: number }> {
  const { token, page } = await seedFreshnessFunnel(base, key);
  const path = `/a/${accountId}/fts/${token}`;
  await waitForRedirect(edgePort, DOMAIN, path);
  const fromRequest: number[] = [];
  const fromAnswer: number[] = [];
  let polls = 0;
  for (let rev = 1; rev <= SAVES; rev++) {
    const started = performance.now();
    const saved = await fetch(`${base}/page/save/`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json', 'x-api-key': key },
      body: JSON.stringify({ ...page, baseURL: `https://fresh.example.com/lp?rev=${rev}` }),
    });
    if (saved.status !== 200) throw new Error(`PUT /page/save/ answered ${saved.status}: ${await saved.text()}`);
    await saved.arrayBuffer();
    const answered = performance.now();
    const want = `rev=${rev}`;
    for (;;) {
      polls++;
      const answer = await edgeGet(edgePort, DOMAIN, path);
      if (answer.location?.includes(want)) break;
      if (performance.now() - started > 10_000) throw new Error(`the edge did not use save ${rev} within 10 s (last ${answer.status} ${answer.location})`);
    }
    const used = performance.now();
    fromRequest.push(used - started);
    fromAnswer.push(used - answered);
  }
  return { fromRequest, fromAnswer, polls };
}

function recordSaveToUse(kit: EdgeBenchKit, mode: string, times: Awaited<ReturnType<typeof saveToUse>>, target: string): void {
  kit.record(
    `edge: an asset save through the API to its first use by the edge (${mode}, ${times.fromRequest.length} page saves)`,
    `from the save's request p50 ${ms(percentile(times.fromRequest, 50))}, p99 ${ms(percentile(times.fromRequest, 99))}, max ${ms(Math.max(...times.fromRequest))}; ` +
      `from its answer p50 ${ms(percentile(times.fromAnswer, 50))}, p99 ${ms(percentile(times.fromAnswer, 99))} (${fmt(times.polls / times.fromRequest.length)} polls per save)`,
    '',
    target,
  );
}

/**
 * Entrance redirects of the realistic funnel, paired round by round with the baseline; `pids` are the
 * processes whose CPU time counts (the first one is the edge's).
 */
async function redirectFigures(
  kit: EdgeBenchKit,
  mode: string,
  at: { base: string; edgePort: number; accountId: string; pids: number[] },
  baseline: Child,
  baselineUrl: string,
): Promise<void> {
  const funnel = await seedEdgeFunnel(at.base, kit.key);
  const path = `/a/${at.accountId}/fts/${funnel.token}?zone=bench&cost=0.02`;
  const first = await waitForRedirect(at.edgePort, DOMAIN, path);
  // The landers keep the pages' default redirect type, 307.
  if (first.status !== 307 || !first.location?.startsWith(funnel.landerUrlPrefix))
    throw new Error(`the edge answered ${first.status} ${first.location}, not a lander`);
  const p = await pairedRedirects(kit, baselineUrl, `http://127.0.0.1:${at.edgePort}${path}`, { measure: at.pids, baseline: baseline.process.pid! });
  const others = unexpected(p.measure, '307');
  const what =
    at.pids.length === 1
      ? 'the whole standalone process: routing, session, hits into the warehouse'
      : 'the edge process (routing, visitor context, session put, hit publish); nats-server and reporting-service (hits into the warehouse) add the rest';
  const cpu = p.cpu
    ? `; CPU ${p.cpu.measure.toFixed(0)} µs per redirect (${what})${p.cpu.all !== undefined ? `, ${p.cpu.all.toFixed(0)} µs in all its processes` : ''}, baseline ${p.cpu.baseline.toFixed(0)} µs`
    : '';
  kit.record(
    `edge: entrance redirects (${mode}, root -> rotator -> condition -> lander group; a new visitor each, session and hits stored) vs raw Fastify answering a fixed 302`,
    `${fmt(p.measure.requestsPerSecond)} redirects/s, p99 ${p.measure.p99Ms} ms${others ? `, other answers: ${others}` : ''} (baseline round ${fmt(p.baseline.requestsPerSecond)} req/s, p99 ${p.baseline.p99Ms} ms)${cpu}`,
    `${p.ratio.toFixed(2)} of baseline; rounds ${p.ratios.map((r) => r.toFixed(2)).join(', ')}`,
    mode === 'standalone' ? '>= 0.5' : '',
  );
}

async function standaloneFigures(kit: EdgeBenchKit, baseline: Child, baselineUrl: string): Promise<void> {
  kit.log('edge (standalone): one process serving the API and, on EDGE_PORT, the visitor routes');
  const port = await freePort();
  const edgePort = await freePort();
  const app = await runTs(
    'apps/standalone/src/main.ts',
    kit.appEnv(kit.tmp(), { PORT: String(port), EDGE_PORT: String(edgePort), EDGE_DEFAULT_DOMAIN: DOMAIN }),
  );
  kit.children.push(app);
  const base = `http://127.0.0.1:${port}/v1`;
  await waitForHttp(`${base}/visitortag/list/`, { 'x-api-key': kit.key });
  const accountId = await accountOf(base, kit.email, kit.password);
  await redirectFigures(kit, 'standalone', { base, edgePort, accountId, pids: [app.process.pid!] }, baseline, baselineUrl);

  kit.log(`edge (standalone): ${SAVES} page saves, each until the edge's redirect shows it`);
  recordSaveToUse(kit, 'standalone', await saveToUse(base, kit.key, edgePort, accountId), 'p99 <= 1 s');
  kit.children.splice(kit.children.indexOf(app), 1);
  await app.stop();
}

/** The same save-to-use figure with every app in its own process over NATS (needs nats-server on PATH). */
async function distributedFigures(kit: EdgeBenchKit, baseline: Child, baselineUrl: string): Promise<void> {
  const edgeMain = 'apps/tracking-edge/src/main.ts';
  if (!existsSync(join(root, edgeMain))) return kit.log(`edge (distributed): skipped, ${edgeMain} does not exist`);
  kit.log('edge (distributed): NATS, identity, assets, billing, reporting, the gateway and the tracking edge, each its own process');
  const started: Child[] = [];
  const keep = (child: Child) => (started.push(child), kit.children.push(child), child);
  try {
    const natsPort = await freePort();
    keep(await runCommand('nats-server', ['-a', '127.0.0.1', '-p', String(natsPort), '-js', '-sd', kit.tmp()], {}, /Server is ready/));
    const dir = kit.tmp();
    const natsEnv = { NATS_URL: `nats://127.0.0.1:${natsPort}` };
    for (const service of ['identity-service', 'assets-service', 'billing-service', 'reporting-service']) {
      const opsPort = await freePort();
      keep(await runTs(`apps/${service}/src/main.ts`, kit.appEnv(dir, { ...natsEnv, OPS_PORT: String(opsPort) })));
      await waitForHttp(`http://127.0.0.1:${opsPort}/health/ready`, {}, 60_000);
    }
    const gatewayPort = await freePort();
    keep(await runTs('apps/gateway/src/main.ts', kit.appEnv(dir, { ...natsEnv, PORT: String(gatewayPort) })));
    const edgePort = await freePort();
    keep(await runTs(edgeMain, kit.appEnv(dir, { ...natsEnv, PORT: String(edgePort), EDGE_DEFAULT_DOMAIN: DOMAIN })));
    await waitForHttp(`http://127.0.0.1:${edgePort}/health/ready`, {}, 60_000);
    const base = `http://127.0.0.1:${gatewayPort}/v1`;
    await waitForHttp(`${base}/visitortag/list/`, { 'x-api-key': kit.key });
    const accountId = await accountOf(base, kit.email, kit.password);
    const edgeProcess = started[started.length - 1].process.pid!;
    const cluster = started.map((child) => child.process.pid!).filter((pid) => pid !== edgeProcess);
    await redirectFigures(
      kit,
      'distributed, the edge process over NATS',
      { base, edgePort, accountId, pids: [edgeProcess, ...cluster] },
      baseline,
      baselineUrl,
    );
    kit.log(`edge (distributed): ${SAVES} page saves, each until the edge's redirect shows it`);
    recordSaveToUse(kit, 'distributed, over NATS', await saveToUse(base, kit.key, edgePort, accountId), 'p99 <= 1 s');
  } finally {
    for (const child of started.reverse()) {
      kit.children.splice(kit.children.indexOf(child), 1);
      await child.stop();
    }
  }
}

export async function edgeSection(kit: EdgeBenchKit): Promise<void> {
  kit.log('edge baseline: raw Fastify answering a fixed 302 (kept running, paired with every round)');
  const baseline = await runTs('tools/bench/edge/fastify-redirect.ts', {}, /PORT=(\d+)/);
  kit.children.push(baseline);
  const baselineUrl = `http://127.0.0.1:${baseline.match![1]}/fts/0123456789ab0123456789ab`;
  try {
    if (MODES.has('standalone')) await standaloneFigures(kit, baseline, baselineUrl);
    if (MODES.has('floor')) await edgeFloorFigures(kit, baselineUrl, baseline.process.pid!);
    if (MODES.has('distributed')) await distributedFigures(kit, baseline, baselineUrl);
  } finally {
    kit.children.splice(kit.children.indexOf(baseline), 1);
    await baseline.stop();
  }
}
