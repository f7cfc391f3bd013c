import { captureLogs } from '../logging/log-capture';
import { onShutdownSignals } from './shutdown';

/** Signals are delivered with process.emit: the listeners run, nothing is really sent to the process. */
describe('onShutdownSignals', () => {
  const disposers: Array<() => void> = [];
  afterEach(() => disposers.splice(0).forEach((dispose) => dispose()));

  function register(handler: () => Promise<void>, timeoutMs = 1000) {
    const exited = new Promise<number>((resolve) => disposers.push(onShutdownSignals(handler, { timeoutMs, exit: resolve, logger: captureLogs().logger })));
    return exited;
  }

  it('runs the handler once on SIGTERM, then exits 0', async () => {
    const handler = jest.fn(async () => undefined);
    const exited = register(handler);
    process.emit('SIGTERM', 'SIGTERM');
    process.emit('SIGINT', 'SIGINT');
    expect(await exited).toBe(0);
    expect(handler).toHaveBeenCalledTimes(1);
  });

  it('exits 1 when the handler fails', async () => {
    const exited = register(() => Promise.reject(new Error('drain failed')));
    process.emit('SIGINT', 'SIGINT');
    expect(await exited).toBe(1);
  });

  it('exits 1 when the handler outlives the hard timeout', async () => {
    const exited = register(() => new Promise<void>(() => undefined), 50);
    const startedAt = Date.now();
    process.emit('SIGTERM', 'SIGTERM');
    expect(await exited).toBe(1);
    expect(Date.now() - startedAt).toBeLessThan(1000);
  });

  it('stops listening once disposed', () => {
    const before = process.listenerCount('SIGTERM');
    const dispose = onShutdownSignals(async () => undefined, { exit: jest.fn() });
    expect(process.listenerCount('SIGTERM')).toBe(before + 1);
    dispose();
    expect(process.listenerCount('SIGTERM')).toBe(before);
  });
});
