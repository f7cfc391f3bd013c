import { ReadStore } from '@funnel/readstore';
import { PasswordHash } from '@funnel/identity-domain';

export interface UserDocument {
  _id: string;
  [key: string]: unknown;
  accountId: string;
  email: string;
  name: string;
  permissions: string[];
  passwordHash: PasswordHash;
  revision: number;
}

/**
 * Keyed by the key's SHA-256 digest: authentication is one lookup, and no clear key is stored.
 * A deleted key stays as a tombstone (`deleted`), so a replay or a stale event cannot revive it.
 */
export interface ApiKeyDocument {
  _id: string;
  [key: string]: unknown;
  keyId: string;
  accountId: string;
  userId: string;
  name: string;
  prefix: string;
  permissions: string[];
  enabled: boolean;
  deleted: boolean;
  /** ISO 8601, when the key was issued. */
  createdAt: string;
  revision: number;
}

/**
 * When a key last authenticated, kept apart from the key document (no event per use): written at
 * most about once a minute per key and process, joined into key lists.
 */
export interface ApiKeyUsageDocument {
  /** The key id. */
  _id: string;
  [key: string]: unknown;
  accountId: string;
  /** ISO 8601. */
  lastUsedAt: string;
}

export const usersCollection = (readStore: ReadStore) => readStore.collection<UserDocument>('identity_users');
export const apiKeysCollection = (readStore: ReadStore) => readStore.collection<ApiKeyDocument>('identity_apikeys');
export const apiKeyUsageCollection = (readStore: ReadStore) => readStore.collection<ApiKeyUsageDocument>('identity_apikey_usage', { persistent: true });
