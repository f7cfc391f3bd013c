import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { startNatsServer } from './nats-server';
import { greets } from './net';
import { cleanUpLater, runPendingCleanups } from './cleanup';
import { tempDir } from './temp-dir';

const ROOT = join(__dirname, '..', '..', '..');

describe('test cleanup', () => {
  it('removes the directories and stops the servers a test left, the server before its store', async () => {
    const dir = tempDir('left');
    const nats = await startNatsServer();
    const order: string[] = [];
    cleanUpLater(() => void order.push('newest'));
    const dropped = cleanUpLater(() => void order.push('dropped'));
    dropped();

    await runPendingCleanups();

    expect(order).toEqual(['newest']);
    expect(existsSync(dir.path)).toBe(false);
    expect(await greets(nats.port, '127.0.0.1', 'INFO ')).toBe(false);
  });

  it('leaves nothing under the temp dir once a Jest run whose workers are force-exited is over', () => {
    const tmp = tempDir('jest-run-tmp');
    const cache = tempDir('jest-run-cache');
    // The integration project's settings, run on the two fixture files in two workers (as `npx jest` does).
    const { projects, ...global } = require(join(ROOT, 'jest.config.js'));
    const { displayName: _name, testPathIgnorePatterns: _ignored, ...project } = projects.find((p: { displayName: string }) => p.displayName === 'integration');
    const config = { ...global, ...project, projects: undefined, testMatch: ['<rootDir>/libs/testing/src/fixtures/*.fixture.ts'], cacheDirectory: cache.path };
    const run = spawnSync(process.execPath, [require.resolve('jest/bin/jest'), '--config', JSON.stringify(config), '--maxWorkers=2', '--ci'], {
      cwd: ROOT,
      env: { ...process.env, TMPDIR: tmp.path },
      encoding: 'utf8',
      timeout: 120_000,
    });
    expect(run.stderr).toContain('Tests:       2 passed, 2 total');
    expect(readdirSync(tmp.path)).toEqual([]);
  });
});
