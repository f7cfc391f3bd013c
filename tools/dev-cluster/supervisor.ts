import { type ChildProcess, spawn } from 'node:child_process';

export interface RestartPolicy {
  /** Delay before the first restart, doubled after each crash that follows quickly. */
  minDelayMs: number;
  maxDelayMs: number;
  /** A process that stayed up this long has recovered: its next crash waits minDelayMs again. */
  stableAfterMs: number;
}

export const DEFAULT_RESTART_POLICY: RestartPolicy = { minDelayMs: 500, maxDelayMs: 10_000, stableAfterMs: 60_000 };

/** How long to wait before restarting a process that ran `upMs` and was last restarted after `previousDelayMs` (none: first crash). */
export function restartDelay(policy: RestartPolicy, previousDelayMs: number | undefined, upMs: number): number {
  if (previousDelayMs === undefined || upMs >= policy.stableAfterMs) return policy.minDelayMs;
  return Math.min(policy.maxDelayMs, previousDelayMs * 2);
}

export interface SupervisedProcess {
  name: string;
  command: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  cwd?: string;
  /** The others depend on it (NATS): `stop()` ends it only once every other process has exited. */
  stopLast?: boolean;
}

export interface SupervisorEvents {
  /** Each start, with its child (e.g. to forward its output). */
  started(name: string, child: ChildProcess, attempt: number): void;
  /** An exit the supervisor did not ask for, and when it will start the process again. */
  crashed(name: string, exit: string, restartInMs: number): void;
}

/**
 * Keeps processes running: one that exits while the supervisor is not stopping is started again
 * after a delay that doubles while it keeps crashing (RestartPolicy), so one broken service does
 * not stop the others, nor spin. Each runs in its own process group, so a terminal's Ctrl-C reaches
 * the supervisor only, and `stop()` ends them in order: the last started first, and those marked
 * `stopLast` (NATS) once the others have exited.
 */
export class Supervisor {
  private readonly entries: { spec: SupervisedProcess; child?: ChildProcess; timer?: NodeJS.Timeout }[] = [];
  private stopping = false;

  constructor(
    private readonly events: SupervisorEvents,
    private readonly policy: RestartPolicy = DEFAULT_RESTART_POLICY,
  ) {}

  start(spec: SupervisedProcess): void {
    const entry: (typeof this.entries)[number] = { spec };
    this.entries.push(entry);
    let attempt = 0;
    let previousDelayMs: number | undefined;
    const run = () => {
      entry.timer = undefined;
      if (this.stopping) return;
      const startedAt = Date.now();
      // detached: a process group of its own, out of reach of the terminal's SIGINT.
      const child = spawn(spec.command, spec.args, { cwd: spec.cwd, env: spec.env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
      entry.child = child;
      this.events.started(spec.name, child, ++attempt);
      // A spawn failure (command missing) is followed by 'close' too.
      child.once('close', (code, signal) => {
        if (this.stopping) return;
        previousDelayMs = restartDelay(this.policy, previousDelayMs, Date.now() - startedAt);
        this.events.crashed(spec.name, String(signal ?? code), previousDelayMs);
        entry.timer = setTimeout(run, previousDelayMs);
      });
      child.once('error', () => undefined);
    };
    run();
  }

  /**
   * SIGTERM to each, last started first, and SIGKILL to any still running after `graceMs`; then the
   * same for the `stopLast` ones, so the services drain while NATS still carries their last replies.
   */
  async stop(graceMs = 10_000): Promise<void> {
    this.stopping = true;
    for (const entry of this.entries) clearTimeout(entry.timer);
    const stopLast = (entry: (typeof this.entries)[number]) => entry.spec.stopLast === true;
    await this.terminate(this.entries.filter((entry) => !stopLast(entry)).reverse(), graceMs);
    await this.terminate(this.entries.filter(stopLast).reverse(), graceMs);
  }

  /** SIGKILL to every process still running: for the supervisor's own exit, whatever caused it. */
  kill(): void {
    for (const { child } of this.entries) if (child && isRunning(child)) child.kill('SIGKILL');
  }

  private async terminate(entries: (typeof this.entries)[number][], graceMs: number): Promise<void> {
    const running = () => entries.map((entry) => entry.child).filter((child): child is ChildProcess => !!child && isRunning(child));
    for (const child of running()) child.kill('SIGTERM');
    const deadline = Date.now() + graceMs;
    while (running().length > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    for (const child of running()) child.kill('SIGKILL');
  }
}

function isRunning(child: ChildProcess): boolean {
  return child.pid !== undefined && child.exitCode === null && child.signalCode === null;
}
