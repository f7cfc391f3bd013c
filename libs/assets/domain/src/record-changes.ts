import { isDeepStrictEqual } from 'node:util';
import { SECRET_PLACEHOLDER, type AssetChange, type SecretField } from '@funnel/contracts';
import type { AssetRecord } from './asset-events';
import { isEncryptedSecret } from './secret-fields';

/**
 * The changes between two versions of a record (`null`: it did not exist), as JSON paths in the
 * form of error details (`nodes[3].nodeName`, `destination.url`): objects are compared field by
 * field, arrays position by position; a value that appears or disappears is `null` on that side.
 * A secret (a `secretFields` path, where `nodes[]` matches every item, or any stored encrypted
 * value) shows as `********` on the sides where it is set, never as its value, also inside an
 * object or list item that appears or disappears as a whole.
 */
export function recordChanges(before: AssetRecord | null, after: AssetRecord | null, secretFields: readonly SecretField[]): AssetChange[] {
  const differ = new RecordDiffer(new Set(secretFields.map((field) => field.path)));
  differ.diff(before ?? {}, after ?? {}, '', '');
  return differ.changes;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const child = (path: string, key: string) => (path === '' ? key : `${path}.${key}`);

class RecordDiffer {
  readonly changes: AssetChange[] = [];

  /** `secretPaths` are in pattern form: `nodes[].hmacSecret`. */
  constructor(private readonly secretPaths: ReadonlySet<string>) {}

  /** `path` names the place (`nodes[3].x`), `pattern` its secret-path form (`nodes[].x`). */
  diff(from: unknown, to: unknown, path: string, pattern: string): void {
    if (this.isSecret(pattern, from) || this.isSecret(pattern, to)) {
      if (!isDeepStrictEqual(from, to)) this.changes.push({ path, from: this.masked(from, pattern), to: this.masked(to, pattern) });
      return;
    }
    if (isObject(from) && isObject(to)) {
      for (const key of Object.keys(from)) this.diff(from[key], to[key], child(path, key), child(pattern, key));
      for (const key of Object.keys(to)) if (!(key in from)) this.diff(undefined, to[key], child(path, key), child(pattern, key));
      return;
    }
    if (Array.isArray(from) && Array.isArray(to)) {
      for (let i = 0; i < Math.max(from.length, to.length); i++) this.diff(from[i], to[i], `${path}[${i}]`, `${pattern}[]`);
      return;
    }
    if (from === undefined && to === undefined) return;
    if (!isDeepStrictEqual(from, to)) this.changes.push({ path, from: this.masked(from, pattern), to: this.masked(to, pattern) });
  }

  private isSecret(pattern: string, value: unknown): boolean {
    return this.secretPaths.has(pattern) || isEncryptedSecret(value);
  }

  /** A value as a change shows it: `null` when absent, every secret in it as the placeholder. */
  private masked(value: unknown, pattern: string): unknown {
    if (value === undefined || value === null) return null;
    if (this.isSecret(pattern, value)) return SECRET_PLACEHOLDER;
    if (Array.isArray(value)) return value.map((item) => this.masked(item, `${pattern}[]`));
    if (isObject(value)) {
      const copy: Record<string, unknown> = {};
      for (const [key, item] of Object.entries(value)) if (item !== undefined) copy[key] = this.masked(item, child(pattern, key));
      return copy;
    }
    return value;
  }
}
