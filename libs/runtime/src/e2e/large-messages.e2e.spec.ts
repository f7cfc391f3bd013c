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

describe('large answers in distributed mode', () => {
  let deployment: Deployment | undefined;
  const d = () => deployment as Deployment;
  beforeAll(async () => {
    // Thousands of saves from one key: above the default per-credential rate limit, which is not what is tested here.
    deployment = await distributedDeployment();
  });
  afterAll(async () => {
    await deployment?.cleanup();
  });

  it('lists 10,000 visitor tags (about 2 MB) and keeps answering', async () => {
    const { api } = d();
    const statuses = await inParallel(10_000, 32, async (i) => {
      const res = await api.call('POST', '/visitortag/save/', { body: { idTag: generateAssetId(), tagName: `tag ${i} ${'n'.repeat(100)}` } });
      return res.status;
    });
    expect(statuses.filter((status) => status !== 200)).toEqual([]);
    for (let round = 0; round < 2; round++) {
      const listing = await api.call('GET', '/visitortag/list/');
      expect(listing.status).toBe(200);
      expect(listing.body).toHaveLength(10_000);
      expect(listing.text.length).toBeGreaterThan(1024 * 1024);
    }
  }, 240_000);

  it('lists 4,000 API keys', async () => {
    const { api } = d();
    const statuses = await inParallel(4_000, 32, async (i) => {
      const res = await api.call('POST', '/apikeys/generate/', { body: { name: `key ${i} ${'k'.repeat(100)}`, permissions: ['assets:read'] } });
      return res.status;
    });
    expect(statuses.filter((status) => status !== 200)).toEqual([]);
    const listing = await api.call('GET', '/apikeys/list/');
    expect(listing.status).toBe(200);
    expect(listing.body.length).toBeGreaterThanOrEqual(4_000);
    expect(listing.text.length).toBeGreaterThan(1024 * 1024);
  }, 240_000);
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
