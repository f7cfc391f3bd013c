import { resolve } from 'node:path';
import { type NatsConnection, connect } from 'nats';
import { ASSET_EVENTS_STREAM, ASSET_EVENTS_SUBJECTS } from '@funnel/contracts';
import { ensureReaders } from '@funnel/assets-feature';
import { type RunningChild, type RunningNatsServer, descendants, isAlive, spawnWithLines, startNatsServer, waitUntil } from '@funnel/testing';
import { CLI_COMMANDS } from './commands';

const root = resolve(__dirname, '..', '..');

/** `npm run <npmArgs...>` in the repository, as a user types it; stdout in lines as they come. */
function npmRun(npmArgs: string[], env: NodeJS.ProcessEnv = process.env): RunningChild {
  return spawnWithLines('npm', ['run', ...npmArgs], { cwd: root, env });
}

describe('npm run cli', () => {
  it('-- --help lists every command on a line of its own and exits 0', async () => {
    const run = npmRun(['cli', '--', '--help']);
    expect(await run.exited).toEqual({ code: 0, signal: null });
    for (const { name } of CLI_COMMANDS) expect(run.lines.filter((line) => line.trim().startsWith(`${name} `))).toHaveLength(1);
  });

  it('-- <command> --help prints its usage and exits 0', async () => {
    const run = npmRun(['cli', '--', 'hits:import', '--help']);
    expect(await run.exited).toEqual({ code: 0, signal: null });
    expect(run.lines).toContain(CLI_COMMANDS.find(({ name }) => name === 'hits:import')!.usage);
  });

  describe('-s cli -- events:tail', () => {
    let nats: RunningNatsServer;
    let nc: NatsConnection;
    let pids: number[] = [];

    beforeAll(async () => {
      nats = await startNatsServer({ jetstream: true });
      nc = await connect({ servers: nats.url });
      const jsm = await nc.jetstreamManager();
      await jsm.streams.add({ name: ASSET_EVENTS_STREAM, subjects: [ASSET_EVENTS_SUBJECTS] });
      // The reader's durable consumer, as assets-service creates it (ASSET_EVENTS_READERS).
      await ensureReaders(jsm, ['events-reader']);
      const js = nc.jetstream();
      for (const tagName of ['one', 'two']) {
        await js.publish('assets.events.visitortag.VisitorTagCreated', JSON.stringify({ kind: 'visitortag', type: 'VisitorTagCreated', tagName }));
      }
    });
    afterAll(async () => {
      // A process the signal did not reach would outlive the test.
      for (const pid of pids) if (isAlive(pid)) process.kill(pid, 'SIGKILL');
      await nc?.close();
      await nats?.stop();
    });

    it('prints only JSON lines on stdout, and SIGTERM reaches the tail, which stops and exits 0', async () => {
      // A trailing comma in NATS_URL is no extra server.
      const env: NodeJS.ProcessEnv = { PATH: process.env['PATH'], HOME: process.env['HOME'], NATS_URL: `${nats.url},` };
      const run = npmRun(['-s', 'cli', '--', 'events:tail'], env);
      await waitUntil(async () => run.lines.length >= 2, 'the tail printed both events', { timeoutMs: 30_000 });
      pids = descendants(run.child.pid!);
      expect(pids.length).toBeGreaterThan(0);

      run.child.kill('SIGTERM');

      expect(await run.exited).toEqual({ code: 0, signal: null });
      expect(run.lines.map((line) => (JSON.parse(line) as { tagName: string }).tagName)).toEqual(['one', 'two']);
      expect(pids.filter(isAlive)).toEqual([]);
    });
  });
});
