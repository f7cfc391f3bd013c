import { Test } from '@nestjs/testing';
import { INestApplicationContext } from '@nestjs/common';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLocalJWKSet, decodeJwt, decodeProtectedHeader } from 'jose';
import { CallerContext, MfaChallenge, Session, verifyAccessToken } from '@funnel/contracts';
import { SqliteEventStore } from '@funnel/eventstore';
import { EmbeddedReadStore } from '@funnel/readstore';
import { otpCode } from '@funnel/identity-domain';
import { CapturedLogs, PinoNestLogger, captureLogs } from '@funnel/platform';
import { IdentityFeatureModule } from '../identity-feature.module';
import { IdentityService } from '../identity.service';
import { AUTH_SERVICE } from './auth.message.controller';
import { AuthService } from './auth.service';
import { IdentityKeys } from './identity-keys';
import { MAX_ACTIVE_REFRESH_TOKENS } from './refresh-tokens';

const HOUR = 3600_000;
const T0 = Date.UTC(2026, 10, 23, 12, 0, 0);

describe('authentication (identity feature on SQLite and the embedded read store, injected clock)', () => {
  let dir: string;
  let eventStore: SqliteEventStore;
  let app: INestApplicationContext | undefined;
  let auth: AuthService;
  let identity: IdentityService;
  let now: number;
  let slept: number[];
  let logs: CapturedLogs;

  async function boot(): Promise<void> {
    await app?.close();
    app = await Test.createTestingModule({
      imports: [
        IdentityFeatureModule.forRoot({
          eventStore,
          readStore: new EmbeddedReadStore(),
          auth: { keysFile: join(dir, 'keys.json'), clock: () => now, sleep: async (ms) => void slept.push(ms), logger: new PinoNestLogger(logs.logger) },
        }),
      ],
    }).compile();
    await app.init();
    auth = app.get(AUTH_SERVICE);
    identity = app.get(IdentityService);
  }

  async function newUser(email: string, password = 'a good password'): Promise<CallerContext> {
    const created = await identity.createUserWithAccount({ email, password });
    return { accountId: created.accountId, userId: created.userId, permissions: [], correlationId: 'test' };
  }

  const login = (username: string, password: string, extra: Record<string, unknown> = {}, address = '10.0.0.1') =>
    auth.login({ username, password, ...extra }, address);
  const failureOf = (promise: Promise<unknown>) =>
    promise.then(
      () => undefined,
      (error: unknown) => error,
    );

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'auth-spec-'));
    eventStore = new SqliteEventStore({ filename: join(dir, 'events.db') });
    now = T0;
    slept = [];
    logs = captureLogs('auth', 'info');
    await boot();
  });
  afterEach(async () => {
    await app?.close();
    await eventStore.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('logs in with the session shape of the spec: tokens, expiry 72 h ahead in Unix seconds, and the user', async () => {
    const caller = await newUser('Ann@Example.com');
    const session = (await login('ann@example.com', 'a good password')) as Session;
    expect(session.tokens.expires_at).toBe(T0 / 1000 + 72 * 3600);
    expect(session.tokens.refresh_token).toMatch(/^frt_/);
    expect(session.user).toEqual({
      user_id: caller.userId,
      permissions: expect.arrayContaining(['assets:read', 'keys:manage']),
      email: 'ann@example.com',
      email_verified: false,
      name: 'ann@example.com',
      nickname: 'ann',
      picture_url: '',
      updated_at: expect.any(Number),
    });
    const header = decodeProtectedHeader(session.tokens.access_token);
    expect(header).toMatchObject({ alg: 'ES256', typ: 'at+jwt', kid: expect.any(String) });
    expect(decodeJwt(session.tokens.access_token)).toMatchObject({ sub: caller.userId, acc: caller.accountId, exp: session.tokens.expires_at });
    expect(decodeJwt(session.tokens.id_token)).toMatchObject({ sub: caller.userId, email: 'ann@example.com', aud: 'funnel-client' });
    // Without a refresh token when asked not to issue one.
    expect(((await login('ann@example.com', 'a good password', { issue_refresh_token: false })) as Session).tokens.refresh_token).toBe('');
  });

  it('answers a wrong password and an unknown user with the same 401', async () => {
    await newUser('bob@example.com');
    const wrongPassword = await failureOf(login('bob@example.com', 'not it'));
    const unknownUser = await failureOf(login('nobody@example.com', 'not it'));
    expect(wrongPassword).toMatchObject({ status: 401 });
    expect(unknownUser).toMatchObject({ status: 401, message: (wrongPassword as Error).message });
    await expect(failureOf(login('', ''))).resolves.toMatchObject({ status: 400 });
    await expect(failureOf(auth.login({ username: 'bob@example.com', password: 'x', issue_refresh_token: 'yes' }, undefined))).resolves.toMatchObject({
      status: 400,
    });
  });

  it('slows repeated failures of a username from one address, then locks that pair, not the user elsewhere nor other users', async () => {
    await newUser('carol@example.com');
    await newUser('dave@example.com');
    for (let attempt = 1; attempt <= 10; attempt++) {
      await expect(failureOf(login('carol@example.com', `wrong ${attempt}`))).resolves.toMatchObject({ status: 401 });
    }
    // No delay for the first few failures, then growing delays.
    expect(slept.slice(0, 4)).toEqual([0, 0, 0, 0]);
    expect(slept.slice(4)).toEqual([125, 250, 500, 1000, 1000, 1000]);
    // Locked from that address: even the right password is refused, with a retry time.
    const locked = await failureOf(login('carol@example.com', 'a good password'));
    expect(locked).toMatchObject({ status: 429, code: 'AUTH.TOO_MANY_ATTEMPTS', retryAfterSeconds: 900 });
    // The same user from another address is not affected: nobody can lock a user out from elsewhere.
    await expect(login('carol@example.com', 'a good password', {}, '10.0.0.2')).resolves.toHaveProperty('tokens');
    // Another user from the same address logs in.
    await expect(login('dave@example.com', 'a good password')).resolves.toHaveProperty('tokens');
    // After the lock, the right password works from the first address, and a success clears its count.
    now += 15 * 60_000 + 1;
    await expect(login('carol@example.com', 'a good password')).resolves.toHaveProperty('tokens');
    slept.length = 0;
    await failureOf(login('carol@example.com', 'wrong again'));
    expect(slept).toEqual([0]);
  });

  it('logs failed logins and lockouts at warn, without the password or the username in clear', async () => {
    const erin = await newUser('erin.w@example.com');
    for (let attempt = 1; attempt <= 11; attempt++) await failureOf(login('erin.w@example.com', `secret-guess-${attempt}`, {}, '10.7.7.7'));
    const warnings = logs.entries.filter((e) => e.level === 'warn');
    expect(warnings.filter((e) => e.msg === 'login failed')).toHaveLength(9);
    expect(warnings.find((e) => e.msg === 'login failed')).toMatchObject({
      userId: erin.userId,
      address: '10.7.7.7',
      failures: 1,
      usernameDigest: expect.any(String),
    });
    expect(warnings.filter((e) => e.msg === 'login failed; locked')).toEqual([expect.objectContaining({ failures: 10, lockedForMs: 15 * 60_000 })]);
    expect(warnings.filter((e) => String(e.msg).startsWith('login refused'))).toHaveLength(1);
    expect(logs.text()).not.toContain('secret-guess');
    expect(logs.text()).not.toContain('erin.w@example.com');
  });

  it('counts parallel failures one by one (a burst of guesses cannot pass as one)', async () => {
    await newUser('rob@example.com');
    await Promise.all(Array.from({ length: 10 }, (_, i) => failureOf(login('rob@example.com', `burst ${i}`))));
    await expect(failureOf(login('rob@example.com', 'a good password'))).resolves.toMatchObject({ status: 429 });
  });

  it('slows password spraying from one address, yet never refuses a user who logs in from there, even after a typo', async () => {
    await newUser('erin@example.com');
    await newUser('gina@example.com');
    await newUser('hank@example.com');
    await expect(login('erin@example.com', 'a good password', {}, '10.9.9.9')).resolves.toHaveProperty('tokens');
    for (let attempt = 0; attempt < 100; attempt++) await failureOf(login(`user${attempt}@example.com`, 'guess', {}, '10.9.9.9'));
    // The address is locked, but not for erin, who logs in from it: a typo is a 401, the right password logs in.
    await expect(failureOf(login('erin@example.com', 'a typo', {}, '10.9.9.9'))).resolves.toMatchObject({ status: 401 });
    await expect(login('erin@example.com', 'a good password', {}, '10.9.9.9')).resolves.toHaveProperty('tokens');
    // Anyone else there gets one check per 9 s (15 min / 100): the due one logs gina in ...
    await expect(login('gina@example.com', 'a good password', {}, '10.9.9.9')).resolves.toHaveProperty('tokens');
    // ... the next ones are refused unchecked until the next is due.
    await expect(failureOf(login('hank@example.com', 'a good password', {}, '10.9.9.9'))).resolves.toMatchObject({ status: 429 });
    now += 9_000;
    await expect(login('hank@example.com', 'a good password', {}, '10.9.9.9')).resolves.toHaveProperty('tokens');
    // Elsewhere, nothing of this applies.
    await expect(failureOf(login('user1@example.com', 'guess', {}, '10.1.1.1'))).resolves.toMatchObject({ status: 401 });
  });

  it('limits guessing one password from many addresses: after 10 failures, one check per 90 s from new addresses, none refused where the user logs in', async () => {
    await newUser('ivan@example.com');
    await expect(login('ivan@example.com', 'a good password', {}, '10.5.0.1')).resolves.toHaveProperty('tokens');
    for (let attempt = 0; attempt < 10; attempt++) {
      await expect(failureOf(login('ivan@example.com', `guess ${attempt}`, {}, `10.6.0.${attempt}`))).resolves.toMatchObject({ status: 401 });
    }
    // Locked for new addresses: the due check is made (a wrong password under the lock is a 429) ...
    await expect(failureOf(login('ivan@example.com', 'guess 10', {}, '10.6.1.1'))).resolves.toMatchObject({ status: 429, code: 'AUTH.TOO_MANY_ATTEMPTS' });
    // ... and until the next one, even the right password from a new address is refused unchecked.
    await expect(failureOf(login('ivan@example.com', 'a good password', {}, '10.6.1.2'))).resolves.toMatchObject({ status: 429 });
    // Where ivan logs in, nothing changes: a typo is a 401, the right password logs in.
    await expect(failureOf(login('ivan@example.com', 'a typo', {}, '10.5.0.1'))).resolves.toMatchObject({ status: 401 });
    await expect(login('ivan@example.com', 'a good password', {}, '10.5.0.1')).resolves.toHaveProperty('tokens');
    now += 90_000;
    await expect(login('ivan@example.com', 'a good password', {}, '10.6.1.3')).resolves.toHaveProperty('tokens');
  });

  describe('validate', () => {
    it('returns current details for a valid token, refuses an expired one without a refresh token, renews with one', async () => {
      await newUser('fay@example.com');
      const session = (await login('fay@example.com', 'a good password')) as Session;
      const valid = await auth.validate(session.tokens.access_token, {});
      expect(valid.tokens).toMatchObject({ access_token: session.tokens.access_token, expires_at: session.tokens.expires_at });
      expect(valid.user.email).toBe('fay@example.com');

      now += 72 * HOUR;
      await expect(failureOf(auth.validate(session.tokens.access_token, {}))).resolves.toMatchObject({
        status: 401,
        message: expect.stringContaining('expired'),
      });
      const renewed = await auth.validate(session.tokens.access_token, { refresh_token: session.tokens.refresh_token });
      expect(renewed.tokens.refresh_token).toBe(session.tokens.refresh_token);
      expect(renewed.tokens.expires_at).toBe(now / 1000 + 72 * 3600);
      expect(renewed.tokens.access_token).not.toBe(session.tokens.access_token);
      // The renewed token is valid now.
      await expect(auth.validate(renewed.tokens.access_token, {})).resolves.toHaveProperty('tokens.expires_at', renewed.tokens.expires_at);
    });

    it('refuses unknown, revoked, expired and other users’ refresh tokens, and tampered or foreign tokens', async () => {
      const gus = await newUser('gus@example.com');
      await newUser('hal@example.com');
      const mine = (await login('gus@example.com', 'a good password')) as Session;
      const theirs = (await login('hal@example.com', 'a good password')) as Session;
      now += 73 * HOUR;
      const refresh = (token: string) => failureOf(auth.validate(mine.tokens.access_token, { refresh_token: token }));
      await expect(refresh('frt_unknown')).resolves.toMatchObject({ status: 401 });
      await expect(refresh(theirs.tokens.refresh_token)).resolves.toMatchObject({ status: 401 });

      // Tampered: claims changed, signature kept.
      const [header, , signature] = mine.tokens.access_token.split('.');
      const forgedClaims = Buffer.from(JSON.stringify({ ...decodeJwt(mine.tokens.access_token), perms: ['everything'] })).toString('base64url');
      await expect(failureOf(auth.validate(`${header}.${forgedClaims}.${signature}`, {}))).resolves.toMatchObject({ status: 401 });
      // Signed by a key this service does not have.
      const foreign = await IdentityKeys.inMemory();
      const { TokenIssuer } = await import('./token-issuer');
      const foreignToken = await new TokenIssuer(foreign, { accessTokenTtlSeconds: 3600 }, () => now).accessToken({
        userId: gus.userId,
        accountId: gus.accountId,
        permissions: [],
      });
      await expect(failureOf(auth.validate(foreignToken.token, {}))).resolves.toMatchObject({ status: 401 });
      await expect(failureOf(auth.validate('not a token', {}))).resolves.toMatchObject({ status: 401 });
      await expect(failureOf(auth.validate(undefined, {}))).resolves.toMatchObject({ status: 401 });

      await expect(auth.revokeSessions(gus)).resolves.toEqual({ revoked: 1 });
      await expect(refresh(mine.tokens.refresh_token)).resolves.toMatchObject({ status: 401 });
    });

    it('refuses a token of its own keys whose lifetime is longer than the configured one', async () => {
      const caller = await newUser('ivy@example.com');
      const { TokenIssuer } = await import('./token-issuer');
      const ownKeys = await IdentityKeys.load(join(dir, 'keys.json'));
      const mint = (hours: number) => new TokenIssuer(ownKeys, { accessTokenTtlSeconds: hours * 3600 }, () => now).accessToken(caller);
      await expect(auth.validate((await mint(72)).token, {})).resolves.toHaveProperty('user.email', 'ivy@example.com');
      await expect(failureOf(auth.validate((await mint(73)).token, {}))).resolves.toMatchObject({ status: 401 });
      await expect(failureOf(auth.validate((await mint(24 * 365)).token, {}))).resolves.toMatchObject({ status: 401 });
    });

    it('refuses a refresh token past its own lifetime (30 days)', async () => {
      await newUser('ida@example.com');
      const session = (await login('ida@example.com', 'a good password')) as Session;
      now += 30 * 24 * HOUR + 1000;
      await expect(failureOf(auth.validate(session.tokens.access_token, { refresh_token: session.tokens.refresh_token }))).resolves.toMatchObject({
        status: 401,
      });
    });
  });

  it('keeps at most 100 refresh tokens per user: the 101st revokes the oldest', async () => {
    await newUser('jo@example.com');
    const sessions: Session[] = [];
    for (let i = 0; i <= MAX_ACTIVE_REFRESH_TOKENS; i++) {
      now += 1000;
      sessions.push((await login('jo@example.com', 'a good password')) as Session);
    }
    now += 73 * HOUR;
    const renew = (s: Session) => failureOf(auth.validate(s.tokens.access_token, { refresh_token: s.tokens.refresh_token }));
    await expect(renew(sessions[0])).resolves.toMatchObject({ status: 401 });
    expect(await renew(sessions[1])).toBeUndefined();
    expect(await renew(sessions[MAX_ACTIVE_REFRESH_TOKENS])).toBeUndefined();
  });

  it('keeps sessions and keys across a restart (the key file and the log)', async () => {
    await newUser('kim@example.com');
    const session = (await login('kim@example.com', 'a good password')) as Session;
    await boot();
    await expect(auth.validate(session.tokens.access_token, {})).resolves.toHaveProperty('user.email', 'kim@example.com');
    now += 80 * HOUR;
    await expect(auth.validate(session.tokens.access_token, { refresh_token: session.tokens.refresh_token })).resolves.toHaveProperty(
      'tokens.refresh_token',
      session.tokens.refresh_token,
    );
    expect(readFileSync(join(dir, 'keys.json'), 'utf8')).toContain('"signing"');
  });

  it('verifies tokens of every published key, so a rotated key keeps old tokens valid', async () => {
    await newUser('lee@example.com');
    const before = (await login('lee@example.com', 'a good password')) as Session;
    await IdentityKeys.rotate(join(dir, 'keys.json'));
    await boot();
    const after = (await login('lee@example.com', 'a good password')) as Session;
    expect(decodeProtectedHeader(after.tokens.access_token).kid).not.toBe(decodeProtectedHeader(before.tokens.access_token).kid);
    const published = createLocalJWKSet(auth.signingKeys());
    for (const s of [before, after])
      await expect(verifyAccessToken(s.tokens.access_token, published, { now: new Date(now) })).resolves.toHaveProperty('expired', false);
    expect(JSON.stringify(auth.signingKeys())).not.toContain('"d"');
  });

  describe('one-time-password second factor', () => {
    async function enrolled(email: string) {
      const caller = await newUser(email);
      const { secret, otpauth_uri } = await auth.enrollOtp(caller);
      expect(otpauth_uri).toMatch(/^otpauth:\/\/totp\//);
      await auth.confirmOtp(caller, { otp: otpCode(secret, now) });
      return { caller, secret };
    }

    it('turns login into a challenge that a code completes once', async () => {
      const { secret } = await enrolled('mia@example.com');
      now += 60_000;
      const challenge = (await login('mia@example.com', 'a good password')) as MfaChallenge;
      expect(challenge).toMatchObject({ mfa_required: true, factor: 'otp', mfa_token: expect.stringMatching(/^mfa_/), mfa_requirements: expect.any(Object) });
      expect(challenge).not.toHaveProperty('tokens');
      const session = await auth.verifyMfa({ mfa_token: challenge.mfa_token, otp: otpCode(secret, now) }, '10.0.0.1');
      expect(session.tokens.access_token).toBeTruthy();
      // Single use.
      now += 30_000;
      await expect(failureOf(auth.verifyMfa({ mfa_token: challenge.mfa_token, otp: otpCode(secret, now) }, '10.0.0.1'))).resolves.toMatchObject({
        status: 401,
      });
    });

    it('trusts an address for a user with a second factor only once a code completed a login from it, never for the password alone', async () => {
      const { secret } = await enrolled('olga@example.com');
      now += 60_000;
      // The password alone from 10.8.0.1 (no code), a completed login from 10.8.0.2.
      expect(await login('olga@example.com', 'a good password', {}, '10.8.0.1')).toHaveProperty('mfa_required', true);
      const challenge = (await login('olga@example.com', 'a good password', {}, '10.8.0.2')) as MfaChallenge;
      await auth.verifyMfa({ mfa_token: challenge.mfa_token, otp: otpCode(secret, now) }, '10.8.0.2');
      for (let attempt = 0; attempt < 10; attempt++) await failureOf(login('olga@example.com', `guess ${attempt}`, {}, `10.8.1.${attempt}`));
      // The username is locked; the due check is spent by another guess.
      await expect(failureOf(login('olga@example.com', 'guess 10', {}, '10.8.1.10'))).resolves.toMatchObject({ status: 429 });
      await expect(failureOf(login('olga@example.com', 'a good password', {}, '10.8.0.1'))).resolves.toMatchObject({ status: 429 });
      expect(await login('olga@example.com', 'a good password', {}, '10.8.0.2')).toHaveProperty('mfa_required', true);
    });

    it('refuses a replayed code, a wrong code, an expired challenge, and a token after too many wrong codes', async () => {
      const { secret } = await enrolled('ned@example.com');
      now += 60_000;
      const first = (await login('ned@example.com', 'a good password')) as MfaChallenge;
      const code = otpCode(secret, now);
      await auth.verifyMfa({ mfa_token: first.mfa_token, otp: code }, undefined);
      const second = (await login('ned@example.com', 'a good password')) as MfaChallenge;
      await expect(failureOf(auth.verifyMfa({ mfa_token: second.mfa_token, otp: code }, undefined))).resolves.toMatchObject({ status: 401 });
      // A code from the previous step (clock skew) is fine once the replayed one is past... but not older than the last used step.
      now += 30_000;
      await expect(auth.verifyMfa({ mfa_token: second.mfa_token, otp: otpCode(secret, now) }, undefined)).resolves.toHaveProperty('tokens');

      const third = (await login('ned@example.com', 'a good password')) as MfaChallenge;
      now += 5 * 60_000 + 1;
      await expect(failureOf(auth.verifyMfa({ mfa_token: third.mfa_token, otp: otpCode(secret, now) }, undefined))).resolves.toMatchObject({ status: 401 });

      const fourth = (await login('ned@example.com', 'a good password')) as MfaChallenge;
      for (let i = 0; i < 4; i++)
        await expect(failureOf(auth.verifyMfa({ mfa_token: fourth.mfa_token, otp: '000000' }, undefined))).resolves.toMatchObject({ status: 401 });
      // A right code on another token clears the user's count of wrong codes, not the fourth token's.
      now += 30_000;
      const fifth = (await login('ned@example.com', 'a good password')) as MfaChallenge;
      await expect(auth.verifyMfa({ mfa_token: fifth.mfa_token, otp: otpCode(secret, now) }, undefined)).resolves.toHaveProperty('tokens');
      await expect(failureOf(auth.verifyMfa({ mfa_token: fourth.mfa_token, otp: '000000' }, undefined))).resolves.toMatchObject({ status: 401 });
      now += 30_000;
      await expect(failureOf(auth.verifyMfa({ mfa_token: fourth.mfa_token, otp: otpCode(secret, now) }, undefined))).resolves.toMatchObject({ status: 401 });
      await expect(failureOf(auth.verifyMfa({ mfa_token: 'mfa_unknown', otp: otpCode(secret, now) }, undefined))).resolves.toMatchObject({ status: 401 });
    });

    it('locks the factor after 5 wrong codes across MFA tokens, which a right password never resets, and tells the user to wait', async () => {
      const { secret } = await enrolled('vic@example.com');
      now += 60_000;
      // Each round logs in again with the right password: that does not clear the wrong codes.
      for (let i = 0; i < 4; i++) {
        const challenge = (await login('vic@example.com', 'a good password')) as MfaChallenge;
        await expect(failureOf(auth.verifyMfa({ mfa_token: challenge.mfa_token, otp: '000000' }, `10.0.0.${i}`))).resolves.toMatchObject({ status: 401 });
      }
      const fifth = (await login('vic@example.com', 'a good password')) as MfaChallenge;
      const locking = await failureOf(auth.verifyMfa({ mfa_token: fifth.mfa_token, otp: '000000' }, '10.0.0.9'));
      expect(locking).toMatchObject({
        status: 429,
        code: 'AUTH.MFA_LOCKED',
        retryAfterSeconds: 900,
        message: expect.stringContaining('try again'),
      });
      // While locked, even the right code on a fresh token is refused, from anywhere.
      const sixth = (await login('vic@example.com', 'a good password')) as MfaChallenge;
      await expect(failureOf(auth.verifyMfa({ mfa_token: sixth.mfa_token, otp: otpCode(secret, now) }, '10.5.5.5'))).resolves.toMatchObject({
        status: 429,
        code: 'AUTH.MFA_LOCKED',
      });
      expect(logs.entries.filter((e) => e.level === 'warn' && String(e.msg).includes('locked'))).toHaveLength(2);
      now += 15 * 60_000 + 1;
      const later = (await login('vic@example.com', 'a good password')) as MfaChallenge;
      await expect(auth.verifyMfa({ mfa_token: later.mfa_token, otp: otpCode(secret, now) }, '10.5.5.5')).resolves.toHaveProperty('tokens');
    });

    it('accepts a code one step off (clock skew) but not two', async () => {
      const { secret } = await enrolled('oli@example.com');
      now += 10 * 60_000;
      const a = (await login('oli@example.com', 'a good password')) as MfaChallenge;
      await expect(failureOf(auth.verifyMfa({ mfa_token: a.mfa_token, otp: otpCode(secret, now - 60_000) }, undefined))).resolves.toMatchObject({
        status: 401,
      });
      await expect(auth.verifyMfa({ mfa_token: a.mfa_token, otp: otpCode(secret, now - 30_000) }, undefined)).resolves.toHaveProperty('tokens');
    });

    it('enrols only with a first valid code, refuses a second factor, and removes it', async () => {
      const caller = await newUser('pat@example.com');
      const { secret } = await auth.enrollOtp(caller);
      await expect(failureOf(auth.confirmOtp(caller, { otp: '123456' === otpCode(secret, now) ? '654321' : '123456' }))).resolves.toMatchObject({
        status: 400,
      });
      // Not active yet: login gives a session.
      await expect(login('pat@example.com', 'a good password')).resolves.toHaveProperty('tokens');
      await auth.confirmOtp(caller, { otp: otpCode(secret, now) });
      await expect(failureOf(auth.enrollOtp(caller))).resolves.toMatchObject({ status: 409 });
      await expect(login('pat@example.com', 'a good password')).resolves.toHaveProperty('mfa_required', true);
      // Removing it takes a current code: none, or a wrong one, is a 400 and the factor stays.
      await expect(failureOf(auth.removeOtp(caller, {}))).resolves.toMatchObject({ status: 400 });
      await expect(failureOf(auth.removeOtp(caller, { otp: otpCode(secret, now - 120_000) }))).resolves.toMatchObject({
        status: 400,
        code: 'AUTH.MFA_INVALID',
      });
      await expect(login('pat@example.com', 'a good password')).resolves.toHaveProperty('mfa_required', true);
      now += 30_000;
      await auth.removeOtp(caller, { otp: otpCode(secret, now) });
      await expect(login('pat@example.com', 'a good password')).resolves.toHaveProperty('tokens');
      await expect(failureOf(auth.removeOtp(caller, { otp: otpCode(secret, now) }))).resolves.toMatchObject({ status: 404 });
    });

    it('manages the factor only from a user session: an API key gets 403, even with a right code', async () => {
      const { caller, secret } = await enrolled('ray@example.com');
      const withKey = { ...caller, keyId: '0123456789abcdef01234567' };
      now += 30_000;
      await expect(failureOf(auth.removeOtp(withKey, { otp: otpCode(secret, now) }))).resolves.toMatchObject({ status: 403, code: 'AUTH.FORBIDDEN' });
      await expect(failureOf(auth.enrollOtp(withKey))).resolves.toMatchObject({ status: 403 });
      await expect(failureOf(auth.confirmOtp(withKey, { otp: otpCode(secret, now) }))).resolves.toMatchObject({ status: 403 });
      await expect(login('ray@example.com', 'a good password')).resolves.toHaveProperty('mfa_required', true);
      await auth.removeOtp(caller, { otp: otpCode(secret, now) });
    });

    it('never stores the OTP secret, refresh tokens or MFA tokens in clear', async () => {
      const { secret } = await enrolled('quin@example.com');
      now += 60_000;
      const challenge = (await login('quin@example.com', 'a good password')) as MfaChallenge;
      const session = await auth.verifyMfa({ mfa_token: challenge.mfa_token, otp: otpCode(secret, now) }, undefined);
      // The whole SQLite log as bytes (database and write-ahead files).
      const log = ['events.db', 'events.db-wal']
        .map((f) => {
          try {
            return readFileSync(join(dir, f)).toString('latin1');
          } catch {
            return '';
          }
        })
        .join('');
      expect(log).toContain('OtpFactorEnrolled');
      for (const secretText of [secret, challenge.mfa_token, session.tokens.refresh_token, 'a good password']) expect(log).not.toContain(secretText);
    });
  });
});
