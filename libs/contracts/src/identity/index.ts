/** Permissions a credential can carry. The bootstrap and CLI users hold all of them. */
export const PERMISSIONS = ['assets:read', 'assets:write', 'reporting:write', 'billing:manage', 'keys:manage', 'settings:write'] as const;
export type Permission = (typeof PERMISSIONS)[number];

export const IdentitySubjects = {
  authenticateApiKey: 'identity.apikey.authenticate',
} as const;

/** Who a verified credential belongs to. */
export interface Principal {
  accountId: string;
  userId: string;
  permissions: string[];
}

export interface AuthenticateApiKeyRequest {
  key: string;
}

/** API keys (user-chosen for bootstrap, generated otherwise): 16..128 printable ASCII characters. */
export const API_KEY_PATTERN = /^[\x21-\x7e]{16,128}$/;
