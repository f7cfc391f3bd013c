import { randomBytes } from 'node:crypto';
import { InvalidSessionKeyError, SESSION_CAPS } from '@funnel/edge-domain';
import type { RoutingSession } from '@funnel/routing';
import { type SessionStore, SessionStoreClosedError } from './session-store';

export interface SessionStoreContractBackend {
  /**
   * A new store instance over this backend's backing store, fresh for the test: embedded, the same
   * file; KV, a new connection to the same bucket (as another edge replica has).
   */
  open(options: { ttlMs: number }): Promise<SessionStore>;
  /** Drops what the backend made (files, buckets, connections); stores opened are closed first. */
  cleanup(): Promise<void>;
}

const LONG_TTL_MS = 60 * 60_000;
/** The TTL of the expiry test: short, so it waits little; its assertions compare two sessions' expiries, not times. */
const SHORT_TTL_MS = 2000;

/** Polls `check` until it holds (every 50 ms, up to `timeoutMs`). */
export async function waitUntil(check: () => Promise<boolean>, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** A session of the engine's shape; a fresh visitor id unless given. */
export function sampleSession(overrides: Partial<RoutingSession> = {}): RoutingSession {
  return {
    visitorId: `V${randomBytes(6).toString('hex').slice(0, 11)}`,
    startedAt: Date.UTC(2026, 0, 1, 12),
    idFunnel: 'F00000000001',
    idTrafficSource: 'T00000000001',
    currentNode: 'N00000000001',
    lastHitId: 'H00000000001',
    currentPage: 'P00000000001',
    trackingFields: { c1: 'spring', c2: 'banner-7' },
    cost: '0.35',
    tags: ['TAG000000001'],
    sticky: { N00000000002: 'C00000000001' },
    urlBuffer: { gclid: 'Cj0KCQ-xyz', utm_source: 'news', 'with space': 'é ✓' },
    ...overrides,
  };
}

/**
 * The behaviour every SessionStore adapter must show. Call it from an adapter's spec file; it
 * touches jest's globals only when called. `backendFactory` makes a fresh backend per test.
 */
export function describeSessionStoreContract(adapterName: string, backendFactory: () => Promise<SessionStoreContractBackend>): void {
  describe(`SessionStore contract: ${adapterName}`, () => {
    let backend: SessionStoreContractBackend;
    const opened: SessionStore[] = [];
    const open = async (ttlMs = LONG_TTL_MS) => {
      const store = await backend.open({ ttlMs });
      opened.push(store);
      return store;
    };

    beforeEach(async () => {
      backend = await backendFactory();
    });
    afterEach(async () => {
      await Promise.all(opened.splice(0).map((store) => store.close()));
      await backend.cleanup();
    });

    it('answers no session for a visitor it has not seen, and the session put after a step', async () => {
      const store = await open();
      const session = sampleSession();
      expect(await store.get('ACC1', session.visitorId)).toBeNull();
      await store.put('ACC1', session);
      expect(await store.get('ACC1', session.visitorId)).toEqual(session);
    });

    it('keeps the latest put of a visitor', async () => {
      const store = await open();
      const first = sampleSession();
      await store.put('ACC1', first);
      const next = {
        ...first,
        currentNode: 'N00000000009',
        lastHitId: 'H00000000009',
        tags: ['TAG000000001', 'TAG000000002'],
        urlBuffer: { ...first.urlBuffer, sub: '7' },
      };
      await store.put('ACC1', next);
      expect(await store.get('ACC1', first.visitorId)).toEqual(next);
    });

    it("never answers one account's session to another account, even for the same visitor id", async () => {
      const store = await open();
      const ofA = sampleSession();
      await store.put('ACCA', ofA);
      expect(await store.get('ACCB', ofA.visitorId)).toBeNull();
      const ofB = { ...ofA, idFunnel: 'F0000000000B', currentNode: 'N0000000000B' };
      await store.put('ACCB', ofB);
      expect(await store.get('ACCA', ofA.visitorId)).toEqual(ofA);
      expect(await store.get('ACCB', ofA.visitorId)).toEqual(ofB);
    });

    it('answers no session for ids a visitor could send that cannot name one, and refuses to store under them', async () => {
      const store = await open();
      const session = sampleSession({ visitorId: 'V1' });
      await store.put('ACC1', session);
      // A dot would make `<account>.<visitor>` ambiguous: account "ACC1.V1" or visitor "ACC1.V1" must reach nothing.
      for (const [accountId, visitorId] of [
        ['ACC1', 'ACC1.V1'],
        ['ACC1', '*'],
        ['ACC1', '>'],
        ['ACC1', 'V1.>'],
        ['ACC1', ''],
        ['ACC1', 'x'.repeat(65)],
        ['ACC1', '../V1'],
        ['ACC1', 'V1 '],
        ['ACC1.V1', 'V1'],
        ['', 'V1'],
        ['*', 'V1'],
      ])
        expect(await store.get(accountId, visitorId)).toBeNull();
      await expect(store.put('ACC1', { ...session, visitorId: 'V1.x' })).rejects.toBeInstanceOf(InvalidSessionKeyError);
      await expect(store.put('ACC.1', session)).rejects.toBeInstanceOf(InvalidSessionKeyError);
      await expect(store.put('ACC1', { ...session, visitorId: 'x'.repeat(65) })).rejects.toBeInstanceOf(InvalidSessionKeyError);
      expect(await store.get('ACC1', 'V1')).toEqual(session);
    });

    it('keeps a session within its caps however many URL parameters and tags a visitor piles up', async () => {
      const store = await open();
      const urlBuffer = Object.fromEntries(Array.from({ length: 500 }, (_, i) => [`p${i}`, 'v'.repeat(100)]));
      const tags = Array.from({ length: 300 }, (_, i) => `TAG${String(i).padStart(9, '0')}`);
      const session = sampleSession({ urlBuffer, tags });
      await store.put('ACC1', session);
      const read = (await store.get('ACC1', session.visitorId))!;
      expect(Object.keys(read.urlBuffer).length).toBeLessThanOrEqual(SESSION_CAPS.urlBuffer.maxEntries);
      expect(read.urlBuffer['p0']).toBe('v'.repeat(100));
      expect(read.tags).toHaveLength(SESSION_CAPS.tags.maxEntries);
      expect(read.tags[0]).toBe('TAG000000000');
    });

    it('answers the sessions of another instance (a replica, or this one after a restart)', async () => {
      const first = await open();
      const sessions = Array.from({ length: 50 }, () => sampleSession());
      await Promise.all(sessions.map((session) => first.put('ACC1', session)));
      await first.close();
      const second = await open();
      for (const session of sessions) expect(await second.get('ACC1', session.visitorId)).toEqual(session);
    });

    it('refuses every get and put once closed, and keeps nothing of a put refused', async () => {
      const store = await open();
      const kept = sampleSession();
      await store.put('ACC1', kept);
      await store.close();
      const refused = sampleSession();
      await expect(store.put('ACC1', refused)).rejects.toBeInstanceOf(SessionStoreClosedError);
      await expect(store.put('ACC1', { ...kept, currentNode: 'N00000000009' })).rejects.toBeInstanceOf(SessionStoreClosedError);
      await expect(store.get('ACC1', kept.visitorId)).rejects.toBeInstanceOf(SessionStoreClosedError);
      // Even a get that could name no session is refused rather than answered.
      await expect(store.get('ACC1', 'V1.>')).rejects.toBeInstanceOf(SessionStoreClosedError);
      await store.close();
      const next = await open();
      expect(await next.get('ACC1', refused.visitorId)).toBeNull();
      expect(await next.get('ACC1', kept.visitorId)).toEqual(kept);
    });

    it('refuses a put made while it closes, and writes the puts made before', async () => {
      const store = await open();
      const before = sampleSession();
      const written = store.put('ACC1', before);
      const closed = store.close();
      const during = sampleSession();
      await expect(store.put('ACC1', during)).rejects.toBeInstanceOf(SessionStoreClosedError);
      await written;
      await closed;
      const next = await open();
      expect(await next.get('ACC1', before.visitorId)).toEqual(before);
      expect(await next.get('ACC1', during.visitorId)).toBeNull();
    });

    it('drops a session its TTL after the last put, and a put renews it', async () => {
      const store = await open(SHORT_TTL_MS);
      const renewed = sampleSession();
      const left = sampleSession();
      await store.put('ACC1', renewed);
      await store.put('ACC1', left);
      await new Promise((resolve) => setTimeout(resolve, SHORT_TTL_MS / 2));
      await store.put('ACC1', { ...renewed, currentNode: 'N00000000007' });
      // The session not renewed goes first; the renewed one still lives then (it has half a TTL left).
      await waitUntil(async () => (await store.get('ACC1', left.visitorId)) === null, 'the session not renewed expires');
      expect(await store.get('ACC1', renewed.visitorId)).toMatchObject({ currentNode: 'N00000000007' });
      await waitUntil(async () => (await store.get('ACC1', renewed.visitorId)) === null, 'the renewed session expires');
    });
  });
}
