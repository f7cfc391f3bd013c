import { PERMISSIONS, ServiceError } from '@funnel/contracts';
import { ApiKeyCommand, apiKeyPrincipal, decideApiKey, foldApiKey, initialApiKeyState } from './api-key-decider';
import { ApiKeyEvent, decodeApiKeyEvent } from './api-key-events';
import { apiKeyDigest, newApiKeyId } from './api-keys';

const ALL = [...PERMISSIONS];
const digest = apiKeyDigest('fk_the-key-itself-0123456789');
const keyId = '5f0c9a1e7b2d4c6e8a0b1c2d';
const ref = { keyId, accountId: 'ACCOUNT00001' };
const issued: ApiKeyEvent = {
  type: 'ApiKeyIssued',
  data: { ...ref, userId: 'USER00000001', name: 'zapier', digest, prefix: 'fk_the', permissions: ['assets:read', 'keys:manage'] },
};
const issue = (over: Partial<Extract<ApiKeyCommand, { type: 'IssueApiKey' }>> = {}): ApiKeyCommand => ({
  type: 'IssueApiKey',
  ...issued.data,
  permissions: ['keys:manage', 'assets:read'],
  grantor: ALL,
  ...over,
});
const update = (over: Partial<Extract<ApiKeyCommand, { type: 'UpdateApiKey' }>> = {}): ApiKeyCommand => ({
  type: 'UpdateApiKey',
  accountId: ref.accountId,
  grantor: ALL,
  ...over,
});

/** given(events).when(command).then(events | error) */
function given(events: ApiKeyEvent[]) {
  const state = foldApiKey(events, initialApiKeyState());
  return {
    when: (command: ApiKeyCommand) => ({
      then: (expected: ApiKeyEvent[]) => expect(decideApiKey(command, state)).toEqual(expected),
      thenFails: (status: number, code: string) => {
        let thrown: unknown;
        try {
          decideApiKey(command, state);
        } catch (e) {
          thrown = e;
        }
        expect(thrown).toBeInstanceOf(ServiceError);
        expect(thrown).toMatchObject({ status, code });
      },
    }),
  };
}

describe('API key decider', () => {
  it('issues a key with its permissions in canonical order, each once', () =>
    given([])
      .when(issue({ permissions: ['keys:manage', 'assets:read', 'keys:manage'] }))
      .then([issued]));
  it('refuses to issue a key over an existing stream (409)', () => given([issued]).when(issue()).thenFails(409, 'APIKEY.ALREADY_EXISTS'));
  it('never grants a permission the grantor lacks (403)', () =>
    given([])
      .when(issue({ permissions: ['assets:read', 'assets:write'], grantor: ['assets:read', 'keys:manage'] }))
      .thenFails(403, 'AUTH.FORBIDDEN'));
  it('grants reporting:read to a grantor holding only reporting:write (write implies read), not write to a reader', () => {
    given([])
      .when(issue({ permissions: ['reporting:read'], grantor: ['reporting:write', 'keys:manage'] }))
      .then([{ ...issued, data: { ...issued.data, permissions: ['reporting:read'] } }]);
    given([])
      .when(issue({ permissions: ['reporting:write'], grantor: ['reporting:read', 'keys:manage'] }))
      .thenFails(403, 'AUTH.FORBIDDEN');
  });
  it('lets a reporting:write caller change a reporting:read key (not a stronger key)', () => {
    const reader: ApiKeyEvent = { type: 'ApiKeyIssued', data: { ...issued.data, permissions: ['reporting:read'] } };
    given([reader])
      .when(update({ enabled: false, grantor: ['reporting:write', 'keys:manage'] }))
      .then([{ type: 'ApiKeyDisabled', data: ref }]);
  });
  it('refuses unknown permission names (400), before the grantor check', () =>
    given([])
      .when(issue({ permissions: ['assets:read', 'root'], grantor: [] }))
      .thenFails(400, 'REQUEST.VALIDATION_FAILED'));
  it('issues a key without permissions (it authenticates, and may call what needs none)', () =>
    given([])
      .when(issue({ permissions: [], grantor: [] }))
      .then([{ ...issued, data: { ...issued.data, permissions: [] } }]));

  it('renames', () =>
    given([issued])
      .when(update({ name: 'make' }))
      .then([{ type: 'ApiKeyRenamed', data: { ...ref, name: 'make' } }]));
  it('changes permissions within the grantor’s', () =>
    given([issued])
      .when(update({ permissions: ['assets:write'], grantor: ['assets:read', 'assets:write', 'keys:manage'] }))
      .then([{ type: 'ApiKeyPermissionsChanged', data: { ...ref, permissions: ['assets:write'] } }]));
  it('refuses to raise permissions beyond the grantor’s (403)', () =>
    given([issued])
      .when(update({ permissions: ['billing:manage'], grantor: ['keys:manage'] }))
      .thenFails(403, 'AUTH.FORBIDDEN'));
  it('refuses to change, disable or delete a key holding a permission the caller lacks (403)', () => {
    // The key holds assets:read and keys:manage; the caller only keys:manage.
    for (const change of [{ name: 'x' }, { enabled: false }, { permissions: [] }]) {
      given([issued])
        .when(update({ ...change, grantor: ['keys:manage'] }))
        .thenFails(403, 'AUTH.FORBIDDEN');
    }
    given([issued])
      .when({ type: 'DeleteApiKey', accountId: ref.accountId, grantor: ['keys:manage'] })
      .thenFails(403, 'AUTH.FORBIDDEN');
    // A caller holding at least what the key holds may.
    given([issued])
      .when(update({ enabled: false, grantor: ['assets:read', 'keys:manage'] }))
      .then([{ type: 'ApiKeyDisabled', data: ref }]);
  });
  it('disables and enables', () => {
    const disabled: ApiKeyEvent = { type: 'ApiKeyDisabled', data: ref };
    given([issued])
      .when(update({ enabled: false }))
      .then([disabled]);
    given([issued, disabled])
      .when(update({ enabled: true }))
      .then([{ type: 'ApiKeyEnabled', data: ref }]);
  });
  it('records only what changes: the same values are no events', () =>
    given([issued])
      .when(update({ name: 'zapier', permissions: ['keys:manage', 'assets:read'], enabled: true }))
      .then([]));
  it('combines changes of one update', () =>
    given([issued])
      .when(update({ name: 'n', permissions: ['assets:read'], enabled: false }))
      .then([
        { type: 'ApiKeyPermissionsChanged', data: { ...ref, permissions: ['assets:read'] } },
        { type: 'ApiKeyRenamed', data: { ...ref, name: 'n' } },
        { type: 'ApiKeyDisabled', data: ref },
      ]));
  it('an unknown key, another account’s key and a deleted key are not found (404)', () => {
    given([])
      .when(update({ name: 'x' }))
      .thenFails(404, 'APIKEY.NOT_FOUND');
    given([issued])
      .when(update({ name: 'x', accountId: 'ACCOUNT00002' }))
      .thenFails(404, 'APIKEY.NOT_FOUND');
    given([issued, { type: 'ApiKeyDeleted', data: ref }])
      .when(update({ enabled: true }))
      .thenFails(404, 'APIKEY.NOT_FOUND');
  });

  it('deletes', () =>
    given([issued])
      .when({ type: 'DeleteApiKey', accountId: ref.accountId, grantor: ALL })
      .then([{ type: 'ApiKeyDeleted', data: ref }]));
  it('delete of an unknown, foreign or deleted key is a 404', () => {
    given([]).when({ type: 'DeleteApiKey', accountId: ref.accountId, grantor: ALL }).thenFails(404, 'APIKEY.NOT_FOUND');
    given([issued]).when({ type: 'DeleteApiKey', accountId: 'ACCOUNT00002', grantor: ALL }).thenFails(404, 'APIKEY.NOT_FOUND');
    given([issued, { type: 'ApiKeyDeleted', data: ref }])
      .when({ type: 'DeleteApiKey', accountId: ref.accountId, grantor: ALL })
      .thenFails(404, 'APIKEY.NOT_FOUND');
  });
});

describe('API key authentication rule', () => {
  const principal = { accountId: ref.accountId, userId: 'USER00000001', permissions: ['assets:read', 'keys:manage'], keyId };
  it('an issued key authenticates as its user, with its permissions and id', () => expect(apiKeyPrincipal(foldApiKey([issued]), digest)).toEqual(principal));
  it('follows permission changes', () =>
    expect(apiKeyPrincipal(foldApiKey([issued, { type: 'ApiKeyPermissionsChanged', data: { ...ref, permissions: [] } }]), digest)).toEqual({
      ...principal,
      permissions: [],
    }));
  it('refuses disabled, deleted and unknown keys, and another digest', () => {
    expect(apiKeyPrincipal(foldApiKey([issued, { type: 'ApiKeyDisabled', data: ref }]), digest)).toBeNull();
    expect(apiKeyPrincipal(foldApiKey([issued, { type: 'ApiKeyDisabled', data: ref }, { type: 'ApiKeyEnabled', data: ref }]), digest)).toEqual(principal);
    expect(apiKeyPrincipal(foldApiKey([issued, { type: 'ApiKeyDeleted', data: ref }]), digest)).toBeNull();
    expect(apiKeyPrincipal(foldApiKey([]), digest)).toBeNull();
    expect(apiKeyPrincipal(foldApiKey([issued]), apiKeyDigest('fk_another-key-0123456789'))).toBeNull();
  });
  it('a new key id is random: 24 hex characters, unrelated to the key', () => {
    const ids = new Set(Array.from({ length: 100 }, () => newApiKeyId()));
    expect(ids.size).toBe(100);
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{24}$/);
  });
});

describe('API key events', () => {
  it('carry no key in clear', () => expect(JSON.stringify(decideApiKey(issue(), initialApiKeyState()))).not.toContain('fk_the-key-itself'));
  it('decode only their own stored types', () => {
    expect(decodeApiKeyEvent('ApiKeyDisabled', ref)).toEqual({ type: 'ApiKeyDisabled', data: ref });
    expect(decodeApiKeyEvent('UserRegistered', {})).toBeUndefined();
  });
});
