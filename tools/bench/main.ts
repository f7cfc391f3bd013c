/**
 * `npm run bench`: speed figures, each against a baseline measured in the same run (never a test).
 * Servers run in their own processes; the load comes from this one, on loopback, bounded in time.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateAssetId } from '@funnel/contracts';
import { LoadOptions, LoadResult, load } from './http-load';

/**
 * Best of several rounds: this machine shares its cores with neighbours, and a round that meets
 * their load measures them rather than us. The baseline is taken the same way.
 */
async function bestOf(options: LoadOptions): Promise<LoadResult> {
  await load({ ...options, durationSeconds: 2 });
  let best: LoadResult | undefined;
  for (let round = 0; round < ROUNDS; round++) {
    const result = await load({ ...options, durationSeconds: DURATION });
    if (!best || result.requestsPerSecond > best.requestsPerSecond) best = result;
  }
  return best!;
}
import { Child, freePort, runCommand, runTs, waitForHttp } from './processes';

const KEY = 'bench-admin-key-0123456789';
const DURATION = Number(process.env.BENCH_SECONDS ?? 4);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const rows: { name: string; value: string; ratio: string; target: string }[] = [];
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

function record(name: string, value: string, ratio = '', target = '') {
  rows.push({ name, value, ratio, target });
  process.stdout.write(`  ${name}: ${value}${ratio ? ` (${ratio})` : ''}\n`);
}

function appEnv(dataDir: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return {
    DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    HOST: '127.0.0.1',
    BOOTSTRAP_ADMIN_EMAIL: 'bench@example.com',
    BOOTSTRAP_ADMIN_PASSWORD: 'bench password',
    BOOTSTRAP_API_KEY: KEY,
    ...extra,
  };
}

async function seedTag(base: string): Promise<string> {
  const idTag = generateAssetId();
  const r = await fetch(`${base}/visitortag/save/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': KEY },
    body: JSON.stringify({ idTag, tagName: 'bench', color: 'red' }),
  });
  if (r.status !== 200) throw new Error(`seeding failed: ${r.status} ${await r.text()}`);
  return idTag;
}

async function main(): Promise<void> {
  const children: Child[] = [];
  const dirs: string[] = [];
  const tmp = () => {
    const d = mkdtempSync(join(tmpdir(), 'funnel-bench-'));
    dirs.push(d);
    return d;
  };
  try {
    process.stdout.write('baseline: raw Fastify hello world\n');
    const hello = await runTs('tools/bench/fastify-hello.ts', {}, /PORT=(\d+)/);
    children.push(hello);
    const helloUrl = `http://127.0.0.1:${hello.match![1]}/hello`;
    const baseline = await bestOf({ url: helloUrl });
    await hello.stop();
    record('Fastify hello world (baseline)', `${fmt(baseline.requestsPerSecond)} req/s, p99 ${baseline.p99Ms} ms`, '1.00');
    const ratio = (rps: number) => `${(rps / baseline.requestsPerSecond).toFixed(2)} of baseline`;

    process.stdout.write('standalone: one process, SQLite + embedded read models\n');
    const port = await freePort();
    const standalone = await runTs('apps/standalone/src/main.ts', appEnv(tmp(), { PORT: String(port) }));
    children.push(standalone);
    const base = `http://127.0.0.1:${port}/v1`;
    await waitForHttp(`${base}/visitortag/list/`, { 'x-api-key': KEY });
    const idTag = await seedTag(base);
    const findUrl = `${base}/visitortag/find/byId/?idTag=${idTag}`;
    const find = await bestOf({ url: findUrl, headers: { 'x-api-key': KEY } });
    record('standalone find/byId', `${fmt(find.requestsPerSecond)} req/s, p99 ${find.p99Ms} ms, non-2xx ${find.non2xx}`, ratio(find.requestsPerSecond), '>= 0.35');
    const create = await bestOf({
      url: `${base}/visitortag/save/`,
      method: 'POST',
      headers: { 'x-api-key': KEY, 'content-type': 'application/json' },
      body: () => JSON.stringify({ idTag: generateAssetId(), tagName: 'created by bench', color: 'blue' }),
    });
    record('standalone POST save (create)', `${fmt(create.requestsPerSecond)} req/s, p99 ${create.p99Ms} ms, non-2xx ${create.non2xx}`, ratio(create.requestsPerSecond));
    await standalone.stop();

    process.stdout.write('distributed: gateway, identity and assets services as processes over NATS\n');
    const natsPort = await freePort();
    const natsDir = tmp();
    children.push(await runCommand('nats-server', ['-a', '127.0.0.1', '-p', String(natsPort), '-js', '-sd', natsDir], {}, /Server is ready/));
    const clusterDir = tmp();
    const natsEnv = { NATS_URL: `nats://127.0.0.1:${natsPort}` };
    for (const service of ['identity-service', 'assets-service']) {
      const opsPort = await freePort();
      children.push(await runTs(`apps/${service}/src/main.ts`, appEnv(clusterDir, { ...natsEnv, OPS_PORT: String(opsPort) })));
      await waitForHttp(`http://127.0.0.1:${opsPort}/health/ready`);
    }
    const gatewayPort = await freePort();
    children.push(await runTs('apps/gateway/src/main.ts', appEnv(clusterDir, { ...natsEnv, PORT: String(gatewayPort) })));
    const gatewayBase = `http://127.0.0.1:${gatewayPort}/v1`;
    await waitForHttp(`${gatewayBase}/visitortag/list/`, { 'x-api-key': KEY });
    const distributedTag = await seedTag(gatewayBase);
    const distUrl = `${gatewayBase}/visitortag/find/byId/?idTag=${distributedTag}`;
    const dist = await bestOf({ url: distUrl, headers: { 'x-api-key': KEY } });
    record('distributed find/byId (via NATS)', `${fmt(dist.requestsPerSecond)} req/s, p99 ${dist.p99Ms} ms, non-2xx ${dist.non2xx}`, ratio(dist.requestsPerSecond), '>= 0.15');
    for (const c of children.splice(0).reverse()) await c.stop();

    process.stdout.write('replay: rebuilding the asset read model from 100,000 events\n');
    // Imported only now: their libraries in this process would slow the load generator above.
    const { replayRate } = await import('./replay.bench');
    const replay = await replayRate(100_000);
    record('read-model replay', `${fmt(replay.eventsPerSecond)} events/s (${replay.seconds.toFixed(2)} s)`, '', '>= 50,000');

    process.stdout.write('logic scripts\n');
    const { runLogicScriptBench } = await import('./logic-script.bench');
    for (const r of await runLogicScriptBench()) {
      record(r.name, `${r.value.toLocaleString('en-US', { maximumFractionDigits: 1 })} ${r.unit}`, r.ratio !== undefined ? `${r.ratio.toFixed(2)}x ${r.baseline ?? 'baseline'}` : '');
    }
  } finally {
    for (const c of children.reverse()) await c.stop();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  }
  process.stdout.write('\n| measure | figure | ratio | target |\n|---|---|---|---|\n');
  for (const r of rows) process.stdout.write(`| ${r.name} | ${r.value} | ${r.ratio} | ${r.target} |\n`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
