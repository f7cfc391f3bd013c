import { ServiceError } from '@funnel/contracts';
import type { ServiceClient } from '../rpc/service-client';
import { servicePingCheck } from './ping';

/** A client whose pings the test answers one by one. */
function manualClient() {
  const pings: { subject: string; answer: (ok: boolean) => void }[] = [];
  const client = {
    request: (subject: string) =>
      new Promise((resolve, reject) =>
        pings.push({ subject, answer: (ok) => (ok ? resolve({ service: 'assets', status: 'ok' }) : reject(ServiceError.unavailable())) }),
      ),
    subscribe: () => () => undefined,
    close: async () => undefined,
  } as unknown as ServiceClient;
  return { client, pings };
}

describe('servicePingCheck', () => {
  it('is named after the service and passes while <service>.ping is answered', async () => {
    const { client, pings } = manualClient();
    let now = 0;
    const check = servicePingCheck(client, 'assets', { cacheMs: 1000, clock: () => now });
    expect(check.name).toBe('assets');

    const first = check.check();
    expect(pings.map((p) => p.subject)).toEqual(['assets.ping']);
    pings[0].answer(true);
    expect(await first).toBe(true);

    now = 1000;
    const second = check.check();
    pings[1].answer(false);
    expect(await second).toBe(false);
  });

  it('keeps an answer for cacheMs, and lets concurrent checks share one ping', async () => {
    const { client, pings } = manualClient();
    let now = 0;
    const check = servicePingCheck(client, 'assets', { cacheMs: 1000, clock: () => now });
    const concurrent = [check.check(), check.check()];
    expect(pings).toHaveLength(1);
    pings[0].answer(true);
    expect(await Promise.all(concurrent)).toEqual([true, true]);

    now = 999;
    expect(await check.check()).toBe(true);
    expect(pings).toHaveLength(1);
    now = 1000;
    void check.check();
    expect(pings).toHaveLength(2);
  });
});
