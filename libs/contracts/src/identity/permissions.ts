/**
 * Permissions a credential can carry (documented in the README). The bootstrap and CLI users hold
 * all of them; an API key or token carries a subset.
 */
export const PERMISSIONS = ['assets:read', 'assets:write', 'reporting:write', 'billing:manage', 'keys:manage', 'settings:write'] as const;
export type Permission = (typeof PERMISSIONS)[number];

export function isPermission(value: unknown): value is Permission {
  return typeof value === 'string' && (PERMISSIONS as readonly string[]).includes(value);
}
