import { spawn, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { tempDir, type TempDir } from '@funnel/testing';

const root = resolve(__dirname, '..', '..');

describe('npm run -s cli -- hits:import into DATA_DIR', () => {
  let dir: TempDir;
  beforeEach(() => (dir = tempDir('hits-import-cli')));
  afterEach(() => dir.remove());

  it('while another process (a standalone) has the warehouse open: one line saying what to do, exit 1', async () => {
    const warehouse = join(dir.path, 'reporting.duckdb');
    // Holds the file as a running standalone does (DuckDB: one process per file).
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
      writeFileSync(file, '{}\n');
      const { NATS_URL: _nats, CLICKHOUSE_URL: _clickhouse, ...env } = process.env;
      const run = spawnSync('npm', ['run', '-s', 'cli', '--', 'hits:import', file], { cwd: root, env: { ...env, DATA_DIR: dir.path }, encoding: 'utf8' });
      expect(run.status).toBe(1);
      expect(run.stderr.trim().split('\n')).toEqual([
        `error: the hit warehouse ${warehouse} is open in another process (pid ${holder.pid}): ` +
          'stop the standalone (or reporting service) using this DATA_DIR first, or send the hits to it over NATS (NATS_URL)',
      ]);
    } finally {
      holder.kill('SIGKILL');
    }
  }, 60_000);
});
