import { type ChildProcess, type SpawnOptions, spawn } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface RunningChild {
  child: ChildProcess;
  /** Complete stdout lines, as they come. */
  lines: string[];
  stderr: () => string;
  exited: Promise<Exit>;
}

/** Spawns a command with stdout piped and split into lines as they come (stderr piped unless `stdio` says otherwise). */
export function spawnWithLines(command: string, args: readonly string[], options: SpawnOptions = {}): RunningChild {
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], ...options });
  const lines: string[] = [];
  let pending = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    const parts = (pending + chunk.toString()).split('\n');
    pending = parts.pop()!;
    lines.push(...parts);
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<Exit>((done) => child.once('exit', (code, signal) => done({ code, signal })));
  return { child, lines, stderr: () => stderr, exited };
}

/** The process ids below `pid` (Linux /proc), e.g. the node process that `npm run` started. */
export function descendants(pid: number): number[] {
  const tasks = `/proc/${pid}/task`;
  if (!existsSync(tasks)) return [];
  const children = readdirSync(tasks).flatMap((tid) => {
    try {
      return readFileSync(`${tasks}/${tid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
    } catch {
      return [];
    }
  });
  return children.flatMap((child) => [child, ...descendants(child)]);
}

/** Whether a process of this id still runs (signal 0). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
