/**
 * `npm run bench`: speed figures, each against a baseline measured in the same run (never a test).
 * Servers run in their own processes; the load comes from this one, on loopback, bounded in time.
 *
 * This machine shares its cores with neighbours whose load swings within minutes (the baseline has
 * been seen anywhere from 8k to 46k req/s). So the baseline server stays up, and every round of a
 * measure is paired with a baseline round taken right before it: each pair gives a ratio, and the
 * figure reported is the median over the rounds.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateAssetId } from '@funnel/contracts';
import { LoadOptions, LoadResult, load } from './http-load';
import { Child, freePort, runCommand, runTs, waitForHttp } from './processes';

const KEY = 'bench-admin-key-0123456789';
const DURATION = Number(process.env.BENCH_SECONDS ?? 3);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const rows: { name: string; value: string; ratio: string; target: string }[] = [];
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

function record(name: string, value: string, ratio = '', target = '') {
  rows.push({ name, value, ratio, target });
  process.stdout.write(`  ${name}: ${value}${ratio ? ` (${ratio})` : ''}\n`);
}

interface Paired {
  /** Median req/s of the measure and of its baseline rounds. */
  measure: LoadResult;
  baseline: number;
  ratio: number;
  ratios: number[];
}

/** Alternates baseline and measure rounds; ratios of adjacent pairs cancel the neighbours' load. */
async function paired(baselineUrl: string, options: LoadOptions): Promise<Paired> {
  await load({ ...options, durationSeconds: 2 });
  const ratios: number[] = [];
  const measures: LoadResult[] = [];
  const baselines: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const base = await load({ url: baselineUrl, durationSeconds: DURATION });
    const result = await load({ ...options, durationSeconds: DURATION });
    baselines.push(base.requestsPerSecond);
    measures.push(result);
    ratios.push(result.requestsPerSecond / base.requestsPerSecond);
  }
  const middle = median(ratios);
  return {
    measure: measures[ratios.indexOf(middle)],
    baseline: baselines[ratios.indexOf(middle)],
    ratio: middle,
    ratios,
  };
}

function recordPaired(name: string, p: Paired, target = '') {
  const spread = `rounds ${p.ratios.map((r) => r.toFixed(2)).join(', ')}`;
  record(
    name,
    `${fmt(p.measure.requestsPerSecond)} req/s, p99 ${p.measure.p99Ms} ms, non-2xx ${p.measure.non2xx} (baseline round ${fmt(p.baseline)} req/s)`,
    `${p.ratio.toFixed(2)} of baseline; ${spread}`,
    target,
  );
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
  const stopAll = async () => {
    for (const c of children.splice(0).reverse()) await c.stop();
  };
  try {
    process.stdout.write('baseline: raw Fastify hello world (kept running, paired with every round)\n');
    const hello = await runTs('tools/bench/fastify-hello.ts', {}, /PORT=(\d+)/);
    const helloUrl = `http://127.0.0.1:${hello.match![1]}/hello`;
    await load({ url: helloUrl, durationSeconds: 2 });
    const baseline = await load({ url: helloUrl, durationSeconds: DURATION });
    record('Fastify hello world (baseline)', `${fmt(baseline.requestsPerSecond)} req/s, p99 ${baseline.p99Ms} ms`, '1.00');

    process.stdout.write('standalone: one process, SQLite + embedded read models\n');
    const port = await freePort();
    const standalone = await runTs('apps/standalone/src/main.ts', appEnv(tmp(), { PORT: String(port) }));
    children.push(standalone);
    const base = `http://127.0.0.1:${port}/v1`;
    await waitForHttp(`${base}/visitortag/list/`, { 'x-api-key': KEY });
    const idTag = await seedTag(base);
    recordPaired('standalone find/byId', await paired(helloUrl, { url: `${base}/visitortag/find/byId/?idTag=${idTag}`, headers: { 'x-api-key': KEY } }), '>= 0.35');
    recordPaired(
      'standalone POST save (create)',
      await paired(helloUrl, {
        url: `${base}/visitortag/save/`,
        method: 'POST',
        headers: { 'x-api-key': KEY, 'content-type': 'application/json' },
        body: () => JSON.stringify({ idTag: generateAssetId(), tagName: 'created by bench', color: 'blue' }),
      }),
    );
    await stopAll();

    process.stdout.write('distributed: gateway, identity and assets services as processes over NATS\n');
    const natsPort = await freePort();
    children.push(await runCommand('nats-server', ['-a', '127.0.0.1', '-p', String(natsPort), '-js', '-sd', tmp()], {}, /Server is ready/));
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
    recordPaired(
      'distributed find/byId (via NATS)',
      await paired(helloUrl, { url: `${gatewayBase}/visitortag/find/byId/?idTag=${distributedTag}`, headers: { 'x-api-key': KEY } }),
      '>= 0.15',
    );
    await stopAll();
    await hello.stop();

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
    await stopAll();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  }
  process.stdout.write('\n| measure | figure | ratio | target |\n|---|---|---|---|\n');
  for (const r of rows) process.stdout.write(`| ${r.name} | ${r.value} | ${r.ratio} | ${r.target} |\n`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
