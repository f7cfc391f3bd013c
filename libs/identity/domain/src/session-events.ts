/**
 * Events of sessions and second factors. Secrets appear only as SHA-256 digests (refresh tokens,
 * MFA tokens) or encrypted (the TOTP secret, which must be read back to check codes).
 */
import { EncryptedSecret } from './secret-box';

export interface RefreshTokenIssued {
  type: 'RefreshTokenIssued';
  data: { tokenId: string; digest: string; userId: string; accountId: string; issuedAt: number; expiresAt: number };
}
export interface RefreshTokensRevoked {
  type: 'RefreshTokensRevoked';
  /** `cap`: the oldest beyond the per-user limit; `user`: the user revoked their sessions; `expired`: past their lifetime. */
  data: { tokenIds: string[]; reason: 'cap' | 'user' | 'expired' };
}
export type SessionEvent = RefreshTokenIssued | RefreshTokensRevoked;

export interface OtpFactorEnrolled {
  type: 'OtpFactorEnrolled';
  data: { factorId: string; userId: string; secret: EncryptedSecret };
}
export interface OtpFactorConfirmed {
  type: 'OtpFactorConfirmed';
  data: { factorId: string };
}
export interface OtpFactorRemoved {
  type: 'OtpFactorRemoved';
  data: { factorId: string };
}
/** A code was used: codes of this time step or earlier are never accepted again (no replay). */
export interface OtpCodeAccepted {
  type: 'OtpCodeAccepted';
  data: { step: number };
}
export type OtpEvent = OtpFactorEnrolled | OtpFactorConfirmed | OtpFactorRemoved | OtpCodeAccepted;

export interface MfaChallengeIssued {
  type: 'MfaChallengeIssued';
  data: { userId: string; accountId: string; digest: string; expiresAt: number; issueRefreshToken: boolean };
}
export interface MfaChallengeFailed {
  type: 'MfaChallengeFailed';
  data: Record<string, never>;
}
/** Single use: completing appends this with the challenge's revision expected. */
export interface MfaChallengeCompleted {
  type: 'MfaChallengeCompleted';
  data: Record<string, never>;
}
export type MfaChallengeEvent = MfaChallengeIssued | MfaChallengeFailed | MfaChallengeCompleted;

export const SessionStreams = {
  sessions: (userId: string) => `sessions-${userId}`,
  otp: (userId: string) => `userotp-${userId}`,
  /** Named by the first characters of the MFA token's digest: the token itself is never stored. */
  mfaChallenge: (tokenDigest: string) => `mfachallenge-${tokenDigest.slice(0, 32)}`,
  sessionsPrefix: 'sessions-',
};

/** The OTP factor of a user, folded from the `userotp-` stream. */
export interface OtpFactorState {
  factor?: { factorId: string; secret: EncryptedSecret; confirmed: boolean };
  /** The last accepted time step (codes at or before it are refused). */
  lastStep: number;
}

export function foldOtp(events: { type: string; data: unknown }[]): OtpFactorState {
  const state: OtpFactorState = { lastStep: -1 };
  for (const event of events) {
    const e = event as OtpEvent;
    if (e.type === 'OtpFactorEnrolled') state.factor = { factorId: e.data.factorId, secret: e.data.secret, confirmed: false };
    else if (e.type === 'OtpFactorConfirmed' && state.factor?.factorId === e.data.factorId) state.factor.confirmed = true;
    else if (e.type === 'OtpFactorRemoved' && state.factor?.factorId === e.data.factorId) state.factor = undefined;
    else if (e.type === 'OtpCodeAccepted') state.lastStep = Math.max(state.lastStep, e.data.step);
  }
  return state;
}

export interface MfaChallengeState {
  userId: string;
  digest: string;
  accountId: string;
  expiresAt: number;
  issueRefreshToken: boolean;
  failures: number;
  completed: boolean;
}

/** Wrong codes a challenge tolerates before it is void. */
export const MFA_CHALLENGE_MAX_FAILURES = 5;

export function foldMfaChallenge(events: { type: string; data: unknown }[]): MfaChallengeState | undefined {
  let state: MfaChallengeState | undefined;
  for (const event of events) {
    const e = event as MfaChallengeEvent;
    if (e.type === 'MfaChallengeIssued') state = { ...e.data, failures: 0, completed: false };
    else if (state && e.type === 'MfaChallengeFailed') state.failures++;
    else if (state && e.type === 'MfaChallengeCompleted') state.completed = true;
  }
  return state;
}

/** Whether a challenge can still be answered at `now` (ms). */
export function challengeOpen(state: MfaChallengeState | undefined, now: number): state is MfaChallengeState {
  return !!state && !state.completed && state.failures < MFA_CHALLENGE_MAX_FAILURES && state.expiresAt > now;
}
