import { Subject } from 'rxjs';
import { readinessReport, transportReadinessCheck } from './readiness';

describe('readinessReport', () => {
  it('is ready when every check passes, with each result by name', async () => {
    const report = await readinessReport([
      { name: 'nats', check: () => true },
      { name: 'eventstore', check: async () => true },
    ]);
    expect(report).toEqual({ ready: true, checks: { nats: true, eventstore: true } });
  });

  it('is not ready when one check fails, and still reports the others', async () => {
    const report = await readinessReport([
      { name: 'nats', check: () => true },
      { name: 'readstore', check: async () => false },
    ]);
    expect(report).toEqual({ ready: false, checks: { nats: true, readstore: false } });
  });

  it('counts a throwing or rejecting check as not ready', async () => {
    const report = await readinessReport([
      {
        name: 'throws',
        check: () => {
          throw new Error('down');
        },
      },
      { name: 'rejects', check: () => Promise.reject(new Error('down')) },
    ]);
    expect(report).toEqual({ ready: false, checks: { throws: false, rejects: false } });
  });

  it('counts a hanging check as not ready once the timeout passes', async () => {
    const startedAt = Date.now();
    const report = await readinessReport([{ name: 'hangs', check: () => new Promise<boolean>(() => undefined) }], 50);
    expect(report).toEqual({ ready: false, checks: { hangs: false } });
    expect(Date.now() - startedAt).toBeLessThan(1000);
  });

  it('counts only a literal true as passing', async () => {
    const report = await readinessReport([{ name: 'truthy', check: () => 'yes' as unknown as boolean }]);
    expect(report.ready).toBe(false);
  });

  it('is ready with no checks', async () => {
    expect(await readinessReport([])).toEqual({ ready: true, checks: {} });
  });
});

describe('transportReadinessCheck', () => {
  it('follows the transport status: ready only while connected', async () => {
    const status = new Subject<string>();
    const check = transportReadinessCheck('nats', { status });
    expect(await readinessReport([check])).toEqual({ ready: false, checks: { nats: false } });
    status.next('connected');
    expect(await check.check()).toBe(true);
    status.next('disconnected');
    expect(await check.check()).toBe(false);
    status.next('reconnecting');
    expect(await check.check()).toBe(false);
    status.next('connected');
    expect(await check.check()).toBe(true);
    check.dispose();
    expect(status.observed).toBe(false);
  });
});
