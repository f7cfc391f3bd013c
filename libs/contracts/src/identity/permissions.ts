/**
 * Permissions a credential can carry (documented in the README). The bootstrap and CLI users hold
 * all of them; an API key or token carries a subset.
 */
export const PERMISSIONS = [
  'assets:read',
  'assets:write',
  'reporting:read',
  'reporting:write',
  'billing:manage',
  'keys:manage',
  'settings:write',
  'integrations:manage',
] as const;
export type Permission = (typeof PERMISSIONS)[number];

export function isPermission(value: unknown): value is Permission {
  return typeof value === 'string' && (PERMISSIONS as readonly string[]).includes(value);
}

/**
 * What holding a permission also grants: a credential with `reporting:write` may read reports
 * (`reporting:read`), including users and keys created before `reporting:read` existed, whose
 * stored permissions name `reporting:write` only.
 */
export const IMPLIED_PERMISSIONS: Readonly<Partial<Record<Permission, readonly Permission[]>>> = Object.freeze({
  'reporting:write': ['reporting:read'],
});

/** The permissions that imply `permission` (for documents: "`reporting:write` implies it"). */
export function permissionsImplying(permission: string): Permission[] {
  return PERMISSIONS.filter((held) => IMPLIED_PERMISSIONS[held]?.includes(permission as Permission));
}

/** Whether a credential holding `held` has `permission`, itself or through a permission that implies it. */
export function holdsPermission(held: readonly string[], permission: string): boolean {
  if (held.includes(permission)) return true;
  for (const name of held) if (IMPLIED_PERMISSIONS[name as Permission]?.includes(permission as Permission)) return true;
  return false;
}

/** `held` with what it implies, in the order of PERMISSIONS (unknown names kept at the end, as they are). */
export function withImpliedPermissions(held: readonly string[]): string[] {
  const known = PERMISSIONS.filter((permission) => holdsPermission(held, permission));
  return [...known, ...held.filter((name) => !isPermission(name))];
}
