import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/** A secret encrypted with AES-256-GCM under a named key (so keys can be rotated). */
export interface EncryptedSecret {
  keyId: string;
  iv: string;
  ciphertext: string;
  tag: string;
}

export interface SecretKey {
  id: string;
  /** 32 bytes. */
  key: Buffer;
}

export function encryptSecret(plain: string, key: SecretKey): EncryptedSecret {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key.key, iv);
  const ciphertext = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return { keyId: key.id, iv: iv.toString('base64'), ciphertext: ciphertext.toString('base64'), tag: cipher.getAuthTag().toString('base64') };
}

export function decryptSecret(box: EncryptedSecret, keys: readonly SecretKey[]): string {
  const key = keys.find((k) => k.id === box.keyId);
  if (!key) throw new Error(`no secret key ${box.keyId}`);
  const decipher = createDecipheriv('aes-256-gcm', key.key, Buffer.from(box.iv, 'base64'));
  decipher.setAuthTag(Buffer.from(box.tag, 'base64'));
  return Buffer.concat([decipher.update(Buffer.from(box.ciphertext, 'base64')), decipher.final()]).toString('utf8');
}
