import { spawn, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { generateAssetId } from '@funnel/contracts';
import { aHit } from '@funnel/reporting-domain';
import { tempDir, type TempDir } from '@funnel/testing';

const root = resolve(__dirname, '..', '..');

/** `npm run -s cli -- hits:import <file>` on `dataDir` (no NATS_URL, no CLICKHOUSE_URL). */
function importInto(dataDir: string, file: string, extraEnv: NodeJS.ProcessEnv = {}) {
  const { NATS_URL: _nats, CLICKHOUSE_URL: _clickhouse, ...env } = process.env;
  return spawnSync('npm', ['run', '-s', 'cli', '--', 'hits:import', file], { cwd: root, env: { ...env, DATA_DIR: dataDir, ...extraEnv }, encoding: 'utf8' });
}

describe('npm run -s cli -- hits:import into DATA_DIR while another process holds the warehouse (DuckDB: one process per file)', () => {
  let dir: TempDir;
  beforeEach(() => (dir = tempDir('hits-import-cli')));
  afterEach(() => dir.remove());

  it('hands the hits to the running standalone through its inbox, which stores them and answers as ingest does', async () => {
    const standalone = spawn(process.execPath, ['-r', join(root, 'tools', 'register.js'), join(root, 'libs/runtime/src/fixtures/reporting-crash.fixture.ts')], {
      cwd: root,
      env: {
        ...process.env,
        DATA_DIR: dir.path,
        PORT: '0',
        EDGE_PORT: '0',
        HOST: '127.0.0.1',
        LOG_LEVEL: 'error',
        OPS_PORT: '0',
        OPS_HOST: '127.0.0.1',
        ACCOUNT_API_KEY: '',
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    try {
      await new Promise<void>((done, fail) => {
        let out = '';
        standalone.stdout.on('data', (data: Buffer) => (out += data.toString()).includes('port=') && done());
        standalone.once('exit', () => fail(new Error(`the standalone ended: ${out}`)));
      });
      const accountId = generateAssetId();
      const file = join(dir.path, 'hits.ndjson');
      const hits = [aHit({ hitId: generateAssetId(), accountId }), aHit({ hitId: generateAssetId(), accountId })];
      writeFileSync(file, [...hits.map((hit) => JSON.stringify(hit)), '{"hitId":"bad"}'].join('\n') + '\n');

      const first = importInto(dir.path, file);
      expect(first.stdout.trim()).toBe('2 hits imported, 0 already stored, 1 lines refused (via the process holding DATA_DIR)');
      expect(first.stderr).toContain(`${file}:3: hitId:`);
      expect(first.status).toBe(1);
      const again = importInto(dir.path, file);
      expect(again.stdout.trim()).toBe('0 hits imported, 2 already stored, 1 lines refused (via the process holding DATA_DIR)');
    } finally {
      standalone.kill('SIGKILL');
    }
  }, 120_000);

  it('says so in one line and exits 1 when the holding process takes no batch in time', async () => {
    const warehouse = join(dir.path, 'reporting.duckdb');
    // Holds the file without reading an inbox (not a standalone).
    const holder = spawn(
      process.execPath,
      [
        '-e',
        `require('@duckdb/node-api').DuckDBInstance.create(${JSON.stringify(warehouse)}).then((db) => { globalThis.db = db; setInterval(() => {}, 1000); console.log('open'); })`,
      ],
      { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    try {
      await new Promise<void>((done, fail) => {
        holder.stdout.on('data', (data: Buffer) => data.toString().includes('open') && done());
        holder.once('exit', () => fail(new Error('the holding process ended')));
      });
      const file = join(dir.path, 'hits.ndjson');
      writeFileSync(file, JSON.stringify(aHit({ hitId: generateAssetId() })) + '\n');
      const run = importInto(dir.path, file, { HITS_INBOX_TIMEOUT_MS: '1000' });
      expect(run.status).toBe(1);
      expect(run.stderr.trim().split('\n')).toEqual([
        'error: no process took the hits within 1 s: the process holding the hit warehouse reads them from its inbox (a standalone running on this DATA_DIR); is it still running?',
      ]);
    } finally {
      holder.kill('SIGKILL');
    }
  }, 60_000);
});
