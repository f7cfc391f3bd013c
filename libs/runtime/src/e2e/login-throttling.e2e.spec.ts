import { otpCode } from '@funnel/identity-domain';
import { ADMIN, Deployment, describeInBothModes } from './harness';

/**
 * Behind a trusted proxy (the test client on loopback), each request names its client in
 * X-Forwarded-For, so one test plays many clients. A low credential-failure limit keeps it short.
 */
const ENV = { TRUSTED_PROXIES: '127.0.0.1,::1', CREDENTIAL_FAILURE_LIMIT: '5', CREDENTIAL_FAILURE_WINDOW_SECONDS: '600' };

describeInBothModes(
  'login throttling and credential limits',
  (d) => {
    const call = (...args: Parameters<Deployment['api']['call']>) => d().api.call(...args);
    const from = (address: string) => ({ 'x-forwarded-for': address });
    const login = (username: string, password: string, address: string) =>
      call('POST', '/auth/login', { key: '', body: { username, password }, headers: from(address) });

    it('locks the pair that failed (the rightmost untrusted X-Forwarded-For entry), checks the username slowly from new addresses, never where the user logs in', async () => {
      await d().newAccount('pair-target@example.com');
      for (let attempt = 0; attempt < 10; attempt++) expect((await login('pair-target@example.com', `guess ${attempt}`, '203.0.113.10')).status).toBe(401);
      const locked = await login('pair-target@example.com', 'another password', '203.0.113.10');
      expect(locked.status).toBe(429);
      expect(locked.body.code).toBe('AUTH.TOO_MANY_ATTEMPTS');
      // A client-chosen entry left of the real client changes nothing.
      expect((await login('pair-target@example.com', 'another password', '198.51.100.99, 203.0.113.10')).status).toBe(429);
      const response = await fetch(`${d().api.baseUrl}/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...from('203.0.113.10') },
        body: JSON.stringify({ username: 'pair-target@example.com', password: 'x' }),
      });
      expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(800);
      // The username is locked for new addresses: one check per 90 s, the due one logs the user in ...
      expect((await login('pair-target@example.com', 'another password', '203.0.113.11')).status).toBe(200);
      // ... the next new address waits for the next ...
      expect((await login('pair-target@example.com', 'another password', '203.0.113.12')).status).toBe(429);
      // ... and where the user has logged in, nothing is refused: an attacker cannot lock the user out.
      expect((await login('pair-target@example.com', 'another password', '203.0.113.11')).status).toBe(200);
      expect((await login('pair-target@example.com', 'a typo', '203.0.113.11')).status).toBe(401);
    }, 60_000);

    it('refuses failing API keys and tokens of an address after repeated failures (429 with Retry-After), never a valid key or token from it', async () => {
      const list = (address: string, credential: Record<string, string>) =>
        call('GET', '/visitortag/list/', { key: '', headers: { ...from(address), ...credential } });
      // The admin key in use (seen valid by the gateway), and a user's access token.
      expect((await list('198.51.100.19', { 'x-api-key': ADMIN.apiKey })).status).toBe(200);
      const session = (await login(ADMIN.email, ADMIN.password, '198.51.100.19')).body;
      for (let attempt = 0; attempt < 3; attempt++) expect((await list('198.51.100.20', { 'x-api-key': `wrong${attempt}-key-0123456789` })).status).toBe(401);
      expect((await list('198.51.100.20', { authorization: 'Bearer not.a.token0' })).status).toBe(401);
      const blocked = await list('198.51.100.20', { authorization: 'Bearer not.a.token1' });
      expect(blocked.status).toBe(429);
      expect(blocked.body.code).toBe('AUTH.TOO_MANY_ATTEMPTS');
      const response = await fetch(`${d().api.baseUrl}/visitortag/list/`, { headers: { ...from('198.51.100.20'), 'x-api-key': 'wrong9-key-0123456789' } });
      expect(response.status).toBe(429);
      expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(500);
      // Valid credentials from the blocked address pass, a key just issued (never used) included.
      expect((await list('198.51.100.20', { 'x-api-key': ADMIN.apiKey })).status).toBe(200);
      const { apiKey: fresh } = await d().newAccount('fresh-key@example.com');
      expect((await list('198.51.100.20', { 'x-api-key': fresh })).status).toBe(200);
      expect((await list('198.51.100.20', { authorization: `Bearer ${session.tokens.access_token}` })).status).toBe(200);
      expect((await list('198.51.100.21', { 'x-api-key': 'wrongA-key-0123456789' })).status).toBe(401);
    });

    it('locks the second factor after 5 wrong codes across MFA tokens and tells the user to wait', async () => {
      await d().newAccount('otp-target@example.com');
      const session = (await login('otp-target@example.com', 'another password', '203.0.113.30')).body;
      const auth = { key: '', headers: { ...from('203.0.113.30'), authorization: `Bearer ${session.tokens.access_token}` } };
      const secret: string = (await call('POST', '/auth/mfa/otp/enroll', auth)).body.secret;
      expect((await call('POST', '/auth/mfa/otp/confirm', { ...auth, body: { otp: otpCode(secret, Date.now()) } })).status).toBe(200);
      const right = otpCode(secret, Date.now() + 30_000);
      const wrong = right === '000000' ? '111111' : '000000';
      const verify = async (otp: string, address: string) => {
        // A right password each time: it never clears the wrong codes.
        const challenge = await login('otp-target@example.com', 'another password', address);
        expect(challenge.body.mfa_required).toBe(true);
        return call('POST', '/auth/mfa/verify', { key: '', body: { mfa_token: challenge.body.mfa_token, otp }, headers: from(address) });
      };
      for (let attempt = 0; attempt < 4; attempt++) expect((await verify(wrong, `203.0.113.${31 + attempt}`)).status).toBe(401);
      const locking = await verify(wrong, '203.0.113.40');
      expect(locking.status).toBe(429);
      expect(locking.body).toMatchObject({ code: 'AUTH.MFA_LOCKED', error: expect.stringContaining('try again') });
      const refused = await verify(right, '203.0.113.41');
      expect(refused.status).toBe(429);
      expect(refused.body.code).toBe('AUTH.MFA_LOCKED');
      const challenge = await login('otp-target@example.com', 'another password', '203.0.113.42');
      const response = await fetch(`${d().api.baseUrl}/auth/mfa/verify`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...from('203.0.113.42') },
        body: JSON.stringify({ mfa_token: challenge.body.mfa_token, otp: right }),
      });
      expect(response.status).toBe(429);
      expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(800);
    }, 60_000);
  },
  ENV,
);
