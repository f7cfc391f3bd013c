import fc from 'fast-check';
import { Query } from 'mingo';
import { randomBytes } from 'node:crypto';
import {
  ADDRESS_POLICY,
  OTP_POLICY,
  PAIR_POLICY,
  afterFailure,
  failureCountsTowards,
  failureCountsTowardsFilter,
  failureDelayMs,
  USER_POLICY,
  lockRemainingMs,
  lockedCheckDue,
  lockedCheckIntervalMs,
  loginLocks,
} from './login-throttle';
import { ISSUED_API_KEY_PATTERN } from '@funnel/contracts';
import { generateApiKey } from './api-keys';
import { acceptedOtpStep, newOtpSecret, otpCode } from './one-time-passwords';
import { decryptSecret, encryptSecret } from './secret-box';
import { MFA_CHALLENGE_MAX_FAILURES, challengeOpen, foldMfaChallenge, foldOtp } from './session-events';

describe('login throttling', () => {
  it('counts failures inside the window, slows from slowAfter, locks at lockAfter', () => {
    let state = afterFailure(undefined, 0, PAIR_POLICY);
    const delays = [failureDelayMs(state, PAIR_POLICY)];
    for (let i = 1; i < PAIR_POLICY.lockAfter; i++) {
      state = afterFailure(state, i * 1000, PAIR_POLICY);
      delays.push(failureDelayMs(state, PAIR_POLICY));
    }
    expect(delays).toEqual([0, 0, 0, 0, 125, 250, 500, 1000, 1000, 1000]);
    expect(lockRemainingMs(state, 9000)).toBe(PAIR_POLICY.lockMs);
    expect(lockRemainingMs(state, 9000 + PAIR_POLICY.lockMs)).toBe(0);
  });

  it('starts counting afresh after the window or after a lock has ended', () => {
    const old = afterFailure(afterFailure(undefined, 0, PAIR_POLICY), 1, PAIR_POLICY);
    expect(afterFailure(old, PAIR_POLICY.windowMs + 2, PAIR_POLICY).failures).toBe(1);
    const locked = { failures: PAIR_POLICY.lockAfter, firstFailureAt: 0, lockedUntil: 100 };
    expect(afterFailure(locked, 101, PAIR_POLICY)).toEqual({ failures: 1, firstFailureAt: 101, lockedUntil: 0 });
  });

  it('keeps the atomic filter and the pure rule in step', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 20 }),
        fc.integer({ min: 0, max: 3_000_000 }),
        fc.integer({ min: 0, max: 3_000_000 }),
        fc.boolean(),
        (failures, firstFailureAt, now, locked) => {
          const state = { failures, firstFailureAt, lockedUntil: locked ? firstFailureAt + PAIR_POLICY.lockMs : 0 };
          const matches = new Query(failureCountsTowardsFilter(now, PAIR_POLICY)).test(state);
          expect(matches).toBe(failureCountsTowards(state, now, PAIR_POLICY));
        },
      ),
    );
  });

  it('never delays past maxDelayMs, and addresses tolerate more than usernames', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1000 }), (failures) => {
        for (const policy of [PAIR_POLICY, ADDRESS_POLICY, OTP_POLICY]) {
          expect(failureDelayMs({ failures, firstFailureAt: 0, lockedUntil: 0 }, policy)).toBeLessThanOrEqual(policy.maxDelayMs);
        }
      }),
    );
    expect(ADDRESS_POLICY.lockAfter).toBeGreaterThan(PAIR_POLICY.lockAfter);
  });

  it('refuses a locked pair; a trusted pair is under no other lock; otherwise the locked username and address counters apply', () => {
    const failures = (count: number, at: number, policy = PAIR_POLICY) =>
      Array.from({ length: count }).reduce<ReturnType<typeof afterFailure> | undefined>((state) => afterFailure(state, at, policy), undefined);
    const lockedAddress = failures(ADDRESS_POLICY.lockAfter, 0, ADDRESS_POLICY)!;
    const lockedUser = failures(USER_POLICY.lockAfter, 0, USER_POLICY)!;
    const now = 1000;
    expect(loginLocks(undefined, undefined, undefined, false, now)).toEqual({ pairLockedForMs: 0, locked: [] });
    expect(loginLocks(failures(PAIR_POLICY.lockAfter, 0), undefined, undefined, true, now).pairLockedForMs).toBe(PAIR_POLICY.lockMs - now);
    expect(loginLocks(failures(PAIR_POLICY.lockAfter - 1, 0), lockedUser, lockedAddress, true, now)).toEqual({ pairLockedForMs: 0, locked: [] });
    expect(loginLocks(undefined, lockedUser, lockedAddress, false, now).locked).toEqual([lockedUser, lockedAddress]);
    expect(loginLocks(undefined, failures(USER_POLICY.lockAfter - 1, 0, USER_POLICY), undefined, false, now).locked).toEqual([]);
    // Locked counters are checked from untrusted addresses at the rate that would not have locked them.
    expect(lockedCheckIntervalMs(USER_POLICY)).toBe(90_000);
    expect(lockedCheckDue({ ...lockedUser }, now)).toBe(true);
    expect(lockedCheckDue({ ...lockedUser, nextCheckAt: now + 1 }, now)).toBe(false);
  });
});

describe('one-time passwords', () => {
  const secret = newOtpSecret();
  const t = Date.UTC(2026, 0, 1, 0, 0, 15);
  const step = Math.floor(t / 30_000);

  it('accepts the current code and one step either side, returning its step', () => {
    expect(acceptedOtpStep(secret, otpCode(secret, t), t, -1)).toBe(step);
    expect(acceptedOtpStep(secret, otpCode(secret, t - 30_000), t, -1)).toBe(step - 1);
    expect(acceptedOtpStep(secret, otpCode(secret, t + 30_000), t, -1)).toBe(step + 1);
    expect(acceptedOtpStep(secret, otpCode(secret, t - 60_000), t, -1)).toBeUndefined();
    expect(acceptedOtpStep(secret, otpCode(secret, t + 60_000), t, -1)).toBeUndefined();
  });

  it('refuses codes at or before the last accepted step (no replay), malformed codes and other secrets', () => {
    expect(acceptedOtpStep(secret, otpCode(secret, t), t, step)).toBeUndefined();
    expect(acceptedOtpStep(secret, otpCode(secret, t - 30_000), t, step - 1)).toBeUndefined();
    expect(acceptedOtpStep(secret, otpCode(secret, t + 30_000), t, step)).toBe(step + 1);
    for (const bad of ['', '12345', '1234567', 'abcdef', 123456, null]) expect(acceptedOtpStep(secret, bad, t, -1)).toBeUndefined();
    expect(acceptedOtpStep(newOtpSecret(), otpCode(secret, t), t, -1)).toBeUndefined();
  });

  it('folds a factor through enrol, confirm, codes and removal', () => {
    const box = { keyId: 'k', iv: '', ciphertext: '', tag: '' };
    const events = [
      { type: 'OtpFactorEnrolled', data: { factorId: 'f1', userId: 'u', secret: box } },
      { type: 'OtpFactorConfirmed', data: { factorId: 'f1' } },
      { type: 'OtpCodeAccepted', data: { step: 7 } },
      { type: 'OtpCodeAccepted', data: { step: 9 } },
    ];
    expect(foldOtp(events)).toEqual({ factor: { factorId: 'f1', secret: box, confirmed: true }, lastStep: 9 });
    expect(foldOtp([...events, { type: 'OtpFactorRemoved', data: { factorId: 'f1' } }])).toEqual({ lastStep: 9 });
  });

  it('closes a challenge when completed, expired or after too many wrong codes', () => {
    const issued = { type: 'MfaChallengeIssued', data: { userId: 'u', accountId: 'a', digest: 'd', expiresAt: 1000, issueRefreshToken: true } };
    expect(challengeOpen(foldMfaChallenge([issued]), 999)).toBe(true);
    expect(challengeOpen(foldMfaChallenge([issued]), 1000)).toBe(false);
    expect(challengeOpen(foldMfaChallenge([issued, { type: 'MfaChallengeCompleted', data: {} }]), 0)).toBe(false);
    const failures = Array.from({ length: MFA_CHALLENGE_MAX_FAILURES }, () => ({ type: 'MfaChallengeFailed', data: {} }));
    expect(challengeOpen(foldMfaChallenge([issued, ...failures.slice(1)]), 0)).toBe(true);
    expect(challengeOpen(foldMfaChallenge([issued, ...failures]), 0)).toBe(false);
    expect(challengeOpen(foldMfaChallenge([]), 0)).toBe(false);
  });
});

describe('secret box', () => {
  const key = { id: 'k1', key: randomBytes(32) };
  it('round-trips, hides the plain text, and refuses a tampered box or an unknown key', () => {
    const box = encryptSecret('JBSWY3DPEHPK3PXP', key);
    expect(JSON.stringify(box)).not.toContain('JBSWY3DPEHPK3PXP');
    expect(decryptSecret(box, [key])).toBe('JBSWY3DPEHPK3PXP');
    const flipped = Buffer.from(box.ciphertext, 'base64');
    flipped[0] ^= 1;
    expect(() => decryptSecret({ ...box, ciphertext: flipped.toString('base64') }, [key])).toThrow();
    expect(() => decryptSecret(box, [{ id: 'k2', key: randomBytes(32) }])).toThrow('no secret key k1');
  });
});

describe('issued API keys', () => {
  it('have the shape the gateway checks however blocked their address (192 random bits)', () => {
    for (let i = 0; i < 50; i++) expect(generateApiKey()).toMatch(ISSUED_API_KEY_PATTERN);
  });
});
