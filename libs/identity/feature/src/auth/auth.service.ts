import { randomUUID } from 'node:crypto';
import { Logger, LoggerService } from '@nestjs/common';
import {
  CallerContext,
  ErrorCodes,
  LoginDto,
  MfaChallenge,
  MfaVerifyDto,
  OtpDto,
  ServiceError,
  Session,
  SessionUser,
  ValidateDto,
  validateBody,
} from '@funnel/contracts';
import { EventStore, NewEvent, WrongExpectedRevisionError } from '@funnel/eventstore';
import {
  IdentityStreams,
  MfaChallengeIssued,
  OtpFactorState,
  SessionStreams,
  UserState,
  acceptedOtpStep,
  challengeOpen,
  decryptSecret,
  emailDigest,
  encryptSecret,
  foldMfaChallenge,
  foldOtp,
  foldUser,
  hashPassword,
  newOpaqueToken,
  newOtpSecret,
  otpauthUri,
  tokenDigest,
  verifyPassword,
} from '@funnel/identity-domain';
import { IdentityKeys } from './identity-keys';
import { LoginThrottle } from './login-throttle.store';
import { RefreshTokens } from './refresh-tokens';
import { TokenIssuer } from './token-issuer';

/** How long an mfa_token may be answered. */
export const MFA_CHALLENGE_TTL_MS = 5 * 60_000;

const WRONG_CREDENTIALS = 'not authorized: wrong username or password';
const INVALID_MFA = 'not authorized: the MFA token or code is not valid';

/** A locked login (pair or address): 429 with the time to wait. */
function loginLocked(lockedMs: number): ServiceError {
  return ServiceError.tooManyRequests('too many failed logins; try again later', Math.ceil(lockedMs / 1000));
}

/** The user's one-time codes are locked after too many wrong ones: 429 with the time to wait. */
function otpLocked(lockedMs: number): ServiceError {
  const seconds = Math.ceil(lockedMs / 1000);
  return ServiceError.tooManyRequests(
    `too many wrong one-time codes; the second factor is locked, try again in ${Math.ceil(seconds / 60)} minute(s)`,
    seconds,
    ErrorCodes.MFA_LOCKED,
  );
}

export interface AuthDependencies {
  eventStore: EventStore;
  keys: IdentityKeys;
  tokens: TokenIssuer;
  refreshTokens: RefreshTokens;
  throttle: LoginThrottle;
  clock: () => number;
  /** Holds back a failed answer (the login slow-down); tests may count instead of waiting. */
  sleep?: (ms: number) => Promise<void>;
  /** Where failed logins and lockouts are logged (warn); Nest's logger by default. */
  logger?: LoggerService;
}

/**
 * Login (password, then the OTP second factor when the user has one), sessions (access, ID and
 * refresh tokens), validation and refresh, and the user's OTP factor. Users are read from their
 * streams, not a projection, so a user created a moment ago by another process can log in at once.
 */
export class AuthService {
  private readonly eventStore: EventStore;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly logger: LoggerService;
  /** A hash to check unknown usernames against, so they take as long as wrong passwords. */
  private readonly decoyHash = hashPassword(randomUUID());

  constructor(private readonly deps: AuthDependencies) {
    this.eventStore = deps.eventStore;
    this.sleep = deps.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
    this.logger = deps.logger ?? new Logger('Auth');
  }

  signingKeys() {
    return this.deps.keys.publicKeySet();
  }

  async login(body: unknown, sourceAddress: string | undefined, correlationId?: string): Promise<Session | MfaChallenge> {
    const request = validateBody(LoginDto, body);
    const gate = await this.deps.throttle.loginGate(request.username, sourceAddress);
    if (gate.refusedForMs > 0) {
      this.warn('login refused: locked after too many failures', {
        username: request.username,
        address: sourceAddress,
        correlationId,
        lockedForMs: gate.refusedForMs,
      });
      throw loginLocked(gate.refusedForMs);
    }
    const user = await this.userByEmail(request.username);
    const passwordOk = user
      ? await verifyPassword(request.password, user.passwordHash)
      : await verifyPassword(request.password, await this.decoyHash).then(() => false);
    if (!user || !passwordOk) {
      const counted = await this.deps.throttle.loginFailed(request.username, sourceAddress);
      const fields = { username: request.username, userId: user?.userId, address: sourceAddress, correlationId, failures: counted.failures };
      this.warn(
        counted.lockedForMs > 0 ? 'login failed; locked' : 'login failed',
        counted.lockedForMs > 0 ? { ...fields, lockedForMs: counted.lockedForMs } : fields,
      );
      // The check due under a username or address lock fails like the lock.
      if (gate.lockedForMs > 0) throw loginLocked(gate.lockedForMs);
      await this.sleep(counted.delayMs);
      throw ServiceError.unauthorized(WRONG_CREDENTIALS);
    }
    await this.deps.throttle.loginSucceeded(request.username, sourceAddress);
    const otp = await this.otpState(user.userId);
    const issueRefreshToken = request.issue_refresh_token ?? true;
    if (otp.state.factor?.confirmed) return this.challenge(user, issueRefreshToken);
    await this.deps.throttle.trust(user.email, sourceAddress);
    return this.session(user, issueRefreshToken);
  }

  async verifyMfa(body: unknown, sourceAddress: string | undefined, correlationId?: string): Promise<Session> {
    const request = validateBody(MfaVerifyDto, body);
    const digest = tokenDigest(request.mfa_token);
    const stream = SessionStreams.mfaChallenge(digest);
    const events = await this.eventStore.readStream(stream);
    const challenge = foldMfaChallenge(events);
    const now = this.deps.clock();
    if (!challengeOpen(challenge, now) || challenge.digest !== digest) throw ServiceError.unauthorized(INVALID_MFA);
    const user = await this.userById(challenge.userId);
    const otp = await this.otpState(challenge.userId);
    const factor = otp.state.factor;
    if (!user || !factor?.confirmed) throw ServiceError.unauthorized(INVALID_MFA);
    await this.refuseLockedOtp(user.userId, { address: sourceAddress, correlationId });
    const step = acceptedOtpStep(decryptSecret(factor.secret, this.deps.keys.encryption), request.otp, now, otp.state.lastStep);
    if (step === undefined) {
      // Counted against the challenge (it dies after a few) and the user's factor (locked after a few, whatever the token).
      await this.appendExpecting(stream, [{ type: 'MfaChallengeFailed', data: {} }], events.length - 1).catch(() => undefined);
      await this.otpFailed(user.userId, { address: sourceAddress, correlationId });
      throw ServiceError.unauthorized(INVALID_MFA);
    }
    // Single use: of two answers racing with the same token, or the same code, one wins.
    if (!(await this.appendExpecting(stream, [{ type: 'MfaChallengeCompleted', data: {} }], events.length - 1))) throw ServiceError.unauthorized(INVALID_MFA);
    if (!(await this.appendExpecting(SessionStreams.otp(user.userId), [{ type: 'OtpCodeAccepted', data: { step } }], otp.revision)))
      throw ServiceError.unauthorized(INVALID_MFA);
    await this.deps.throttle.otpSucceeded(user.userId);
    await this.deps.throttle.trust(user.email, sourceAddress);
    return this.session(user, challenge.issueRefreshToken);
  }

  async validate(bearerToken: string | undefined, body: unknown): Promise<Session> {
    const request = validateBody(ValidateDto, body ?? {});
    if (!bearerToken) throw ServiceError.unauthorized('not authorized: send the access token as Authorization: Bearer <token>');
    let verified;
    try {
      verified = await this.deps.tokens.verify(bearerToken, true);
    } catch {
      throw ServiceError.unauthorized('not authorized: the access token is not valid');
    }
    const user = await this.userById(verified.principal.userId);
    if (!user || user.accountId !== verified.principal.accountId) throw ServiceError.unauthorized('not authorized: the access token is not valid');
    if (!verified.expired) {
      return this.sessionOf(user, { access_token: bearerToken, refresh_token: request.refresh_token ?? '', expires_at: verified.expiresAt });
    }
    if (!request.refresh_token) throw ServiceError.unauthorized('not authorized: the access token has expired; send refresh_token to renew it');
    if (!(await this.deps.refreshTokens.isActive(user.userId, request.refresh_token))) {
      throw ServiceError.unauthorized('not authorized: the refresh token is not valid; log in again');
    }
    const access = await this.deps.tokens.accessToken(user);
    return this.sessionOf(user, { access_token: access.token, refresh_token: request.refresh_token, expires_at: access.expiresAt });
  }

  async revokeSessions(context: CallerContext): Promise<{ revoked: number }> {
    return { revoked: await this.deps.refreshTokens.revokeAll(context.userId) };
  }

  async enrollOtp(context: CallerContext): Promise<{ secret: string; otpauth_uri: string }> {
    const user = await this.sessionUser(context);
    const otp = await this.otpState(user.userId);
    if (otp.state.factor?.confirmed) throw ServiceError.conflict(ErrorCodes.MFA_STATE, 'an OTP factor is active; remove it before enrolling another');
    const secret = newOtpSecret();
    const event = {
      type: 'OtpFactorEnrolled',
      data: { factorId: randomUUID(), userId: user.userId, secret: encryptSecret(secret, this.deps.keys.encryption[0]) },
    };
    if (!(await this.appendExpecting(SessionStreams.otp(user.userId), [event], otp.revision))) throw this.concurrentChange();
    return { secret, otpauth_uri: otpauthUri(secret, user.email) };
  }

  async confirmOtp(context: CallerContext, body: unknown): Promise<void> {
    const user = await this.sessionUser(context);
    const request = validateBody(OtpDto, body);
    const otp = await this.otpState(user.userId);
    const factor = otp.state.factor;
    if (!factor) throw ServiceError.conflict(ErrorCodes.MFA_STATE, 'no OTP factor is being enrolled; enroll first');
    if (factor.confirmed) throw ServiceError.conflict(ErrorCodes.MFA_STATE, 'the OTP factor is active already');
    const step = acceptedOtpStep(decryptSecret(factor.secret, this.deps.keys.encryption), request.otp, this.deps.clock(), otp.state.lastStep);
    if (step === undefined) throw ServiceError.badRequest(ErrorCodes.MFA_INVALID, 'the code is not valid for this factor');
    const events = [
      { type: 'OtpFactorConfirmed', data: { factorId: factor.factorId } },
      { type: 'OtpCodeAccepted', data: { step } },
    ];
    if (!(await this.appendExpecting(SessionStreams.otp(user.userId), events, otp.revision))) throw this.concurrentChange();
  }

  /**
   * Removing the factor takes a current code of it, from a user's session: a stolen session alone,
   * or an API key, cannot switch the second factor off. Wrong codes count toward the factor's lock.
   */
  async removeOtp(context: CallerContext, body: unknown): Promise<void> {
    const user = await this.sessionUser(context);
    const request = validateBody(OtpDto, body);
    const otp = await this.otpState(user.userId);
    const factor = otp.state.factor;
    if (!factor) throw ServiceError.notFound(ErrorCodes.MFA_STATE, 'no OTP factor is enrolled');
    const log = { correlationId: context.correlationId };
    await this.refuseLockedOtp(user.userId, log);
    const step = acceptedOtpStep(decryptSecret(factor.secret, this.deps.keys.encryption), request.otp, this.deps.clock(), otp.state.lastStep);
    if (step === undefined) {
      await this.otpFailed(user.userId, log);
      throw ServiceError.badRequest(ErrorCodes.MFA_INVALID, 'the code is not valid for this factor');
    }
    const events = [
      { type: 'OtpCodeAccepted', data: { step } },
      { type: 'OtpFactorRemoved', data: { factorId: factor.factorId } },
    ];
    if (!(await this.appendExpecting(SessionStreams.otp(user.userId), events, otp.revision))) throw this.concurrentChange();
    await this.deps.throttle.otpSucceeded(user.userId);
  }

  private async refuseLockedOtp(userId: string, log: { address?: string; correlationId?: string }): Promise<void> {
    const lockedMs = await this.deps.throttle.otpLockedForMs(userId);
    if (lockedMs === 0) return;
    this.warn('one-time code refused: the factor is locked after too many wrong codes', { userId, ...log, lockedForMs: lockedMs });
    throw otpLocked(lockedMs);
  }

  /** Counts a wrong code; the one that locks the factor is answered with the lock at once. */
  private async otpFailed(userId: string, log: { address?: string; correlationId?: string }): Promise<void> {
    const counted = await this.deps.throttle.otpFailed(userId);
    if (counted.lockedForMs > 0) {
      this.warn('wrong one-time code; the factor is locked', { userId, ...log, failures: counted.failures, lockedForMs: counted.lockedForMs });
      throw otpLocked(counted.lockedForMs);
    }
    this.warn('wrong one-time code', { userId, ...log, failures: counted.failures });
    await this.sleep(counted.delayMs);
  }

  /**
   * One warn line per failed attempt or refusal: who (the user id when known, the username only as
   * a digest, since people type passwords into it), from where, and the count; never a secret.
   */
  private warn(message: string, fields: { username?: string; userId?: string; address?: string; correlationId?: string; [field: string]: unknown }): void {
    const { username, ...rest } = fields;
    const line: Record<string, unknown> = { msg: message, event: 'auth.failure', ...rest };
    if (username !== undefined) line.usernameDigest = emailDigest(username).slice(0, 16);
    for (const [field, value] of Object.entries(line)) if (value === undefined) delete line[field];
    this.logger.warn(line, 'Auth');
  }

  private async challenge(user: UserState, issueRefreshToken: boolean): Promise<MfaChallenge> {
    const token = newOpaqueToken('mfa');
    const digest = tokenDigest(token);
    const expiresAt = this.deps.clock() + MFA_CHALLENGE_TTL_MS;
    const issued: MfaChallengeIssued = {
      type: 'MfaChallengeIssued',
      data: { userId: user.userId, accountId: user.accountId, digest, expiresAt, issueRefreshToken },
    };
    await this.appendExpecting(SessionStreams.mfaChallenge(digest), [issued], 'no_stream');
    return {
      mfa_required: true,
      mfa_token: token,
      factor: 'otp',
      mfa_requirements: { challenge: [{ type: 'otp' }], expires_at: Math.floor(expiresAt / 1000) },
    };
  }

  private async session(user: UserState, issueRefreshToken: boolean): Promise<Session> {
    const access = await this.deps.tokens.accessToken(user);
    const refresh = issueRefreshToken ? (await this.deps.refreshTokens.issue(user.userId, user.accountId)).token : '';
    return this.sessionOf(user, { access_token: access.token, refresh_token: refresh, expires_at: access.expiresAt });
  }

  private async sessionOf(user: UserState, tokens: { access_token: string; refresh_token: string; expires_at: number }): Promise<Session> {
    const profile = sessionUser(user);
    return {
      tokens: {
        access_token: tokens.access_token,
        id_token: await this.deps.tokens.idToken(profile, tokens.expires_at),
        refresh_token: tokens.refresh_token,
        expires_at: tokens.expires_at,
      },
      user: profile,
    };
  }

  /** The caller's user when the credential is the user's own session (an access token), never an API key (403). */
  private async sessionUser(context: CallerContext): Promise<UserState> {
    const user = context?.userId ? await this.userById(context.userId) : undefined;
    if (!user || user.accountId !== context.accountId) throw ServiceError.unauthorized();
    if (context.keyId) throw ServiceError.forbidden('the second factor is managed from a user session (Bearer access token), not with an API key');
    return user;
  }

  private async userByEmail(email: string): Promise<UserState | undefined> {
    const claim = await this.eventStore.readStream(IdentityStreams.email(emailDigest(email)), { maxCount: 1 });
    const userId = (claim[0]?.data as { userId?: string } | undefined)?.userId;
    return userId ? this.userById(userId) : undefined;
  }

  private async userById(userId: string): Promise<UserState | undefined> {
    return foldUser(await this.eventStore.readStream(IdentityStreams.user(userId)));
  }

  private async otpState(userId: string): Promise<{ state: OtpFactorState; revision: number | 'no_stream' }> {
    const events = await this.eventStore.readStream(SessionStreams.otp(userId));
    return { state: foldOtp(events), revision: events.length ? events[events.length - 1].revision : 'no_stream' };
  }

  /** Appends when the stream is still at `expected`; false when someone else changed it first. */
  private async appendExpecting(stream: string, events: NewEvent[], expected: number | 'no_stream'): Promise<boolean> {
    try {
      const metadata = { schemaVersion: 1, occurredAt: new Date(this.deps.clock()).toISOString() };
      await this.eventStore.append(
        stream,
        events.map((e) => ({ ...e, metadata })),
        { expectedRevision: expected === -1 ? 'no_stream' : expected },
      );
      return true;
    } catch (error) {
      if (error instanceof WrongExpectedRevisionError) return false;
      throw error;
    }
  }

  private concurrentChange(): ServiceError {
    return ServiceError.conflict('AUTH.CONCURRENT_CHANGE', 'the factor changed meanwhile; try again');
  }
}

/** The spec's user object. E-mail verification is not a feature here, so email_verified is false. */
export function sessionUser(user: UserState): SessionUser {
  return {
    user_id: user.userId,
    permissions: user.permissions,
    email: user.email,
    email_verified: false,
    name: user.name,
    nickname: user.email.split('@', 1)[0],
    picture_url: '',
    updated_at: user.updatedAt,
  };
}
