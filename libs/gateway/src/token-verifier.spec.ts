import { type CryptoKey, type JWK, SignJWT, exportJWK, generateKeyPair } from 'jose';
import { ACCESS_TOKEN, IdentitySubjects } from '@funnel/contracts';
import { ServiceClient } from '@funnel/platform';
import { TokenVerifier } from './token-verifier';

interface TestKey {
  kid: string;
  privateKey: CryptoKey;
  publicJwk: JWK;
}

async function newKey(kid: string): Promise<TestKey> {
  const { privateKey, publicKey } = await generateKeyPair('ES256');
  return { kid, privateKey: privateKey as CryptoKey, publicJwk: { ...(await exportJWK(publicKey)), kid, alg: 'ES256', use: 'sig' } };
}

function sign(key: TestKey, nowSeconds: number, overrides: { typ?: string; ttl?: number; issuedAheadSeconds?: number } = {}) {
  const issuedAt = nowSeconds + (overrides.issuedAheadSeconds ?? 0);
  return new SignJWT({ acc: 'A1', perms: ['assets:read'] })
    .setProtectedHeader({ alg: 'ES256', kid: key.kid, typ: overrides.typ ?? ACCESS_TOKEN.type })
    .setIssuer(ACCESS_TOKEN.issuer)
    .setAudience(ACCESS_TOKEN.audience)
    .setSubject('U1')
    .setIssuedAt(issuedAt)
    .setExpirationTime(issuedAt + (overrides.ttl ?? 3600))
    .sign(key.privateKey);
}

describe('TokenVerifier', () => {
  let published: TestKey[];
  let fetches: number;
  let now: number;
  const client: ServiceClient = {
    request: async <T>(subject: string) => {
      expect(subject).toBe(IdentitySubjects.signingKeys);
      fetches++;
      return { keys: published.map((k) => k.publicJwk) } as T;
    },
    subscribe: () => () => undefined,
    close: async () => undefined,
  } as unknown as ServiceClient;

  beforeEach(() => {
    fetches = 0;
    now = Date.UTC(2026, 10, 23);
  });

  it('verifies locally: one key-set fetch for many tokens', async () => {
    published = [await newKey('k1')];
    const verifier = new TokenVerifier(client, () => now);
    for (let i = 0; i < 5; i++)
      await expect(verifier.verify(await sign(published[0], now / 1000), 'c')).resolves.toEqual({
        accountId: 'A1',
        userId: 'U1',
        permissions: ['assets:read'],
      });
    expect(fetches).toBe(1);
  });

  it('fetches the key set again when a token names an unknown key (rotation), at most every few seconds', async () => {
    const k1 = await newKey('k1');
    const k2 = await newKey('k2');
    published = [k1];
    const verifier = new TokenVerifier(client, () => now);
    await verifier.verify(await sign(k1, now / 1000), 'c');
    published = [k2, k1];
    // Too soon after the first fetch: the unknown key is refused without asking again.
    await expect(verifier.verify(await sign(k2, now / 1000), 'c')).rejects.toMatchObject({ status: 401 });
    expect(fetches).toBe(1);
    now += 6000;
    await expect(verifier.verify(await sign(k2, now / 1000), 'c')).resolves.toMatchObject({ userId: 'U1' });
    expect(fetches).toBe(2);
    await expect(verifier.verify(await sign(k1, now / 1000), 'c')).resolves.toMatchObject({ userId: 'U1' });
    // A key nobody publishes stays refused.
    now += 6000;
    await expect(verifier.verify(await sign(await newKey('k9'), now / 1000), 'c')).rejects.toMatchObject({ status: 401 });
  });

  it('refuses a token meant to live longer than the configured access-token lifetime', async () => {
    published = [await newKey('k1')];
    const verifier = new TokenVerifier(client, () => now, 3600);
    await expect(verifier.verify(await sign(published[0], now / 1000, { ttl: 3600 }), 'c')).resolves.toMatchObject({ userId: 'U1' });
    await expect(verifier.verify(await sign(published[0], now / 1000, { ttl: 3601 }), 'c')).rejects.toMatchObject({ status: 401 });
    await expect(verifier.verify(await sign(published[0], now / 1000, { ttl: 365 * 24 * 3600 }), 'c')).rejects.toMatchObject({ status: 401 });
  });

  it('refuses expired tokens, ID tokens and tokens signed by another key under a known kid', async () => {
    published = [await newKey('k1')];
    const verifier = new TokenVerifier(client, () => now);
    const token = await sign(published[0], now / 1000, { ttl: 60 });
    await expect(verifier.verify(token, 'c')).resolves.toBeDefined();
    now += 61_000;
    await expect(verifier.verify(token, 'c')).rejects.toMatchObject({ status: 401, message: expect.stringContaining('expired') });
    await expect(verifier.verify(await sign(published[0], now / 1000, { typ: 'JWT' }), 'c')).rejects.toMatchObject({ status: 401 });
    const impostor = { ...(await newKey('k1')) };
    await expect(verifier.verify(await sign(impostor, now / 1000), 'c')).rejects.toMatchObject({ status: 401 });
  });

  it('given a token issued more than a minute ahead of the clock, then it is refused; within the clock skew, accepted', async () => {
    published = [await newKey('k1')];
    const verifier = new TokenVerifier(client, () => now, 3600);
    await expect(verifier.verify(await sign(published[0], now / 1000, { issuedAheadSeconds: 60 }), 'c')).resolves.toMatchObject({ userId: 'U1' });
    await expect(verifier.verify(await sign(published[0], now / 1000, { issuedAheadSeconds: 61 }), 'c')).rejects.toMatchObject({ status: 401 });
    await expect(verifier.verify(await sign(published[0], now / 1000, { issuedAheadSeconds: 24 * 3600 }), 'c')).rejects.toMatchObject({
      status: 401,
      message: 'not authorized',
    });
  });
});
