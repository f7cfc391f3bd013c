import { ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { freePort } from '@funnel/testing';

export { freePort };

export const root = resolve(__dirname, '..', '..');
const register = join(root, 'tools', 'register.js');

export interface Child {
  process: ChildProcess;
  stop(): Promise<void>;
}

/**
 * Node options for every server the bench starts, from `BENCH_NODE_ARGS` (space-separated), e.g.
 * `BENCH_NODE_ARGS='--cpu-prof --cpu-prof-dir=/tmp/prof'` to profile them (NODE_OPTIONS refuses --cpu-prof).
 */
const nodeArgs = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);

/** Runs a TypeScript entry in its own process (so the server under test has its own core). */
export function runTs(entry: string, env: NodeJS.ProcessEnv, waitFor?: RegExp): Promise<Child & { match?: RegExpMatchArray }> {
  return runCommand(process.execPath, [...nodeArgs, '-r', register, join(root, entry)], env, waitFor);
}

export function runCommand(command: string, args: string[], env: NodeJS.ProcessEnv, waitFor?: RegExp): Promise<Child & { match?: RegExpMatchArray }> {
  const child = spawn(command, args, { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const stop = () =>
    new Promise<void>((res) => {
      if (child.exitCode !== null || child.signalCode !== null) return res();
      child.once('exit', () => res());
      child.kill('SIGTERM');
      setTimeout(() => child.kill('SIGKILL'), 5000).unref();
    });
  if (!waitFor) return Promise.resolve({ process: child, stop });
  return new Promise((res, rej) => {
    let output = '';
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = output.match(waitFor);
      if (match) {
        child.stdout!.off('data', onData);
        child.stderr!.off('data', onData);
        child.stdout!.resume();
        child.stderr!.resume();
        res({ process: child, stop, match });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => rej(new Error(`${args.join(' ')} exited with ${code} before it was ready:\n${output.slice(-2000)}`)));
  });
}

export async function waitForHttp(url: string, headers: Record<string, string> = {}, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const r = await fetch(url, { headers });
      if (r.status < 500) return;
    } catch {
      // not up yet
    }
    if (Date.now() > deadline) throw new Error(`${url} did not answer within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** User + system CPU milliseconds the processes have used so far; undefined without /proc (not Linux). */
export function cpuMs(pids: number[]): number | undefined {
  try {
    let total = 0;
    for (const pid of pids) {
      // utime and stime, fields 14 and 15 of /proc/<pid>/stat, in clock ticks of 10 ms.
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
      total += (Number(fields[11]) + Number(fields[12])) * 10;
    }
    return total;
  } catch {
    return undefined;
  }
}
