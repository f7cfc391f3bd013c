import { type JWTPayload, SignJWT, decodeProtectedHeader, generateKeyPair } from 'jose';
import { generateAssetId } from '@funnel/contracts';
import { otpCode } from '@funnel/identity-domain';
import { ADMIN, Deployment, describeInBothModes } from './harness';

/** Tokens from this deployment expire after 2 s, so expiry is seen without waiting 72 hours. */
const SHORT_TTL = { ACCESS_TOKEN_TTL_SECONDS: '2' };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describeInBothModes(
  '/v1/auth',
  (d) => {
    const call = (...args: Parameters<Deployment['api']['call']>) => d().api.call(...args);
    const bearer = (token: string) => ({ key: '', headers: { authorization: `Bearer ${token}` } });
    const login = (username: string, password: string, extra: Record<string, unknown> = {}) =>
      call('POST', '/auth/login', { key: '', body: { username, password, ...extra } });

    it('logs in and the access token works as a Bearer credential on the asset routes', async () => {
      const res = await login(ADMIN.email, ADMIN.password);
      expect(res.status).toBe(200);
      expect(res.body.tokens).toEqual({
        access_token: expect.any(String),
        id_token: expect.any(String),
        refresh_token: expect.stringMatching(/^frt_/),
        expires_at: expect.any(Number),
      });
      expect(res.body.tokens.expires_at).toBeGreaterThanOrEqual(Math.floor(Date.now() / 1000));
      expect(res.body.user).toMatchObject({ email: ADMIN.email, permissions: expect.arrayContaining(['assets:write', 'keys:manage']), email_verified: false });
      const listed = await call('GET', '/visitortag/list/', bearer(res.body.tokens.access_token));
      expect(listed.status).toBe(200);
      // The ID token is not a credential.
      expect((await call('GET', '/visitortag/list/', bearer(res.body.tokens.id_token))).status).toBe(401);
    });

    it('answers a wrong password and an unknown user alike, and a malformed body with 400', async () => {
      const wrong = await login(ADMIN.email, 'not the password');
      const unknown = await login('nobody@example.com', 'not the password');
      expect(wrong.status).toBe(401);
      expect(unknown.status).toBe(401);
      expect(unknown.body.error).toBe(wrong.body.error);
      expect((await login('', '')).status).toBe(400);
    });

    it('publishes the public signing keys', async () => {
      const res = await call('GET', '/auth/jwks', { key: '' });
      expect(res.status).toBe(200);
      expect(res.body.keys[0]).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256', use: 'sig', kid: expect.any(String) });
      expect(res.body.keys[0]).not.toHaveProperty('d');
      const token = (await login(ADMIN.email, ADMIN.password)).body.tokens.access_token;
      expect(res.body.keys.map((k: { kid: string }) => k.kid)).toContain(decodeProtectedHeader(token).kid);
    });

    it('refuses a tampered token, a token signed elsewhere, and garbage with 401 everywhere', async () => {
      const token: string = (await login(ADMIN.email, ADMIN.password)).body.tokens.access_token;
      const [header, claims, signature] = token.split('.');
      const forgedClaims = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(claims, 'base64url').toString()), acc: 'someone-else' })).toString(
        'base64url',
      );
      const flipped = signature.slice(0, -2) + (signature.endsWith('AA') ? 'BB' : 'AA');
      // Signed by a key of our own making, naming the service's key id and then an unknown one.
      const { privateKey } = await generateKeyPair('ES256');
      const claimsSet = JSON.parse(Buffer.from(claims, 'base64url').toString()) as JWTPayload;
      const foreign = (kid: string) => new SignJWT(claimsSet).setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid }).sign(privateKey);
      const signedElsewhere = [await foreign(decodeProtectedHeader(token).kid!), await foreign('unknown-key-id')];
      for (const bad of [`${header}.${forgedClaims}.${signature}`, `${header}.${claims}.${flipped}`, ...signedElsewhere, 'garbage', `${header}.${claims}`]) {
        expect((await call('GET', '/visitortag/list/', bearer(bad))).status).toBe(401);
        expect((await call('POST', '/auth/validate', { ...bearer(bad), body: {} })).status).toBe(401);
      }
    });

    it('validates, expires after the configured lifetime, and renews with the refresh token', async () => {
      const session = (await login(ADMIN.email, ADMIN.password)).body;
      const valid = await call('POST', '/auth/validate', { ...bearer(session.tokens.access_token), body: {} });
      expect(valid.status).toBe(200);
      expect(valid.body.tokens).toMatchObject({ access_token: session.tokens.access_token, expires_at: session.tokens.expires_at });
      expect(valid.body.user.email).toBe(ADMIN.email);

      await sleep(3100);
      expect((await call('GET', '/visitortag/list/', bearer(session.tokens.access_token))).status).toBe(401);
      const expired = await call('POST', '/auth/validate', { ...bearer(session.tokens.access_token), body: {} });
      expect(expired.status).toBe(401);
      expect(expired.body.error).toEqual(expect.any(String));
      const renewed = await call('POST', '/auth/validate', { ...bearer(session.tokens.access_token), body: { refresh_token: session.tokens.refresh_token } });
      expect(renewed.status).toBe(200);
      expect(renewed.body.tokens.refresh_token).toBe(session.tokens.refresh_token);
      expect(renewed.body.tokens.expires_at).toBeGreaterThan(session.tokens.expires_at);
      expect((await call('GET', '/visitortag/list/', bearer(renewed.body.tokens.access_token))).status).toBe(200);

      // Revoking the sessions ends renewal.
      const revoked = await call('POST', '/auth/sessions/revoke', bearer(renewed.body.tokens.access_token));
      expect(revoked.status).toBe(200);
      expect(revoked.body.revoked).toBeGreaterThanOrEqual(1);
      await sleep(3100);
      expect(
        (await call('POST', '/auth/validate', { ...bearer(renewed.body.tokens.access_token), body: { refresh_token: session.tokens.refresh_token } })).status,
      ).toBe(401);
    });

    it('enrols a TOTP factor, then login needs a code, once', async () => {
      await d().newAccount('mfa-user@example.com');
      const first = (await login('mfa-user@example.com', 'another password')).body;
      const auth = bearer(first.tokens.access_token);
      const enrolled = await call('POST', '/auth/mfa/otp/enroll', auth);
      expect(enrolled.status).toBe(200);
      expect(enrolled.body.otpauth_uri).toMatch(/^otpauth:\/\/totp\/.*secret=/);
      const secret: string = enrolled.body.secret;
      expect((await call('POST', '/auth/mfa/otp/confirm', { ...auth, body: { otp: '12345' } })).status).toBe(400);
      expect((await call('POST', '/auth/mfa/otp/confirm', { ...auth, body: { otp: otpCode(secret, Date.now()) } })).status).toBe(200);

      const challenge = await login('mfa-user@example.com', 'another password');
      expect(challenge.status).toBe(200);
      expect(challenge.body).toEqual({ mfa_required: true, mfa_token: expect.any(String), factor: 'otp', mfa_requirements: expect.any(Object) });
      // The confirming code is spent; the next step's code is within the accepted clock skew.
      const code = otpCode(secret, Date.now() + 30_000);
      const verified = await call('POST', '/auth/mfa/verify', { key: '', body: { mfa_token: challenge.body.mfa_token, otp: code } });
      expect(verified.status).toBe(200);
      expect(verified.body.tokens.access_token).toEqual(expect.any(String));
      // Neither the token nor the code works twice.
      expect((await call('POST', '/auth/mfa/verify', { key: '', body: { mfa_token: challenge.body.mfa_token, otp: code } })).status).toBe(401);
      const again = await login('mfa-user@example.com', 'another password');
      expect((await call('POST', '/auth/mfa/verify', { key: '', body: { mfa_token: again.body.mfa_token, otp: code } })).status).toBe(401);
    });

    it('removes the factor only with a current code from a user session; an API key gets 403', async () => {
      const { apiKey } = await d().newAccount('mfa-remover@example.com');
      const auth = bearer((await login('mfa-remover@example.com', 'another password')).body.tokens.access_token);
      const secret: string = (await call('POST', '/auth/mfa/otp/enroll', auth)).body.secret;
      expect((await call('POST', '/auth/mfa/otp/confirm', { ...auth, body: { otp: otpCode(secret, Date.now()) } })).status).toBe(200);
      const next = otpCode(secret, Date.now() + 30_000);

      const withKey = await call('DELETE', '/auth/mfa/otp', { key: apiKey, body: { otp: next } });
      expect(withKey.status).toBe(403);
      expect(withKey.body.code).toBe('AUTH.FORBIDDEN');
      expect((await call('DELETE', '/auth/mfa/otp', auth)).status).toBe(400);
      expect((await call('DELETE', '/auth/mfa/otp', { ...auth, body: { otp: otpCode(secret, Date.now() - 120_000) } })).body.code).toBe('AUTH.MFA_INVALID');
      expect((await login('mfa-remover@example.com', 'another password')).body.mfa_required).toBe(true);

      expect((await call('DELETE', '/auth/mfa/otp', { ...auth, body: { otp: next } })).status).toBe(200);
      expect((await login('mfa-remover@example.com', 'another password')).body.tokens).toBeDefined();
    });

    it('slows and then refuses repeated failures with 429 and Retry-After, while other users still log in', async () => {
      await d().newAccount('target@example.com');
      await d().newAccount('bystander@example.com');
      for (let attempt = 0; attempt < 10; attempt++) expect((await login('target@example.com', `guess ${attempt}`)).status).toBe(401);
      const locked = await login('target@example.com', 'another password');
      expect(locked.status).toBe(429);
      expect(locked.body.error).toEqual(expect.any(String));
      const retryAfter = await fetch(`${d().api.baseUrl}/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username: 'target@example.com', password: 'x' }),
      });
      expect(Number(retryAfter.headers.get('retry-after'))).toBeGreaterThan(0);
      expect((await login('bystander@example.com', 'another password')).status).toBe(200);
    }, 60_000);

    it('keeps a user’s token to the user’s own account', async () => {
      const other = await d().newAccount('isolated@example.com');
      const idTag = generateAssetId();
      const saved = await call('POST', '/visitortag/save/', { key: other.apiKey, body: { idTag, tagName: 'theirs', color: 'red' } });
      expect(saved.status).toBe(200);
      const token = (await login(ADMIN.email, ADMIN.password)).body.tokens.access_token;
      expect((await call('GET', `/visitortag/find/byId/?idTag=${idTag}`, bearer(token))).status).toBe(404);
      const own = (await login('isolated@example.com', 'another password')).body.tokens.access_token;
      expect((await call('GET', `/visitortag/find/byId/?idTag=${idTag}`, bearer(own))).status).toBe(200);
    });

    it('refuses the authenticated auth routes without credentials', async () => {
      for (const [method, path] of [
        ['POST', '/auth/sessions/revoke'],
        ['POST', '/auth/mfa/otp/enroll'],
        ['DELETE', '/auth/mfa/otp'],
      ] as const) {
        expect((await call(method, path, { key: '' })).status).toBe(401);
      }
    });
  },
  SHORT_TTL,
);
