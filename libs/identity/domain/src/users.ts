import { createHash } from 'node:crypto';
import { PasswordHash } from './passwords';
import { UserRegistered } from './identity-events';

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** Names the stream that reserves an e-mail address (the address itself is not in the name). */
export function emailDigest(email: string): string {
  return createHash('sha256').update(normalizeEmail(email)).digest('hex');
}

/** A user as login and sessions need it, folded from the user's stream. */
export interface UserState {
  userId: string;
  accountId: string;
  email: string;
  name: string;
  permissions: string[];
  passwordHash: PasswordHash;
  /** Unix seconds of the user's last change. */
  updatedAt: number;
}

export function foldUser(events: { type: string; data: unknown; recordedAt: Date }[]): UserState | undefined {
  let state: UserState | undefined;
  for (const event of events) {
    if (event.type === 'UserRegistered') {
      const d = event.data as UserRegistered['data'];
      state = {
        userId: d.userId,
        accountId: d.accountId,
        email: d.email,
        name: d.name,
        permissions: d.permissions,
        passwordHash: d.passwordHash,
        updatedAt: 0,
      };
    }
    if (state) state.updatedAt = Math.floor(event.recordedAt.getTime() / 1000);
  }
  return state;
}
