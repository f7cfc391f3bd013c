import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import {
  WebhookVerificationError,
  generateSigningSecret,
  isSigningSecret,
  newWebhookId,
  signWebhook,
  standardWebhookHeaders,
  verifyWebhook,
} from './standard-webhooks';

// The vector of the Standard Webhooks reference libraries ("sign function works").
const VECTOR = {
  secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  id: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
  timestamp: 1614265330,
  body: '{"test": 2432232314}',
  signature: 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
};

const vectorHeaders = (signature = VECTOR.signature) => ({
  'webhook-id': VECTOR.id,
  'webhook-timestamp': String(VECTOR.timestamp),
  'webhook-signature': signature,
});

const verificationError = (run: () => void): string => {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(WebhookVerificationError);
    return (error as Error).message;
  }
  throw new Error('verification passed');
};

describe('signWebhook', () => {
  it('gives the reference libraries’ signature for their test vector', () => {
    expect(signWebhook(VECTOR.secret, VECTOR.id, VECTOR.timestamp, VECTOR.body)).toBe(VECTOR.signature);
    expect(signWebhook(VECTOR.secret, VECTOR.id, VECTOR.timestamp, Buffer.from(VECTOR.body))).toBe(VECTOR.signature);
  });

  it('is HMAC-SHA256 of "id.timestamp.body" under the base64-decoded key, for any secret and body', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 24, maxLength: 64 }), fc.string(), fc.integer({ min: 0, max: 2 ** 40 }), (key, body, timestamp) => {
        const secret = `whsec_${Buffer.from(key).toString('base64')}`;
        const expected = createHmac('sha256', key).update(`msg_1.${timestamp}.${body}`).digest('base64');
        expect(signWebhook(secret, 'msg_1', timestamp, body)).toBe(`v1,${expected}`);
      }),
    );
  });

  it.each([
    'MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
    'whsec_',
    'whsec_not base64!',
    `whsec_${Buffer.alloc(16).toString('base64')}`,
    `whsec_${Buffer.alloc(65).toString('base64')}`,
  ])('refuses the malformed secret %j without showing it', (secret) => {
    expect(isSigningSecret(secret)).toBe(false);
    let message = '';
    try {
      signWebhook(secret, 'msg_1', 1, 'x');
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(/^a signing secret is whsec_ followed by the base64 of 24 to 64 bytes$/);
  });

  it('refuses a timestamp that is not whole seconds', () => {
    expect(() => signWebhook(VECTOR.secret, 'msg_1', 1.5, 'x')).toThrow(/whole Unix seconds/);
  });
});

describe('generateSigningSecret and newWebhookId', () => {
  it('makes whsec_ secrets of 32 random bytes, each different', () => {
    const secrets = Array.from({ length: 20 }, generateSigningSecret);
    for (const secret of secrets) {
      expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
      expect(Buffer.from(secret.slice(6), 'base64')).toHaveLength(32);
      expect(isSigningSecret(secret)).toBe(true);
    }
    expect(new Set(secrets).size).toBe(20);
  });

  it('makes msg_ ids', () => {
    expect(newWebhookId()).toMatch(/^msg_[A-Za-z0-9_-]{22}$/);
    expect(newWebhookId()).not.toBe(newWebhookId());
  });
});

describe('standardWebhookHeaders', () => {
  it('signs a message sent now with a new id', () => {
    const secret = generateSigningSecret();
    const before = Math.floor(Date.now() / 1000);
    const headers = standardWebhookHeaders(secret, '{"a":1}');
    expect(headers['webhook-id']).toMatch(/^msg_/);
    expect(Number(headers['webhook-timestamp'])).toBeGreaterThanOrEqual(before);
    expect(headers['webhook-signature']).toBe(signWebhook(secret, headers['webhook-id'], Number(headers['webhook-timestamp']), '{"a":1}'));
    expect(() => verifyWebhook(secret, headers, '{"a":1}')).not.toThrow();
  });

  it('uses the given id and timestamp', () => {
    expect(standardWebhookHeaders(VECTOR.secret, VECTOR.body, { id: VECTOR.id, timestampSeconds: VECTOR.timestamp })).toEqual(vectorHeaders());
  });
});

describe('verifyWebhook', () => {
  const verify = (headers: Record<string, string | string[] | undefined>, body = VECTOR.body, now = VECTOR.timestamp) =>
    verifyWebhook(VECTOR.secret, headers, body, 300, now);

  it('accepts the reference vector, with header names in any case, as Node or fetch headers', () => {
    expect(() => verify(vectorHeaders())).not.toThrow();
    expect(() => verify({ 'Webhook-Id': VECTOR.id, 'WEBHOOK-TIMESTAMP': String(VECTOR.timestamp), 'Webhook-Signature': VECTOR.signature })).not.toThrow();
    expect(() => verifyWebhook(VECTOR.secret, new Headers(vectorHeaders()), VECTOR.body, 300, VECTOR.timestamp)).not.toThrow();
  });

  it('accepts any matching v1 signature among several (secret rotation)', () => {
    const other = 'v1,Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc=';
    expect(() => verify(vectorHeaders(`${other} v2,${VECTOR.signature.slice(3)} ${VECTOR.signature} ${other}`))).not.toThrow();
  });

  it('refuses a changed body, id or timestamp', () => {
    expect(verificationError(() => verify(vectorHeaders(), '{"test": 2432232315}'))).toBe('no matching signature');
    expect(verificationError(() => verify({ ...vectorHeaders(), 'webhook-id': 'msg_other' }))).toBe('no matching signature');
    expect(verificationError(() => verify({ ...vectorHeaders(), 'webhook-timestamp': String(VECTOR.timestamp + 1) }))).toBe('no matching signature');
  });

  it('refuses another secret', () => {
    expect(verificationError(() => verifyWebhook(generateSigningSecret(), vectorHeaders(), VECTOR.body, 300, VECTOR.timestamp))).toBe('no matching signature');
  });

  it.each([
    ['no v1 signature', 'v2,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE='],
    ['an empty signature', 'v1,'],
    ['a cut signature', VECTOR.signature.slice(0, 8)],
    ['a signature that is not base64', 'v1,dawfeoifkpqwoekfpqoekf'],
  ])('refuses %s', (_, signature) => {
    expect(verificationError(() => verify(vectorHeaders(signature)))).toBe('no matching signature');
  });

  it.each(['webhook-id', 'webhook-timestamp', 'webhook-signature'])('refuses a message without %s', (name) => {
    const headers: Record<string, string | undefined> = vectorHeaders();
    delete headers[name];
    expect(verificationError(() => verify(headers))).toBe('missing webhook-id, webhook-timestamp or webhook-signature header');
  });

  it('refuses a timestamp that is not Unix seconds', () => {
    expect(verificationError(() => verify({ ...vectorHeaders(), 'webhook-timestamp': 'hello' }))).toBe('webhook-timestamp is not Unix seconds');
    expect(verificationError(() => verify({ ...vectorHeaders(), 'webhook-timestamp': '1614265330.5' }))).toBe('webhook-timestamp is not Unix seconds');
  });

  it('accepts a timestamp within the tolerance either way and refuses one outside it (replays)', () => {
    expect(() => verify(vectorHeaders(), VECTOR.body, VECTOR.timestamp + 300)).not.toThrow();
    expect(() => verify(vectorHeaders(), VECTOR.body, VECTOR.timestamp - 300)).not.toThrow();
    expect(verificationError(() => verify(vectorHeaders(), VECTOR.body, VECTOR.timestamp + 301))).toBe('webhook-timestamp is outside the tolerance');
    expect(verificationError(() => verify(vectorHeaders(), VECTOR.body, VECTOR.timestamp - 301))).toBe('webhook-timestamp is outside the tolerance');
  });

  it('judges against the current time by default', () => {
    expect(verificationError(() => verifyWebhook(VECTOR.secret, vectorHeaders(), VECTOR.body))).toBe('webhook-timestamp is outside the tolerance');
  });
});
