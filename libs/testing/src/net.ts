import { connect, createServer } from 'node:net';

/** A TCP port that was free a moment ago (bind port 0, read it, release it). */
export function freePort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, host, () => {
      const address = server.address();
      server.close(() => (address && typeof address === 'object' ? resolve(address.port) : reject(new Error('no port assigned'))));
    });
  });
}

export interface WaitOptions {
  timeoutMs?: number;
  intervalMs?: number;
  /** Stops waiting early, e.g. when the process that should answer has exited. */
  isAborted?: () => boolean;
}

/** Polls `condition` until it holds; rejects when aborted or after `timeoutMs` (10 s). */
export async function waitUntil(condition: () => Promise<boolean>, description: string, options: WaitOptions = {}): Promise<void> {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (options.isAborted?.()) throw new Error(`gave up waiting until ${description}`);
    if (Date.now() > deadline) throw new Error(`not ${description} within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 50));
  }
}

/** Retries `attempt` until it resolves (an assertion that passes, a request that succeeds), for recovery after an outage. */
export async function eventually<T>(attempt: () => Promise<T>, withinMs: number, intervalMs = 200): Promise<T> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    try {
      return await attempt();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, intervalMs));
    }
  }
}

/**
 * Connects to host:port and resolves true once the first bytes received start with `greeting`
 * (false on refusal, silence for a second, or anything else). With an empty greeting, accepting
 * the connection is enough.
 */
export function greets(port: number, host: string, greeting = ''): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ port, host });
    const finish = (result: boolean) => {
      socket.destroy();
      resolve(result);
    };
    socket.setTimeout(1000, () => finish(false));
    socket.once('error', () => finish(false));
    if (greeting === '') socket.once('connect', () => finish(true));
    else socket.once('data', (chunk: Buffer) => finish(chunk.toString('latin1').startsWith(greeting)));
  });
}
