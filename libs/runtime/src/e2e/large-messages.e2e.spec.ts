import { generateAssetId } from '@funnel/contracts';
import { type Deployment, describeInBothModes, distributedDeployment } from './harness';

/**
 * Answers and requests larger than a NATS message (1 MB by default) in distributed mode: once
 * each of these killed the service that answered. The long listings run in distributed mode only
 * (standalone mode has no message to split); the rest in both.
 */
async function inParallel<T>(count: number, concurrency: number, work: (i: number) => Promise<T>): Promise<T[]> {
  const results: T[] = new Array(count);
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        const i = next++;
        results[i] = await work(i);
      }
    }),
  );
  return results;
}

/** Writes in flight at once: enough to load the services, few enough that none waits out its RPC timeout behind the others. */
const CONCURRENCY = 16;
const MAX_ATTEMPTS = 4;

/**
 * The writes that fill the listings. On a busy machine a write can wait out its RPC timeout (503,
 * the service did not answer in time): it is sent again, up to MAX_ATTEMPTS times, and every retry is
 * counted and reported, so a write that never succeeds still fails the test. A retried create that
 * finds its id taken (409) was stored by the attempt whose answer was lost: the listing's exact
 * count checks that nothing was stored twice.
 */
async function fill(count: number, write: (i: number) => Promise<{ status: number }>): Promise<number[]> {
  let retried = 0;
  const statuses = await inParallel(count, CONCURRENCY, async (i) => {
    for (let attempt = 1; ; attempt++) {
      const { status } = await write(i);
      if (attempt > 1 && status === 409) return 200;
      if (status !== 503 || attempt === MAX_ATTEMPTS) return status;
      retried++;
      await new Promise((resolve) => setTimeout(resolve, 100 * attempt));
    }
  });
  if (retried > 0) process.stderr.write(`large-messages: ${retried} of ${count} writes answered 503 and were sent again\n`);
  return statuses;
}

describe('large answers in distributed mode', () => {
  let deployment: Deployment | undefined;
  const d = () => deployment as Deployment;
  beforeAll(async () => {
    // Thousands of saves from one key: above the default per-credential rate limit, which is not what is tested here.
    // The largest RPC timeout (5 s, not the suites' 2 s): a 2 MB listing on a busy 2-core machine answers, as it must.
    deployment = await distributedDeployment({ RPC_TIMEOUT_MS: '5000' });
  });
  afterAll(async () => {
    // Six apps and NATS, after 14,000 writes: more than the default minute on a busy machine.
    await deployment?.cleanup();
  }, 120_000);

  it('lists 10,000 visitor tags (about 2 MB) and keeps answering', async () => {
    const { api } = d();
    // The same id on a retry: a save whose answer was lost is not a second tag.
    const ids = Array.from({ length: 10_000 }, () => generateAssetId());
    const statuses = await fill(10_000, (i) => api.call('POST', '/visitortag/save/', { body: { idTag: ids[i], tagName: `tag ${i} ${'n'.repeat(100)}` } }));
    expect(statuses.filter((status) => status !== 200)).toEqual([]);
    for (let round = 0; round < 2; round++) {
      const listing = await api.call('GET', '/visitortag/list/');
      expect(listing.status).toBe(200);
      expect(listing.body).toHaveLength(10_000);
      expect(listing.text.length).toBeGreaterThan(1024 * 1024);
    }
  }, 480_000);

  it('lists 4,000 API keys', async () => {
    const { api } = d();
    const statuses = await fill(4_000, (i) =>
      api.call('POST', '/apikeys/generate/', { body: { name: `key ${i} ${'k'.repeat(100)}`, permissions: ['assets:read'] } }),
    );
    expect(statuses.filter((status) => status !== 200)).toEqual([]);
    const listing = await api.call('GET', '/apikeys/list/');
    expect(listing.status).toBe(200);
    expect(listing.body.length).toBeGreaterThanOrEqual(4_000);
    expect(listing.text.length).toBeGreaterThan(1024 * 1024);
  }, 480_000);
});

describeInBothModes('large requests', (d) => {
  it('answers a 128 KB dry run with 10,000 unknown visitor keys with a short 400, and the next one normally', async () => {
    const { api } = d();
    const visitor = Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`unknownKey${i}`, 'x']));
    const res = await api.call('POST', '/logicscripts/evaluate', { body: { code: 'return "default"', visitor } });
    expect(res.status).toBe(400);
    expect(res.text.length).toBeLessThan(8 * 1024);
    const next = await api.call('POST', '/logicscripts/evaluate', { body: { code: 'return "default"', visitor: {} } });
    expect(next.status).toBe(200);
  });

  it('takes a request near the 1 MiB body limit', async () => {
    const { api } = d();
    const idTag = generateAssetId();
    // Unknown fields are dropped: the request is large, what is stored is not.
    const res = await api.call('POST', '/visitortag/save/', { body: { idTag, tagName: 'big request', notes: 'x'.repeat(1_000_000) } });
    expect(res.status).toBe(200);
    const found = await api.call('GET', `/visitortag/find/byId/?idTag=${idTag}`);
    expect(found.body).toMatchObject({ idTag, tagName: 'big request' });
  });
});
