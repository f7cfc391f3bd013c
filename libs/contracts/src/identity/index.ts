export * from './permissions';

/** Request/reply subjects of the identity service. */
export const IdentitySubjects = {
  authenticateApiKey: 'identity.apikey.authenticate',
  /** The public signing keys as a JWK set: `{ keys: JWK[] }`. */
  signingKeys: 'identity.auth.signingKeys',
  login: 'identity.auth.login',
  mfaVerify: 'identity.auth.mfaVerify',
  validate: 'identity.auth.validate',
  revokeSessions: 'identity.auth.revokeSessions',
  otpEnroll: 'identity.mfa.otpEnroll',
  otpConfirm: 'identity.mfa.otpConfirm',
  otpRemove: 'identity.mfa.otpRemove',
  apiKeysList: 'identity.apikeys.list',
  apiKeysGenerate: 'identity.apikeys.generate',
  apiKeysUpdate: 'identity.apikeys.update',
  apiKeysDelete: 'identity.apikeys.delete',
  userSettingsGet: 'identity.usersettings.get',
  userSettingsSave: 'identity.usersettings.save',
  userSettingsDelete: 'identity.usersettings.delete',
} as const;

/**
 * Events the identity service publishes (fire and forget) for other processes' caches.
 * `apiKeysRevoked`: these keys were deleted, disabled or changed; forget any cached verification.
 */
export const IdentityEvents = {
  apiKeysRevoked: 'identity.events.apiKeysRevoked',
} as const;

export interface ApiKeysRevokedEvent {
  keyIds: string[];
}

/** Who a verified credential belongs to. */
export interface Principal {
  accountId: string;
  userId: string;
  permissions: string[];
  /** Set when the credential is an API key: lets caches drop it when the key is revoked. */
  keyId?: string;
}

export interface AuthenticateApiKeyRequest {
  key: string;
}

/** API keys (user-chosen for bootstrap, generated otherwise): 16..128 printable ASCII characters. */
export const API_KEY_PATTERN = /^[\x21-\x7e]{16,128}$/;

/**
 * The keys identity issues: `fk_` and 32 base64url characters, 192 random bits. Guessing one is
 * hopeless, so a key of this shape is always checked (see the gateway's credential failures);
 * other keys (a BOOTSTRAP_API_KEY of the operator's choosing) may be weak.
 */
export const ISSUED_API_KEY_PATTERN = /^fk_[A-Za-z0-9_-]{32}$/;

/** What the gateway forwards to identity routes: query, JSON body, and for some the caller's details. */
export interface IdentityRequestBody {
  query: Record<string, string | string[] | undefined>;
  body: unknown;
  /** The raw `Authorization: Bearer` token (only on /auth/validate, which accepts expired tokens). */
  bearerToken?: string;
  /** The client's address as the gateway sees it (login throttling). */
  sourceAddress?: string;
  /** The path's parameters, decoded (`/billing/domains/:domain` gives `{ domain }`). */
  params?: Record<string, string>;
  /** The request headers the route forwards (lower-case names), e.g. `idempotency-key`. */
  headers?: Record<string, string>;
}

/** The user object of session responses (spec: Authentication, item 6). */
export interface SessionUser {
  user_id: string;
  permissions: string[];
  email: string;
  email_verified: boolean;
  name: string;
  nickname: string;
  picture_url: string;
  /** Unix seconds. */
  updated_at: number;
}

export interface SessionTokens {
  access_token: string;
  id_token: string;
  /** Empty when none was issued (login with issue_refresh_token false). */
  refresh_token: string;
  /** Unix seconds. */
  expires_at: number;
}

export interface Session {
  tokens: SessionTokens;
  user: SessionUser;
}

export interface MfaChallenge {
  mfa_required: true;
  mfa_token: string;
  factor: 'otp';
  mfa_requirements: { challenge: { type: 'otp' }[]; expires_at: number };
}

/** An integration API key as lists show it (never the secret). */
export interface ApiKeyInfo {
  id: string;
  name: string;
  /** The first characters of the key, to tell keys apart. */
  prefix: string;
  permissions: string[];
  enabled: boolean;
  /** ISO 8601. */
  createdAt: string;
  /** ISO 8601, or null when never used. */
  lastUsedAt: string | null;
  /** The user who generated the key. */
  userId: string;
}

/** The answer to a generate: the secret, shown this once. */
export interface GeneratedApiKey extends ApiKeyInfo {
  key: string;
}

/** User settings: one JSON object per user, at most this many bytes as JSON. */
export const USER_SETTINGS_MAX_BYTES = 64 * 1024;
export * from './access-tokens';
export * from './auth.dto';
export * from './api-keys.dto';
export * from './docs';
