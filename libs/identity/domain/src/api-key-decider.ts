import { ErrorCodes, PERMISSIONS, Principal, ServiceError, holdsPermission, isPermission } from '@funnel/contracts';
import { ApiKeyEvent } from './api-key-events';

/** A key as its stream says it is. */
export interface ApiKeyRecord {
  keyId: string;
  accountId: string;
  /** The user who generated it; requests made with the key act as this user. */
  userId: string;
  name: string;
  /** SHA-256 digest of the key (the key itself is never stored). */
  digest: string;
  prefix: string;
  permissions: string[];
  enabled: boolean;
  deleted: boolean;
}

/** State of one key stream; null while the stream does not exist. */
export interface ApiKeyState {
  key: ApiKeyRecord | null;
}

export const initialApiKeyState = (): ApiKeyState => ({ key: null });

/**
 * The id of a key issued before ids were random: the first 24 hex characters of its digest. Such
 * keys keep their ids; authentication still finds their streams this way.
 */
export function legacyApiKeyIdOf(digest: string): string {
  return digest.slice(0, 24);
}

export { API_KEY_ID_PATTERN } from '@funnel/contracts';

/**
 * `grantor`: the permissions of whoever asks (the calling principal). A key never gets a permission
 * its grantor does not hold, so a key cannot be used to mint a stronger one.
 */
export type ApiKeyCommand =
  | {
      type: 'IssueApiKey';
      keyId: string;
      accountId: string;
      userId: string;
      name: string;
      digest: string;
      prefix: string;
      permissions: string[];
      grantor: readonly string[];
    }
  | { type: 'UpdateApiKey'; accountId: string; name?: string; permissions?: string[]; enabled?: boolean; grantor: readonly string[] }
  | { type: 'DeleteApiKey'; accountId: string; grantor: readonly string[] };

function notFound(): ServiceError {
  return ServiceError.notFound(ErrorCodes.API_KEY_NOT_FOUND, 'API key not found');
}

/**
 * Known permission names, each once, in the canonical order of PERMISSIONS. An unknown name is a 400;
 * one the grantor lacks (neither holds nor has through one it holds: `reporting:write` implies
 * `reporting:read`) is a 403.
 */
export function grantablePermissions(requested: readonly string[], grantor: readonly string[]): string[] {
  const unknown = requested.filter((p) => !isPermission(p));
  if (unknown.length) {
    throw ServiceError.badRequest(
      ErrorCodes.VALIDATION,
      `unknown permission(s): ${unknown.join(', ')}; known: ${PERMISSIONS.join(', ')}`,
      unknown.map((p) => ({ field: 'permissions', code: 'isIn', message: `permissions: unknown permission ${JSON.stringify(p)}` })),
    );
  }
  const lacking = PERMISSIONS.filter((p) => requested.includes(p) && !holdsPermission(grantor, p));
  if (lacking.length) throw ServiceError.forbidden(`a key cannot be granted permissions its creator lacks: ${lacking.join(', ')}`);
  return PERMISSIONS.filter((p) => requested.includes(p));
}

const samePermissions = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((p) => b.includes(p));

/** A caller changes or deletes only keys no stronger than itself: a key holding a permission the caller lacks is a 403. */
function requireNotStronger(key: ApiKeyRecord, grantor: readonly string[]): void {
  const lacking = key.permissions.filter((p) => !holdsPermission(grantor, p));
  if (lacking.length) throw ServiceError.forbidden(`this key holds permissions the calling credential lacks: ${lacking.join(', ')}`);
}

/**
 * Decides the events of a key command. Pure: no I/O, no clock. A key of another account, or a
 * deleted one, does not exist for the caller (404). An update emits only what changes.
 */
export function decideApiKey(command: ApiKeyCommand, state: ApiKeyState): ApiKeyEvent[] {
  const current = state.key;
  switch (command.type) {
    case 'IssueApiKey': {
      if (current) throw ServiceError.conflict('APIKEY.ALREADY_EXISTS', 'this API key exists already');
      const permissions = grantablePermissions(command.permissions, command.grantor);
      const { keyId, accountId, userId, name, digest, prefix } = command;
      return [{ type: 'ApiKeyIssued', data: { keyId, accountId, userId, name, digest, prefix, permissions } }];
    }
    case 'UpdateApiKey': {
      if (!current || current.deleted || current.accountId !== command.accountId) throw notFound();
      requireNotStronger(current, command.grantor);
      const ref = { keyId: current.keyId, accountId: current.accountId };
      const events: ApiKeyEvent[] = [];
      if (command.permissions !== undefined) {
        const permissions = grantablePermissions(command.permissions, command.grantor);
        if (!samePermissions(permissions, current.permissions)) events.push({ type: 'ApiKeyPermissionsChanged', data: { ...ref, permissions } });
      }
      if (command.name !== undefined && command.name !== current.name) events.push({ type: 'ApiKeyRenamed', data: { ...ref, name: command.name } });
      if (command.enabled !== undefined && command.enabled !== current.enabled) {
        events.push(command.enabled ? { type: 'ApiKeyEnabled', data: ref } : { type: 'ApiKeyDisabled', data: ref });
      }
      return events;
    }
    case 'DeleteApiKey':
      if (!current || current.deleted || current.accountId !== command.accountId) throw notFound();
      requireNotStronger(current, command.grantor);
      return [{ type: 'ApiKeyDeleted', data: { keyId: current.keyId, accountId: current.accountId } }];
    default: {
      const unknown: never = command;
      throw new Error(`unknown command ${(unknown as { type: string }).type}`);
    }
  }
}

export function evolveApiKey(state: ApiKeyState, event: ApiKeyEvent): ApiKeyState {
  const current = state.key;
  switch (event.type) {
    case 'ApiKeyIssued':
      return { key: { ...event.data, permissions: [...event.data.permissions], enabled: true, deleted: false } };
    case 'ApiKeyRenamed':
      return current ? { key: { ...current, name: event.data.name } } : state;
    case 'ApiKeyPermissionsChanged':
      return current ? { key: { ...current, permissions: [...event.data.permissions] } } : state;
    case 'ApiKeyDisabled':
      return current ? { key: { ...current, enabled: false } } : state;
    case 'ApiKeyEnabled':
      return current ? { key: { ...current, enabled: true } } : state;
    case 'ApiKeyDeleted':
      return current ? { key: { ...current, deleted: true } } : state;
    default: {
      const unknown: never = event;
      throw new Error(`unknown event ${(unknown as { type: string }).type}`);
    }
  }
}

export function foldApiKey(events: readonly ApiKeyEvent[], state: ApiKeyState = initialApiKeyState()): ApiKeyState {
  return events.reduce(evolveApiKey, state);
}

/** Who a key with this digest authenticates as, or null: unknown, another digest, disabled or deleted. */
export function apiKeyPrincipal(state: ApiKeyState, digest: string): Principal | null {
  const key = state.key;
  if (!key || key.digest !== digest || !key.enabled || key.deleted) return null;
  return { accountId: key.accountId, userId: key.userId, permissions: [...key.permissions], keyId: key.keyId };
}
