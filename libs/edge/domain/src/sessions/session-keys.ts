/**
 * What may name a session: an account id or a visitor id is 1..64 letters, digits, `_` and `-`. No
 * dot, so `<accountId>.<visitorId>` (a JetStream KV key) can never be read as another account's key,
 * and nothing a visitor puts in `vid` can reach past its own account's sessions.
 */
export const SESSION_KEY_PART = /^[A-Za-z0-9_-]{1,64}$/;

export function isSessionKeyPart(value: unknown): value is string {
  return typeof value === 'string' && SESSION_KEY_PART.test(value);
}

/** The store key of a visitor's session in an account: `<accountId>.<visitorId>` (both checked by the caller). */
export function sessionKey(accountId: string, visitorId: string): string {
  return `${accountId}.${visitorId}`;
}

/** Thrown when a session is stored under an account or visitor id that cannot name one. */
export class InvalidSessionKeyError extends Error {
  constructor(what: 'accountId' | 'visitorId') {
    super(`a session's ${what} is 1..64 letters, digits, _ and -`);
    this.name = 'InvalidSessionKeyError';
  }
}
