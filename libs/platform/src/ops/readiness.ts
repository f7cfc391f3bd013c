import type { Observable } from 'rxjs';

export type ReadinessCheck = { name: string; check: () => Promise<boolean> | boolean };

export interface ReadinessReport {
  ready: boolean;
  checks: Record<string, boolean>;
}

/** A probe must answer quickly; a check that hangs counts as not ready. */
export const READINESS_CHECK_TIMEOUT_MS = 2000;

/** Runs every check concurrently; a check that throws, rejects or hangs counts as false. */
export async function readinessReport(checks: readonly ReadinessCheck[], timeoutMs: number = READINESS_CHECK_TIMEOUT_MS): Promise<ReadinessReport> {
  const results = await Promise.all(checks.map((check) => runCheck(check, timeoutMs)));
  const report: ReadinessReport = { ready: results.every(Boolean), checks: {} };
  checks.forEach((check, index) => (report.checks[check.name] = results[index]));
  return report;
}

async function runCheck(readiness: ReadinessCheck, timeoutMs: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs)));
  try {
    const outcome = Promise.resolve().then(() => readiness.check());
    return (await Promise.race([outcome, timedOut])) === true;
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}

/** Anything that reports its connection state the way Nest transports do (ClientProxy, Server). */
export interface StatusReporter {
  readonly status: Observable<string>;
}

/**
 * Ready while the transport's last reported status is `connected` (ClientNats, ServerNats, and the
 * in-process transport report it). A ClientNats connects on first use, so call `connect()` at start
 * for the gateway to become ready. `dispose()` stops following the status.
 */
export function transportReadinessCheck(name: string, transport: StatusReporter): ReadinessCheck & { dispose(): void } {
  let connected = false;
  const subscription = transport.status.subscribe((status) => (connected = status === 'connected'));
  return { name, check: () => connected, dispose: () => subscription.unsubscribe() };
}
