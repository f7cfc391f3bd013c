import { PasswordHash } from './passwords';

/** Identity events (explicit stored type names). Secrets appear only as hashes or digests. */
export interface AccountOpened {
  type: 'AccountOpened';
  data: { accountId: string; name: string };
}
export interface EmailReserved {
  type: 'EmailReserved';
  /** Claims the address for this user and account; the user's other streams follow. */
  data: { userId: string; accountId: string };
}
export interface UserRegistered {
  type: 'UserRegistered';
  data: { userId: string; accountId: string; email: string; name: string; passwordHash: PasswordHash; permissions: string[] };
}
export interface ApiKeyIssued {
  type: 'ApiKeyIssued';
  data: { keyId: string; accountId: string; userId: string; name: string; digest: string; prefix: string; permissions: string[] };
}
/** Claims a key digest for one key id: how a key's stream is found from the key alone (ids are random). */
export interface ApiKeyDigestReserved {
  type: 'ApiKeyDigestReserved';
  data: { keyId: string };
}
export type IdentityEvent = AccountOpened | EmailReserved | UserRegistered | ApiKeyIssued | ApiKeyDigestReserved;

/** Stream names: one per account, user, key, and one per e-mail address and per key digest that reserves it (unique by construction). */
export const IdentityStreams = {
  account: (accountId: string) => `account-${accountId}`,
  user: (userId: string) => `user-${userId}`,
  apiKey: (keyId: string) => `apikey-${keyId}`,
  email: (emailDigest: string) => `useremail-${emailDigest}`,
  apiKeyDigest: (digest: string) => `apikeydigest-${digest}`,
  prefixes: ['account-', 'user-', 'apikey-'],
};
