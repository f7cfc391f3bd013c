import Database from 'better-sqlite3';
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { WAREHOUSE_COLUMNS } from '@funnel/reporting-feature';
import { freePort, runTs, waitForHttp } from '../processes';
import { createHitsTableSql, insertHitsSql, type DatasetAssets, type DatasetShape } from './hits-sql';
import { FILLED_SLOTS, seedAssets } from './seed-assets';

/** Bump when the generated hits change: a cached data dir of another version is not used. */
const GENERATOR_VERSION = 3;
export const DAY_MS = 86_400_000;

export interface Dataset {
  /** A standalone DATA_DIR: the account, its API key and assets, and `reporting.duckdb` holding the hits. */
  dataDir: string;
  accountId: string;
  assets: DatasetAssets;
  shape: DatasetShape;
  /** Seconds the INSERT of the hits took (and the seeding of the assets before it), when this data dir was made. */
  generationSeconds: number;
  seedSeconds: number;
  /** Size of reporting.duckdb. */
  fileBytes: number;
  /** Whether this run made it (false: taken from the cache). */
  generated: boolean;
}

/** How the bench starts a standalone (its environment and the bootstrap admin's credentials). */
export interface StandaloneLauncher {
  env(dataDir: string, extra: NodeJS.ProcessEnv): NodeJS.ProcessEnv;
  apiKey: string;
  email: string;
  password: string;
}

/** 200 ISO 3166-1 alpha-2 codes (the first ones in A..Z order that ICU names as regions). */
function countryCodes(count: number): string[] {
  const names = new Intl.DisplayNames(['en'], { type: 'region' });
  const codes: string[] = [];
  for (let a = 65; a <= 90; a++) {
    for (let b = 65; b <= 90; b++) {
      const code = String.fromCharCode(a, b);
      if (codes.length < count && names.of(code) !== code) codes.push(code);
    }
  }
  return codes;
}

/** The generated data set: `hits` hits over 30 days from 2026-10-01T00:00:00Z. */
export function datasetShape(hits: number): DatasetShape {
  return {
    hits,
    startMs: Date.UTC(2026, 9, 1),
    days: 30,
    visitors: Math.round(hits / 5),
    countries: countryCodes(200),
    filledSlots: FILLED_SLOTS,
    valuesPerSlot: 20,
  };
}

/** The cached data dir's name: the generator version, the hit count and the warehouse columns (a changed schema generates again). */
function cacheName(hits: number): string {
  const schema = createHash('sha256').update(JSON.stringify(WAREHOUSE_COLUMNS)).digest('hex').slice(0, 12);
  return `reporting-queries-v${GENERATOR_VERSION}-${hits}-${schema}`;
}

/** The account id of the bootstrap admin: from the access token a password login answers (its `acc` claim). */
async function accountOf(base: string, launcher: StandaloneLauncher): Promise<string> {
  const r = await fetch(`${base}/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: launcher.email, password: launcher.password }),
  });
  if (r.status !== 200) throw new Error(`login failed: ${r.status} ${await r.text()}`);
  const { tokens } = (await r.json()) as { tokens: { access_token: string } };
  const claims = JSON.parse(Buffer.from(tokens.access_token.split('.')[1], 'base64url').toString()) as { acc: string };
  return claims.acc;
}

function cachedDataDir(hits: number): string {
  return join(process.env.BENCH_DATA_DIR ?? join(tmpdir(), 'funnel-bench-data'), cacheName(hits));
}

/** The data set of `hits` hits if a previous run made it (see benchDataset). */
export function cachedDataset(hits: number): Dataset | undefined {
  const dataDir = cachedDataDir(hits);
  const description = join(dataDir, 'bench-dataset.json');
  if (!existsSync(description)) return undefined;
  const saved = JSON.parse(readFileSync(description, 'utf8')) as Omit<Dataset, 'dataDir' | 'generated' | 'fileBytes'>;
  return { ...saved, dataDir, generated: false, fileBytes: statSync(join(dataDir, 'reporting.duckdb')).size };
}

/**
 * The bench's hits, generated once per generator version and hit count into
 * `BENCH_DATA_DIR` (default `<tmpdir>/funnel-bench-data`): a standalone first starts on a new data
 * dir (making the bootstrap account, its key and the warehouse file), the assets are saved over
 * HTTP, the standalone stops, and one INSERT ... SELECT writes the hits into `reporting.duckdb`
 * (not through ingest: hits:ingest is measured on its own). A later run finds the finished dir
 * and reuses it.
 */
export async function benchDataset(hits: number, launcher: StandaloneLauncher, log: (line: string) => void): Promise<Dataset> {
  const cached = cachedDataset(hits);
  if (cached) return cached;
  const dataDir = cachedDataDir(hits);
  const partial = `${dataDir}.partial`;
  rmSync(partial, { recursive: true, force: true });
  mkdirSync(partial, { recursive: true, mode: 0o700 });

  log(`  generating ${hits.toLocaleString('en-US')} hits into ${partial} (cached for later runs)`);
  const seedStarted = performance.now();
  const port = await freePort();
  const standalone = await runTs('apps/standalone/src/main.ts', launcher.env(partial, { PORT: String(port) }));
  let accountId: string;
  let assets: DatasetAssets;
  try {
    const base = `http://127.0.0.1:${port}/v1`;
    await waitForHttp(`${base}/visitortag/list/`, { 'x-api-key': launcher.apiKey });
    accountId = await accountOf(base, launcher);
    assets = await seedAssets(base, launcher.apiKey);
  } finally {
    await standalone.stop();
  }
  const seedSeconds = (performance.now() - seedStarted) / 1000;

  const shape = datasetShape(hits);
  const file = join(partial, 'reporting.duckdb');
  const started = performance.now();
  const instance = await DuckDBInstance.create(file);
  const connection = await instance.connect();
  try {
    await connection.run(createHitsTableSql());
    for (const statement of insertHitsSql(accountId, assets, shape)) await connection.run(statement);
    await connection.run('CHECKPOINT');
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
  const generationSeconds = (performance.now() - started) / 1000;
  chmodSync(file, 0o600);
  forgetVisitorDays(join(partial, 'reporting.sqlite'));
  writeFileSync(join(partial, 'bench-dataset.json'), JSON.stringify({ accountId, assets, shape, generationSeconds, seedSeconds }));
  rmSync(dataDir, { recursive: true, force: true });
  renameSync(partial, dataDir);
  return { dataDir, accountId, assets, shape, generationSeconds, seedSeconds, fileBytes: statSync(join(dataDir, 'reporting.duckdb')).size, generated: true };
}

/**
 * The seeding standalone marked the visitor-day index built over its empty warehouse; the hits were
 * then written behind the store's back, so the mark is dropped and the next open builds the index
 * from them (as for a warehouse written before the index existed).
 */
function forgetVisitorDays(sqliteFile: string): void {
  const db = new Database(sqliteFile);
  try {
    const tables = new Set(db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all() as string[]);
    if (tables.has('warehouse_indexes')) db.prepare("DELETE FROM warehouse_indexes WHERE name = 'visitor_days'").run();
    if (tables.has('visitor_days')) db.prepare('DELETE FROM visitor_days').run();
  } finally {
    db.close();
  }
}
