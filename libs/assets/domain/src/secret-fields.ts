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

/** The parts of each dotted path seen (a few, fixed by the descriptors): a funnel's 200 nodes would split them 200 times each. */
const pathParts = new Map<string, readonly string[]>();

function partsOf(path: string): readonly string[] {
  let parts = pathParts.get(path);
  if (!parts) pathParts.set(path, (parts = path.split('.')));
  return parts;
}

/**
 * The object holding `path`'s last key: `read` walks the record as it is; `write` creates missing
 * objects on the way; `write` and `remove` copy the objects they pass through, since records share
 * their nested objects with the caller (a removal must not reach into the caller's record either).
 */
function parentOf(record: Record<string, unknown>, path: string, mode: 'read' | 'write' | 'remove'): [Record<string, unknown> | undefined, string] {
  const parts = partsOf(path);
  const last = parts[parts.length - 1];
  let node: Record<string, unknown> | undefined = record;
  for (let i = 0; i < parts.length - 1; i++) {
    const part = parts[i];
    const next: unknown = node[part];
    if (typeof next !== 'object' || next === null || Array.isArray(next)) {
      if (mode !== 'write') return [undefined, last];
      node[part] = {};
    } else if (mode !== 'read') {
      node[part] = { ...(next as Record<string, unknown>) };
    }
    node = node[part] as Record<string, unknown>;
  }
  return [node, last];
}

export function secretAt(record: Record<string, unknown>, path: string): unknown {
  const [parent, key] = parentOf(record, path, 'read');
  return parent?.[key];
}

function setSecret(record: Record<string, unknown>, path: string, value: unknown): void {
  if (value === undefined && secretAt(record, path) === undefined) return;
  const [parent, key] = parentOf(record, path, value === undefined ? 'remove' : 'write');
  if (!parent) return;
  if (value === undefined) delete parent[key];
  else parent[key] = value;
}

/** Whether the object a nested secret lives in (`basicAuth` of `basicAuth.password`) is in the record. */
function hasParent(record: Record<string, unknown>, path: string): boolean {
  return hasParentAt(record, partsOf(path));
}

/** hasParent, given the path's parts (a list's items are each looked at with the same parts). */
function hasParentAt(record: Record<string, unknown>, parts: readonly string[]): boolean {
  let node: unknown = record;
  for (let i = 0; i < parts.length - 1; i++) {
    node = (node as Record<string, unknown>)[parts[i]];
    if (!isObject(node)) return false;
  }
  return true;
}

/** Each secret path's split at its list (`list[].item.path` as [`list`, `item.path`]; null for a path without a list). */
const listPaths = new Map<string, readonly [string, string] | null>();

/** `list[].item.path` as [`list`, `item.path`]; undefined for a path without a list. */
function listPath(path: string): readonly [string, string] | undefined {
  let split = listPaths.get(path);
  if (split === undefined) {
    const at = path.indexOf('[].');
    listPaths.set(path, (split = at < 0 ? null : [path.slice(0, at), path.slice(at + 3)]));
  }
  return split ?? undefined;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Applies `change` to the secret at `field.path` in `record` (in place): directly, or in a copy of
 * each item of its list, given the previous record's item with the same `itemKey` (or null).
 */
function forEachSecret(
  record: AssetRecord,
  field: SecretField,
  previous: AssetRecord | null,
  change: (holder: Record<string, unknown>, path: string, previous: Record<string, unknown> | null) => void,
): void {
  const list = listPath(field.path);
  if (!list) return change(record, field.path, previous);
  const [at, itemPath] = list;
  const items = secretAt(record, at);
  if (!Array.isArray(items)) return;
  const before = previous ? secretAt(previous, at) : undefined;
  const previousItems = Array.isArray(before) ? before.filter(isObject) : [];
  const key = field.itemKey;
  // Only items that hold the secret's object are copied (most of a funnel's nodes are not middleware
  // nodes), and the list only when one is: a list without any is left as it is.
  const itemParts = partsOf(itemPath);
  let updated: unknown[] | undefined;
  for (let i = 0; i < items.length; i++) {
    const item: unknown = items[i];
    if (!isObject(item) || !hasParentAt(item, itemParts)) continue;
    const copy = { ...item };
    const earlier = key === undefined ? undefined : previousItems.find((p) => p[key] === item[key]);
    change(copy, itemPath, earlier ?? null);
    (updated ??= items.slice())[i] = copy;
  }
  if (updated) setSecret(record, at, updated);
}

/** One secret as stored (see applySecretWrites). */
function writeSecret(stored: Record<string, unknown>, path: string, previous: Record<string, unknown> | null, cipher: SecretCipher): void {
  const sent = secretAt(stored, path);
  if (sent === undefined && !hasParent(stored, path)) return;
  if (sent === undefined || sent === SECRET_PLACEHOLDER) {
    const [parent] = parentOf(stored, path, 'read');
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

/**
 * The record as stored: every secret field sent in clear is encrypted; one left out or sent as the
 * placeholder keeps the previous record's value (an update, or the source of a duplicate; in a list,
 * the previous item with the same key's); `null` or `""` removes it, and so does leaving out (or
 * nulling) the object it lives in (a save without `basicAuth` has no basic-auth password).
 */
export function applySecretWrites(record: AssetRecord, fields: readonly SecretField[], previous: AssetRecord | null, cipher: SecretCipher): AssetRecord {
  if (!fields.length) return record;
  const stored = { ...record } as AssetRecord;
  for (const field of fields) forEachSecret(stored, field, previous, (holder, path, before) => writeSecret(holder, path, before, cipher));
  return stored;
}

/** The record as answered: each stored secret shows as the placeholder, and its flag (if it has one) says whether one is stored. */
export function maskSecrets(record: AssetRecord, fields: readonly SecretField[]): AssetRecord {
  if (!fields.length) return record;
  const shown = { ...record } as AssetRecord;
  for (const field of fields) {
    let stored = false;
    forEachSecret(shown, field, null, (holder, path) => {
      const here = isEncryptedSecret(secretAt(holder, path));
      stored = stored || here;
      setSecret(holder, path, here && !field.hidden ? SECRET_PLACEHOLDER : undefined);
    });
    if (field.flag) shown[field.flag] = stored;
  }
  return shown;
}

/** A stored record with its secrets as placeholders, so it passes the kind's DTO again (duplicate). */
export function secretsAsPlaceholders(record: AssetRecord, fields: readonly SecretField[]): AssetRecord {
  if (!fields.length) return record;
  const copy = { ...record } as AssetRecord;
  for (const field of fields) {
    forEachSecret(copy, field, null, (holder, path) => {
      if (isEncryptedSecret(secretAt(holder, path))) setSecret(holder, path, SECRET_PLACEHOLDER);
    });
  }
  return copy;
}
