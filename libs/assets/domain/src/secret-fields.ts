import { SECRET_PLACEHOLDER, type SecretField } from '@funnel/contracts';
import type { AssetRecord } from './asset-events';

/** What a secret looks like on reads (defined with the DTO rules that accept it back). */
export { SECRET_PLACEHOLDER };

/** A secret as stored in events and read models: never the clear text. */
export interface EncryptedSecret {
  $secret: 'aes-256-gcm';
  keyId: string;
  iv: string;
  data: string;
  tag: string;
}

export interface SecretCipher {
  encrypt(plain: string): EncryptedSecret;
  decrypt(secret: EncryptedSecret): string;
}

export function isEncryptedSecret(value: unknown): value is EncryptedSecret {
  return typeof value === 'object' && value !== null && (value as { $secret?: unknown }).$secret === 'aes-256-gcm';
}

function parentOf(record: Record<string, unknown>, path: string, create: boolean): [Record<string, unknown> | undefined, string] {
  const parts = path.split('.');
  const last = parts.pop() as string;
  let node: Record<string, unknown> | undefined = record;
  for (const part of parts) {
    const next: unknown = node[part];
    if (typeof next !== 'object' || next === null || Array.isArray(next)) {
      if (!create) return [undefined, last];
      node[part] = {};
    } else if (create) {
      // Copy on the way down: records are shared with the caller.
      node[part] = { ...(next as Record<string, unknown>) };
    }
    node = node[part] as Record<string, unknown>;
  }
  return [node, last];
}

export function secretAt(record: Record<string, unknown>, path: string): unknown {
  const [parent, key] = parentOf(record, path, false);
  return parent?.[key];
}

function setSecret(record: Record<string, unknown>, path: string, value: unknown): void {
  const [parent, key] = parentOf(record, path, value !== undefined);
  if (!parent) return;
  if (value === undefined) delete parent[key];
  else parent[key] = value;
}

/** Whether the object a nested secret lives in (`basicAuth` of `basicAuth.password`) is in the record. */
function hasParent(record: Record<string, unknown>, path: string): boolean {
  return parentOf(record, path, false)[0] !== undefined;
}

/**
 * The record as stored: every secret field sent in clear is encrypted; one left out or sent as the
 * placeholder keeps the previous record's value (an update, or the source of a duplicate); `null`
 * or `""` removes it, and so does leaving out (or nulling) the object it lives in (a save without
 * `basicAuth` has no basic-auth password).
 */
export function applySecretWrites(record: AssetRecord, fields: readonly SecretField[], previous: AssetRecord | null, cipher: SecretCipher): AssetRecord {
  if (!fields.length) return record;
  const stored = { ...record } as AssetRecord;
  for (const { path } of fields) {
    const sent = secretAt(stored, path);
    if (sent === undefined && !hasParent(stored, path)) continue;
    if (sent === undefined || sent === SECRET_PLACEHOLDER) {
      const [parent] = parentOf(stored, path, false);
      const kept = previous && parent ? secretAt(previous, path) : undefined;
      setSecret(stored, path, isEncryptedSecret(kept) ? kept : undefined);
    } else if (sent === null || sent === '') {
      setSecret(stored, path, undefined);
    } else if (typeof sent === 'string') {
      setSecret(stored, path, cipher.encrypt(sent));
    } else if (!isEncryptedSecret(sent)) {
      setSecret(stored, path, undefined);
    }
  }
  return stored;
}

/** The record as answered: each stored secret shows as the placeholder, and its flag says whether one is stored. */
export function maskSecrets(record: AssetRecord, fields: readonly SecretField[]): AssetRecord {
  if (!fields.length) return record;
  const shown = { ...record } as AssetRecord;
  for (const { path, flag } of fields) {
    const stored = isEncryptedSecret(secretAt(shown, path));
    setSecret(shown, path, stored && !fields.find((f) => f.path === path)?.hidden ? SECRET_PLACEHOLDER : undefined);
    shown[flag] = stored;
  }
  return shown;
}

/** A stored record with its secrets as placeholders, so it passes the kind's DTO again (duplicate). */
export function secretsAsPlaceholders(record: AssetRecord, fields: readonly SecretField[]): AssetRecord {
  if (!fields.length) return record;
  const copy = { ...record } as AssetRecord;
  for (const { path } of fields) if (isEncryptedSecret(secretAt(copy, path))) setSecret(copy, path, SECRET_PLACEHOLDER);
  return copy;
}
