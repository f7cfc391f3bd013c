import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { ensurePrivateDirectory, PRIVATE_FILE_MODE, tightenFile } from '@funnel/eventstore';
import type { EncryptedSecret, SecretCipher } from '@funnel/assets-domain';

interface KeyFile {
  /** Oldest first; the last one encrypts, every one decrypts (so a key can be rotated in by appending it). */
  keys: { id: string; key: string }[];
}

/**
 * The asset services' secret box: AES-256-GCM under keys kept in a file (`ASSET_SECRETS_FILE`,
 * default `<DATA_DIR>/asset-secrets.json`), created with mode 0600 when absent. Every replica must
 * mount the same file (a Kubernetes Secret). Secrets are stored only as what `encrypt` returns.
 */
export class AssetSecretBox implements SecretCipher {
  private constructor(private readonly keys: readonly { id: string; key: Buffer }[]) {}

  /**
   * Opens the key file, creating it with one key when absent (standalone's `<DATA_DIR>/asset-secrets.json`).
   * An existing file is read, and tightened to 0600 only when it is this user's: in Kubernetes it is a
   * Secret (`npm run cli -- asset-secrets:create`) owned by root, mounted read-only in every replica.
   */
  static openOrCreate(file: string): AssetSecretBox {
    if (!existsSync(file)) {
      try {
        AssetSecretBox.create(file);
      } catch (error) {
        // Two processes starting together: the other one's key is the one to use.
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
    }
    tightenFile(file);
    return new AssetSecretBox(readKeyFile(file));
  }

  /** Writes a new key file with one key (mode 0600); refuses (EEXIST) to overwrite one. */
  static create(file: string): { keyId: string } {
    ensurePrivateDirectory(dirname(file));
    const key = newKey();
    // `wx`: never overwrites a key file, so secrets it encrypted stay readable.
    writeFileSync(file, serialize({ keys: [key] }), { mode: PRIVATE_FILE_MODE, flag: 'wx' });
    return { keyId: key.id };
  }

  /**
   * Appends a new key: it encrypts from then on, and the older ones still decrypt what they
   * encrypted (never remove a key while a stored secret names it).
   */
  static rotate(file: string): { keyId: string; keys: number } {
    const keys = readKeyFile(file).map(({ id, key }) => ({ id, key: key.toString('base64') }));
    const added = newKey();
    writeFileSync(file, serialize({ keys: [...keys, added] }), { mode: PRIVATE_FILE_MODE });
    tightenFile(file);
    return { keyId: added.id, keys: keys.length + 1 };
  }

  /** For tests: a box with one fresh key, nothing on disk. */
  static ephemeral(): AssetSecretBox {
    return new AssetSecretBox([{ id: randomBytes(6).toString('hex'), key: randomBytes(32) }]);
  }

  encrypt(plain: string): EncryptedSecret {
    const { id, key } = this.keys[this.keys.length - 1];
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', key, iv);
    const data = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return { $secret: 'aes-256-gcm', keyId: id, iv: iv.toString('base64'), data: data.toString('base64'), tag: cipher.getAuthTag().toString('base64') };
  }

  decrypt(secret: EncryptedSecret): string {
    const found = this.keys.find((k) => k.id === secret.keyId);
    if (!found) throw new Error(`no asset secret key ${secret.keyId}: is ASSET_SECRETS_FILE the same on every replica?`);
    const decipher = createDecipheriv('aes-256-gcm', found.key, Buffer.from(secret.iv, 'base64'));
    decipher.setAuthTag(Buffer.from(secret.tag, 'base64'));
    return Buffer.concat([decipher.update(Buffer.from(secret.data, 'base64')), decipher.final()]).toString('utf8');
  }
}

function newKey(): { id: string; key: string } {
  return { id: randomBytes(6).toString('hex'), key: randomBytes(32).toString('base64') };
}

function serialize(content: KeyFile): string {
  return `${JSON.stringify(content, null, 2)}\n`;
}

function readKeyFile(file: string): { id: string; key: Buffer }[] {
  const parsed = JSON.parse(readFileSync(file, 'utf8')) as Partial<KeyFile>;
  const entries = Array.isArray(parsed.keys) ? parsed.keys : [];
  const keys = entries.map(({ id, key }) => ({ id, key: Buffer.from(typeof key === 'string' ? key : '', 'base64') }));
  if (!keys.length || keys.some((k) => typeof k.id !== 'string' || k.id === '' || k.key.length !== 32) || new Set(keys.map((k) => k.id)).size !== keys.length) {
    throw new Error(`${file} must hold { "keys": [{ "id", "key": <32 bytes, base64> }] } with distinct ids`);
  }
  return keys;
}
