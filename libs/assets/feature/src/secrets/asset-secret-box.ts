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

  static openOrCreate(file: string): AssetSecretBox {
    if (!existsSync(file)) {
      ensurePrivateDirectory(dirname(file));
      const created: KeyFile = { keys: [{ id: randomBytes(6).toString('hex'), key: randomBytes(32).toString('base64') }] };
      // `wx`: two processes starting together never overwrite each other's key.
      try {
        writeFileSync(file, `${JSON.stringify(created, null, 2)}\n`, { mode: PRIVATE_FILE_MODE, flag: 'wx' });
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
    }
    tightenFile(file);
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as KeyFile;
    const keys = (parsed.keys ?? []).map(({ id, key }) => ({ id, key: Buffer.from(key, 'base64') }));
    if (!keys.length || keys.some((k) => typeof k.id !== 'string' || k.key.length !== 32)) {
      throw new Error(`${file} must hold { "keys": [{ "id", "key": <32 bytes, base64> }] }`);
    }
    return new AssetSecretBox(keys);
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
