import { PERMISSIONS, holdsPermission, permissionsImplying, withImpliedPermissions } from './permissions';

describe('permissions', () => {
  it('has reporting:read, which reporting:write implies', () => {
    expect(PERMISSIONS).toContain('reporting:read');
    expect(permissionsImplying('reporting:read')).toEqual(['reporting:write']);
    expect(permissionsImplying('reporting:write')).toEqual([]);
    expect(permissionsImplying('assets:read')).toEqual([]);
  });

  it('holds a permission given, or implied by one given; nothing else', () => {
    expect(holdsPermission(['reporting:write'], 'reporting:read')).toBe(true);
    expect(holdsPermission(['reporting:read'], 'reporting:read')).toBe(true);
    expect(holdsPermission(['reporting:read'], 'reporting:write')).toBe(false);
    // No other implication: a writer of assets is not a reader of them unless given both.
    expect(holdsPermission(['assets:write'], 'assets:read')).toBe(false);
    expect(holdsPermission([], 'reporting:read')).toBe(false);
  });

  it('lists what a set of permissions grants, in canonical order', () => {
    expect(withImpliedPermissions(['keys:manage', 'reporting:write'])).toEqual(['reporting:read', 'reporting:write', 'keys:manage']);
    expect(withImpliedPermissions(['assets:read', 'legacy:thing'])).toEqual(['assets:read', 'legacy:thing']);
  });
});
