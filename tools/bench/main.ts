/**
 * `npm run bench`: speed figures, each against a baseline measured in the same run (never a test).
 * Servers run in their own processes; the load comes from this one, on loopback, bounded in time.
 *
 * This machine shares its cores with neighbours whose load swings within minutes (the baseline has
 * been seen anywhere from 8k to 46k req/s). So the baseline server stays up, and every round of a
 * measure is paired with a baseline round taken right before it: each pair gives a ratio, and the
 * figure reported is the median over the rounds. Each paired row also gives the server processes' CPU
 * time per request (from /proc, on Linux): it moves far less with the neighbours' load than req/s.
 */
// @funnel/contracts declares its DTOs with class-transformer decorators, which need the metadata API loaded first.
import 'reflect-metadata';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateAssetId } from '@funnel/contracts';
import { BENCH_FUNNEL_NODES, seedBenchFunnel } from './funnel.bench';
import { LoadOptions, LoadResult, load } from './http-load';
import { Child, cpuMs, freePort, runCommand, runTs, waitForHttp } from './processes';

const KEY = 'bench-admin-key-0123456789';
const DURATION = Number(process.env.BENCH_SECONDS ?? 3);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
/** `BENCH_ONLY=funnel` (or a comma-separated list of standalone, funnel, distributed, edge, replay, reporting, queries, relay, logic, routing, postbacks-in, middleware): only those sections. */
const ONLY = process.env.BENCH_ONLY ? new Set(process.env.BENCH_ONLY.split(',')) : undefined;
const runs = (section: string) => !ONLY || ONLY.has(section);
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
  /** Median server CPU µs per request (all the measure's processes, and the baseline's); absent without /proc. */
  cpu?: { measure: number; baseline: number };
}

/** Which processes serve the measure and the baseline, for their CPU time. */
interface Servers {
  measure: number[];
  baseline: number[];
}

/** `; server CPU <n> µs/req` from two cpuMs readings around `requests` requests ("" without /proc). */
function cpuPerRequest(before: number | undefined, after: number | undefined, requests: number): string {
  return before !== undefined && after !== undefined && requests > 0 ? `; server CPU ${(((after - before) * 1000) / requests).toFixed(0)} µs/req` : '';
}

/** Runs one load round and measures the CPU the servers spent per request meanwhile. */
async function measuredLoad(options: LoadOptions, pids: number[]): Promise<{ result: LoadResult; cpuMicros?: number }> {
  const before = cpuMs(pids);
  const result = await load({ ...options, durationSeconds: DURATION });
  const after = cpuMs(pids);
  const known = before !== undefined && after !== undefined && result.requests > 0;
  return { result, cpuMicros: known ? ((after - before) * 1000) / result.requests : undefined };
}

/** Alternates baseline and measure rounds; ratios of adjacent pairs cancel the neighbours' load. The baseline: a URL to GET, or a load of its own. */
async function paired(baselineLoad: string | LoadOptions, options: LoadOptions, servers: Servers): Promise<Paired> {
  const baselineOptions = typeof baselineLoad === 'string' ? { url: baselineLoad } : baselineLoad;
  await load({ ...options, durationSeconds: 2 });
  const ratios: number[] = [];
  const measures: LoadResult[] = [];
  const baselines: number[] = [];
  const cpu: { measure: number[]; baseline: number[] } = { measure: [], baseline: [] };
  for (let round = 0; round < ROUNDS; round++) {
    const base = await measuredLoad(baselineOptions, servers.baseline);
    const result = await measuredLoad(options, servers.measure);
    baselines.push(base.result.requestsPerSecond);
    measures.push(result.result);
    ratios.push(result.result.requestsPerSecond / base.result.requestsPerSecond);
    if (base.cpuMicros !== undefined && result.cpuMicros !== undefined) {
      cpu.baseline.push(base.cpuMicros);
      cpu.measure.push(result.cpuMicros);
    }
  }
  const middle = median(ratios);
  return {
    measure: measures[ratios.indexOf(middle)],
    baseline: baselines[ratios.indexOf(middle)],
    ratio: middle,
    ratios,
    cpu: cpu.measure.length === ROUNDS ? { measure: median(cpu.measure), baseline: median(cpu.baseline) } : undefined,
  };
}

function recordPaired(name: string, p: Paired, target = '') {
  const spread = `rounds ${p.ratios.map((r) => r.toFixed(2)).join(', ')}`;
  const cpu = p.cpu
    ? `; server CPU ${p.cpu.measure.toFixed(1)} µs/req, baseline ${p.cpu.baseline.toFixed(1)} (${(p.cpu.measure / p.cpu.baseline).toFixed(2)}x)`
    : '';
  record(
    name,
    `${fmt(p.measure.requestsPerSecond)} req/s, p99 ${p.measure.p99Ms} ms, non-2xx ${p.measure.non2xx} (baseline round ${fmt(p.baseline)} req/s)${cpu}`,
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
    // One key carries the whole load: the per-credential limit is still checked on every request
    // (its cost is part of the figures), but set far above what the load reaches.
    RATE_LIMIT_PER_SECOND: '1000000',
    RATE_LIMIT_BURST: '1000000',
    // Standalone's tracking edge on a free port (its default 3001 may be taken on a bench machine).
    EDGE_PORT: '0',
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

/** Saves `count` landers (ten requests at a time) and answers their ids. */
async function seedPages(base: string, count: number): Promise<string[]> {
  const ids = Array.from({ length: count }, () => generateAssetId());
  for (let i = 0; i < ids.length; i += 10) {
    await Promise.all(
      ids.slice(i, i + 10).map(async (idPage, n) => {
        const r = await fetch(`${base}/page/save/`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-api-key': KEY },
          body: JSON.stringify({
            idPage,
            pageType: 'lander',
            pageName: `bench lander ${i + n}`,
            baseURL: 'https://lp.example.com/bench?src={trafficSourceID}',
          }),
        });
        if (r.status !== 200) throw new Error(`seeding pages failed: ${r.status} ${await r.text()}`);
      }),
    );
  }
  return ids;
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
    const standaloneServers = { measure: [standalone.process.pid!], baseline: [hello.process.pid!] };
    if (runs('standalone')) await standaloneRows(base, idTag, helloUrl, standaloneServers);
    if (runs('reporting')) await reportingAcceptRows(base);
    if (runs('funnel')) await funnelRows(base, tmp, children, standalone);
    if (runs('routing')) await simulateRows(base, standalone);
    await stopAll();
    const edgeKit = {
      durationSeconds: DURATION,
      rounds: ROUNDS,
      key: KEY,
      email: 'bench@example.com',
      password: 'bench password',
      appEnv,
      tmp,
      children,
      record,
      log: (line: string) => process.stdout.write(`${line}\n`),
    };
    if (runs('edge')) {
      const { edgeSection } = await import('./edge/edge.bench');
      await edgeSection(edgeKit);
    }
    if (runs('middleware')) {
      const { middlewareSection } = await import('./edge/middleware.bench');
      await middlewareSection(edgeKit);
    }
    if (runs('distributed')) await distributedRows(tmp, children, helloUrl, hello.process.pid!, stopAll);
    await hello.stop();
    if (runs('replay')) {
      process.stdout.write('replay: rebuilding the asset read model from 100,000 events\n');
      // Imported only now: their libraries in this process would slow the load generator above.
      const { replayRate } = await import('./replay.bench');
      const replay = await replayRate(100_000);
      record('read-model replay', `${fmt(replay.eventsPerSecond)} events/s (${replay.seconds.toFixed(2)} s)`, '', '>= 50,000');
    }
    if (runs('reporting')) {
      process.stdout.write('reporting: conversion rows applied to the embedded hit warehouse (1,000-row jobs over 100,000 hits)\n');
      const { reportingApplyRate } = await import('./reporting-apply.bench');
      const applied = await reportingApplyRate(100_000, 50);
      record(
        'reporting: conversion rows applied (embedded DuckDB store), against plain SQLite updates of the same rows',
        `${fmt(applied.rowsPerSecond)} rows/s; ${fmt(applied.rowsPerCpuSecond)} rows per CPU second`,
        `${(applied.rowsPerCpuSecond / applied.baselineRowsPerCpuSecond).toFixed(2)} of the baseline's rows per CPU second (${fmt(applied.baselineRowsPerCpuSecond)})`,
        '>= 20,000 rows/s',
      );
      process.stdout.write('reporting: hits ingested into the embedded hit warehouse (ingestHits, 1,000-hit batches, every tenth sent twice)\n');
      const { hitsIngestRate } = await import('./hits-ingest.bench');
      const ingested = await hitsIngestRate(100_000);
      record(
        'reporting: hits ingested (embedded DuckDB warehouse, ingestHits in 1,000-hit batches), against bare appends of the same rows',
        `${fmt(ingested.hitsPerSecond)} hits/s; ${fmt(ingested.hitsPerCpuSecond)} hits per CPU second`,
        `${(ingested.hitsPerSecond / ingested.baselineHitsPerSecond).toFixed(2)} of the baseline's hits/s (${fmt(ingested.baselineHitsPerSecond)})`,
        '>= 100,000 hits/s',
      );
      process.stdout.write(
        'reporting: the ingest floor, DuckDB alone (the same 100,000 rows laid out before the timer, one appender, one transaction, closed)\n',
      );
      const { floorSteps, hitsIngestFloor } = await import('./hits-ingest-floor.bench');
      const floor = await hitsIngestFloor(100_000);
      record(
        'reporting: hits ingest floor (DuckDB alone: the same 100,000 rows in the warehouse layout, data chunks built before the timer, appended in one transaction, flushed, committed, closed)',
        `${fmt(floor.hitsPerSecond)} hits/s; ${fmt(floor.hitsPerCpuSecond)} hits per CPU second (${floorSteps(floor)})`,
        `${(floor.hitsPerSecond / 100_000).toFixed(2)} of the 100,000 hits/s target; the ingest row above reached ${(ingested.hitsPerSecond / floor.hitsPerSecond).toFixed(2)} of this floor`,
        'floor of the row above',
      );
      process.stdout.write("reporting: an account's small jobs applied one after the other (2,000 one-row conversion jobs)\n");
      const { reportingDrainRate } = await import('./reporting-drain.bench');
      const drained = await reportingDrainRate(2000);
      record(
        "reporting: an account's small jobs applied (standalone worker, 2,000 one-row jobs of one account, in acceptance order)",
        `${fmt(drained.jobsPerSecond)} jobs/s; ${fmt(drained.jobsPerCpuSecond)} per CPU second`,
        '',
        '>= 200 jobs/s',
      );
    }
    if (runs('queries')) await reportingQueryRows();
    if (runs('postbacks-in')) {
      process.stdout.write('postbacks-in: incoming postbacks accepted on the edge (standalone): GET /pb/, each queued and logged before its 200\n');
      const { postbacksInRate } = await import('./postbacks-in.bench');
      const result = await postbacksInRate(DURATION);
      record(
        'postbacks-in: incoming postbacks accepted per second on the edge (standalone, 16 connections)',
        `${fmt(result.requestsPerSecond)} postbacks/s, p99 ${result.p99Ms} ms${result.non2xx ? `, ${result.non2xx} non-2xx` : ''}`,
      );
    }
    if (runs('relay')) {
      process.stdout.write('relay: 50,000 asset events from the embedded log into JetStream\n');
      const { relayRate } = await import('./relay.bench');
      const relay = await relayRate(50_000);
      record(
        'asset event relay into JetStream, 50,000 events',
        `${fmt(relay.relayPerSecond)} events/s; raw pipelined publishes of the same payloads ${fmt(relay.baselinePerSecond)}/s, nats.js js.publish ${fmt(relay.jsPublishPerSecond)}/s`,
        `${relay.ratio.toFixed(2)} (${relay.ratios.map((r) => r.toFixed(2)).join(', ')})`,
        '>= 20,000/s',
      );
    }
    if (runs('routing')) {
      process.stdout.write('routing: the engine alone against hand-written JavaScript taking the same decisions\n');
      const { routingEngineRows } = await import('./routing');
      for (const r of routingEngineRows()) record(r.name, r.value, r.ratio, r.target);
    }
    if (runs('logic')) {
      process.stdout.write('logic scripts\n');
      const { runLogicScriptBench } = await import('./logic-script.bench');
      for (const r of await runLogicScriptBench()) {
        record(
          r.name,
          `${r.value.toLocaleString('en-US', { maximumFractionDigits: 1 })} ${r.unit}`,
          r.ratio !== undefined ? `${r.ratio.toFixed(2)}x ${r.baseline ?? 'baseline'}` : '',
        );
      }
    }
  } finally {
    await stopAll();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  }
  process.stdout.write('\n| measure | figure | ratio | target |\n|---|---|---|---|\n');
  for (const r of rows) process.stdout.write(`| ${r.name} | ${r.value} | ${r.ratio} | ${r.target} |\n`);
}

/** Reporting queries over 10,000,000 generated hits: over HTTP (standalone) against the same answer on the engine alone. */
async function reportingQueryRows(): Promise<void> {
  const { reportingQueryFigures } = await import('./reporting-queries');
  process.stdout.write('reporting queries over generated hits (standalone over HTTP, and the engine alone on the same file)\n');
  const { dataset, queries } = await reportingQueryFigures(
    { env: (dir, extra) => appEnv(dir, extra), apiKey: KEY, email: 'bench@example.com', password: 'bench password' },
    (line) => process.stdout.write(`${line}\n`),
  );
  const made = dataset.generated ? 'generated in this run' : 'cached: generated';
  record(
    `reporting queries: the data set (${fmt(dataset.shape.hits)} hits of one account over ${dataset.shape.days} days)`,
    `reporting.duckdb ${(dataset.fileBytes / 1e9).toFixed(2)} GB; ${made} in ${dataset.generationSeconds.toFixed(1)} s (INSERT ... SELECT), assets seeded in ${dataset.seedSeconds.toFixed(1)} s`,
  );
  const ms = (n: number) => `${n.toFixed(n < 10 ? 1 : 0)} ms`;
  const targets: Record<string, string> = {
    '2-level': 'p50 <= 500 ms and <= 1.3x the engine',
    'raw-events': 'p50 <= 100 ms',
    'visitor lookup': 'p50 <= 100 ms',
  };
  for (const q of queries) {
    const engine = `engine alone p50 ${ms(q.engine.p50)}, p95 ${ms(q.engine.p95)} (${q.engine.samples.length} runs; p50 of the passes before/after ${ms(q.enginePasses[0])}, ${ms(q.enginePasses[1])})`;
    const answers =
      q.answers.http === q.answers.engine ? `both ${fmt(q.answers.engine)}` : `HTTP ${q.answers.http ?? '-'} vs engine ${q.answers.engine}: DIFFERENT`;
    const value = q.http
      ? `HTTP p50 ${ms(q.http.p50)}, p95 ${ms(q.http.p95)} (${q.http.samples.length} runs); ${engine}; answer size ${answers}`
      : `HTTP: ${q.httpMissing}; ${engine}`;
    const target = Object.entries(targets).find(([prefix]) => q.name.startsWith(prefix))?.[1] ?? '';
    record(`reporting query: ${q.name}`, value, q.http ? `${(q.http.p50 / q.engine.p50).toFixed(2)}x the engine alone (p50)` : '', target);
  }
}

/** Conversion rows accepted over HTTP in 1,000-row requests (durably queued), against appending the same bodies to the queue. */
async function reportingAcceptRows(base: string): Promise<void> {
  process.stdout.write('reporting: conversion rows accepted over HTTP in 1,000-row requests (durably queued)\n');
  const { reportingAcceptRound } = await import('./reporting.bench');
  await reportingAcceptRound(base, KEY, 1);
  const rounds = [];
  for (let round = 0; round < ROUNDS; round++) rounds.push(await reportingAcceptRound(base, KEY, DURATION));
  const ratios = rounds.map((r) => r.rowsPerSecond / r.baselineRowsPerSecond);
  const mid = rounds[ratios.indexOf(median(ratios))];
  record(
    'reporting: conversion rows accepted per second (standalone, 1,000-row PUTs), against appending the same bodies to the embedded queue',
    `${fmt(median(rounds.map((r) => r.rowsPerSecond)))} rows/s, p99 ${mid.p99Ms} ms per request${mid.non2xx ? `, ${mid.non2xx} non-2xx` : ''}`,
    `${median(ratios).toFixed(2)} of the baseline's ${fmt(mid.baselineRowsPerSecond)} rows/s (${ratios.map((r) => r.toFixed(2)).join(', ')})`,
    '>= 50,000 rows/s',
  );
}

async function standaloneRows(base: string, idTag: string, helloUrl: string, standaloneServers: Servers): Promise<void> {
  recordPaired(
    'standalone find/byId',
    await paired(helloUrl, { url: `${base}/visitortag/find/byId/?idTag=${idTag}`, headers: { 'x-api-key': KEY } }, standaloneServers),
    '>= 0.35',
  );
  recordPaired(
    'standalone POST save (create)',
    await paired(
      helloUrl,
      {
        url: `${base}/visitortag/save/`,
        method: 'POST',
        headers: { 'x-api-key': KEY, 'content-type': 'application/json' },
        body: () => JSON.stringify({ idTag: generateAssetId(), tagName: 'created by bench', color: 'blue' }),
      },
      standaloneServers,
    ),
  );
  const pagesUrl = `${base}/page/find/byIds/?idPages=${(await seedPages(base, 100)).join(',')}`;
  const pages = (await (await fetch(pagesUrl, { headers: { 'x-api-key': KEY } })).json()) as unknown[];
  if (pages.length !== 100) throw new Error(`find/byIds answered ${pages.length} pages, not 100`);
  recordPaired('standalone find/byIds (100 pages)', await paired(helloUrl, { url: pagesUrl, headers: { 'x-api-key': KEY } }, standaloneServers));
}

async function funnelRows(base: string, tmp: () => string, children: Child[], standalone: Child): Promise<void> {
  // Funnels: find/byId of a 200-node funnel against raw Fastify serving the same bytes, and saves of such a funnel.
  const funnel = await seedBenchFunnel(base, KEY);
  const created = await fetch(`${base}/funnel/save/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': KEY },
    body: JSON.stringify(funnel),
  });
  if (created.status !== 200) throw new Error(`saving the bench funnel failed: ${created.status} ${await created.text()}`);
  const funnelUrl = `${base}/funnel/find/byId/?idFunnel=${String(funnel.idFunnel)}`;
  const jsonFile = join(tmp(), 'funnel.json');
  writeFileSync(jsonFile, await (await fetch(funnelUrl, { headers: { 'x-api-key': KEY } })).text());
  const sameBytes = await runTs('tools/bench/fastify-json.ts', { BENCH_JSON_FILE: jsonFile }, /PORT=(\d+)/);
  children.push(sameBytes);
  recordPaired(
    `standalone find/byId (${BENCH_FUNNEL_NODES}-node funnel) vs Fastify serving the same bytes`,
    await paired(
      `http://127.0.0.1:${sameBytes.match![1]}/json`,
      { url: funnelUrl, headers: { 'x-api-key': KEY } },
      { measure: [standalone.process.pid!], baseline: [sameBytes.process.pid!] },
    ),
    '>= 0.5',
  );
  await load({
    url: `${base}/funnel/save/`,
    method: 'POST',
    headers: { 'x-api-key': KEY, 'content-type': 'application/json' },
    body: () => JSON.stringify({ ...funnel, idFunnel: generateAssetId() }),
    durationSeconds: 2,
  });
  const cpuBefore = cpuMs([standalone.process.pid!]);
  const saves = await load({
    url: `${base}/funnel/save/`,
    method: 'POST',
    headers: { 'x-api-key': KEY, 'content-type': 'application/json' },
    body: () => JSON.stringify({ ...funnel, idFunnel: generateAssetId() }),
    durationSeconds: DURATION,
  });
  record(
    `standalone POST funnel/save (${BENCH_FUNNEL_NODES}-node funnel, every reference checked)`,
    `${fmt(saves.requestsPerSecond)} saves/s, p99 ${saves.p99Ms} ms, non-2xx ${saves.non2xx}${cpuPerRequest(cpuBefore, cpuMs([standalone.process.pid!]), saves.requests)}`,
    '',
    '>= 300/s',
  );
}

/** POST /funnel/simulate/ of the realistic routing funnel (an entrance and an action per request), paired with find/byId of the same funnel. */
async function simulateRows(base: string, standalone: Child): Promise<void> {
  process.stdout.write('routing: POST /funnel/simulate/ (standalone), paired with find/byId of the same funnel\n');
  const { checkSimulateAnswer, realisticAssets, seedFunnelAssets, simulateBodies } = await import('./routing');
  const assets = realisticAssets();
  await seedFunnelAssets(base, KEY, assets);
  const headers = { 'x-api-key': KEY, 'content-type': 'application/json' };
  const body = simulateBodies(assets);
  const probe = await fetch(`${base}/funnel/simulate/`, { method: 'POST', headers, body: body() });
  if (probe.status !== 200) throw new Error(`simulate answered ${probe.status}: ${await probe.text()}`);
  checkSimulateAnswer(await probe.json());
  const pid = standalone.process.pid!;
  recordPaired(
    'standalone POST funnel/simulate/ (realistic funnel: entrance + action 1, a new seed each) vs find/byId of the same funnel',
    await paired(
      { url: `${base}/funnel/find/byId/?idFunnel=${assets.funnel.idFunnel}`, headers: { 'x-api-key': KEY } },
      { url: `${base}/funnel/simulate/`, method: 'POST', headers, body },
      { measure: [pid], baseline: [pid] },
    ),
  );
}

async function distributedRows(tmp: () => string, children: Child[], helloUrl: string, helloPid: number, stopAll: () => Promise<void>): Promise<void> {
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
    await paired(
      helloUrl,
      { url: `${gatewayBase}/visitortag/find/byId/?idTag=${distributedTag}`, headers: { 'x-api-key': KEY } },
      // Every process of the cluster (NATS, the services, the gateway) serves each request.
      { measure: children.map((child) => child.process.pid!), baseline: [helloPid] },
    ),
    '>= 0.15',
  );
  await stopAll();
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
