import { Secret, TOTP } from 'otpauth';

/** TOTP as authenticator apps expect it: SHA-1, 6 digits, 30-second steps. */
const PERIOD_SECONDS = 30;
/** Codes of one step before or after the current one are accepted (clock skew). */
const SKEW_STEPS = 1;

function totp(secretBase32: string, label = 'user'): TOTP {
  return new TOTP({ issuer: 'funnel-service', label, algorithm: 'SHA1', digits: 6, period: PERIOD_SECONDS, secret: Secret.fromBase32(secretBase32) });
}

export function newOtpSecret(): string {
  return new Secret({ size: 20 }).base32;
}

export function otpauthUri(secretBase32: string, label: string): string {
  return totp(secretBase32, label).toString();
}

export function otpCode(secretBase32: string, nowMs: number): string {
  return totp(secretBase32).generate({ timestamp: nowMs });
}

/**
 * The time step a code belongs to when it is valid at `nowMs` within the skew window and newer than
 * `lastStep` (a code, once accepted, cannot be used again); otherwise undefined.
 */
export function acceptedOtpStep(secretBase32: string, code: unknown, nowMs: number, lastStep: number): number | undefined {
  if (typeof code !== 'string' || !/^\d{6}$/.test(code)) return undefined;
  const delta = totp(secretBase32).validate({ token: code, timestamp: nowMs, window: SKEW_STEPS });
  if (delta === null) return undefined;
  const step = Math.floor(nowMs / 1000 / PERIOD_SECONDS) + delta;
  return step > lastStep ? step : undefined;
}
