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

/** Keyed by the key's SHA-256 digest: authentication is one lookup, and no clear key is stored. */
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
  revision: number;
}

export const usersCollection = (readStore: ReadStore) => readStore.collection<UserDocument>('identity_users');
export const apiKeysCollection = (readStore: ReadStore) => readStore.collection<ApiKeyDocument>('identity_apikeys');
