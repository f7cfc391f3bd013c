import { type ChildProcess, spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { waitUntil } from '@funnel/testing';
import { DEFAULT_RESTART_POLICY, type RestartPolicy, Supervisor, restartDelay } from './supervisor';

describe('restart backoff', () => {
  it('starts at 0.5 s, doubles while the process keeps crashing, stops at 10 s, and resets after a minute up', () => {
    const delays: number[] = [];
    let previous: number | undefined;
    for (let crash = 0; crash < 8; crash++) {
      previous = restartDelay(DEFAULT_RESTART_POLICY, previous, 1000);
      delays.push(previous);
    }
    expect(delays).toEqual([500, 1000, 2000, 4000, 8000, 10000, 10000, 10000]);
    expect(restartDelay(DEFAULT_RESTART_POLICY, 10000, 60_000)).toBe(500);
  });
});

describe('Supervisor', () => {
  const policy: RestartPolicy = { minDelayMs: 10, maxDelayMs: 40, stableAfterMs: 60_000 };

  it('restarts a crashing process with growing delays while the others keep running, until stopped', async () => {
    const starts: Record<string, ChildProcess[]> = {};
    const crashes: { name: string; exit: string; restartInMs: number }[] = [];
    let restartedThrice!: () => void;
    const threeRestarts = new Promise<void>((resolve) => (restartedThrice = resolve));
    const supervisor = new Supervisor(
      {
        started(name, child, attempt) {
          (starts[name] ??= []).push(child);
          if (name === 'crashing' && attempt === 4) restartedThrice();
        },
        crashed: (name, exit, restartInMs) => crashes.push({ name, exit, restartInMs }),
      },
      policy,
    );
    supervisor.start({ name: 'steady', command: process.execPath, args: ['-e', 'setInterval(() => {}, 1000)'], env: process.env });
    supervisor.start({ name: 'crashing', command: process.execPath, args: ['-e', 'process.exit(3)'], env: process.env });
    await threeRestarts;
    await supervisor.stop();

    expect(crashes.filter(({ name }) => name === 'crashing').slice(0, 3)).toEqual([
      { name: 'crashing', exit: '3', restartInMs: 10 },
      { name: 'crashing', exit: '3', restartInMs: 20 },
      { name: 'crashing', exit: '3', restartInMs: 40 },
    ]);
    // The steady process was never restarted, and stop() ended it.
    expect(starts['steady']).toHaveLength(1);
    expect(crashes.some(({ name }) => name === 'steady')).toBe(false);
    expect(starts['steady'][0].signalCode ?? starts['steady'][0].exitCode).not.toBeNull();
  });
});

describe('Ctrl-C on dev-cluster', () => {
  it('reaches the supervisor only, which stops the services first and NATS once they have exited', async () => {
    const root = resolve(__dirname, '..', '..');
    // The supervisor in a process group of its own, as a shell runs a foreground job.
    const fixture = spawn(process.execPath, ['-r', './tools/register.js', 'tools/dev-cluster/fixtures/stop-order.fixture.ts'], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'inherit'],
      detached: true,
    });
    const lines: string[] = [];
    fixture.stdout!.on('data', (chunk: Buffer) => lines.push(...chunk.toString().trim().split('\n')));
    const exited = new Promise<number | null>((done) => fixture.once('exit', (code) => done(code)));
    await waitUntil(async () => lines.includes('nats ready') && lines.includes('service ready'), 'both children started', { timeoutMs: 30_000 });

    // What a terminal does on Ctrl-C: SIGINT to every process of the foreground group.
    process.kill(-fixture.pid!, 'SIGINT');

    expect(await exited).toBe(0);
    expect(lines.filter((line) => !line.endsWith('ready'))).toEqual([
      'supervisor got SIGINT',
      'service got SIGTERM',
      'service exited',
      'nats got SIGTERM',
      'nats exited',
    ]);
  });
});
