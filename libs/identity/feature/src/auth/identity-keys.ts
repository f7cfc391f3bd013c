import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { randomBytes } from 'node:crypto';
import { type JWK, type CryptoKey, calculateJwkThumbprint, exportJWK, generateKeyPair, importJWK } from 'jose';
import { ACCESS_TOKEN } from '@funnel/contracts';
import { SecretKey } from '@funnel/identity-domain';

/**
 * The identity service's own secrets, kept in one file that operators mount (a Kubernetes Secret in
 * the cluster; generated under DATA_DIR on a developer's machine): the private keys that sign
 * tokens, and the keys that encrypt stored TOTP secrets. Neither ever enters an event.
 * The first key of each list is used for new tokens / secrets; the others stay valid, which is
 * how keys rotate (add a key in front, keep the old one until its tokens have expired).
 */
interface IdentityKeysFile {
  signing: JWK[];
  encryption: { id: string; key: string }[];
}

export interface SigningKey {
  kid: string;
  privateKey: CryptoKey;
  publicJwk: JWK;
}

export class IdentityKeys {
  private constructor(
    readonly signing: SigningKey[],
    readonly encryption: SecretKey[],
  ) {}

  /** The key new tokens are signed with. */
  get activeSigningKey(): SigningKey {
    return this.signing[0];
  }

  /** Public halves of every signing key, as a JWK set. */
  publicKeySet(): { keys: JWK[] } {
    return { keys: this.signing.map((k) => k.publicJwk) };
  }

  /** Reads the file, creating it with fresh keys when absent (exclusive create: concurrent starts agree). */
  static async load(file: string): Promise<IdentityKeys> {
    let content: IdentityKeysFile;
    try {
      content = JSON.parse(readFileSync(file, 'utf8')) as IdentityKeysFile;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw new Error(`cannot read identity keys from ${file}: ${(error as Error).message}`);
      content = { signing: [await newSigningJwk()], encryption: [newEncryptionKey()] };
      // Only the service's user may list the directory of its keys (and of its event log, by default).
      mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
      try {
        writeFileSync(file, JSON.stringify(content, null, 2), { flag: 'wx', mode: 0o600 });
      } catch (writeError) {
        if ((writeError as NodeJS.ErrnoException).code !== 'EEXIST') throw writeError;
        content = JSON.parse(readFileSync(file, 'utf8')) as IdentityKeysFile;
      }
    }
    return IdentityKeys.from(content, file);
  }

  /** Fresh keys that are never written anywhere (tests; tokens die with the process). */
  static async inMemory(): Promise<IdentityKeys> {
    return IdentityKeys.from({ signing: [await newSigningJwk()], encryption: [newEncryptionKey()] }, 'in-memory keys');
  }

  /** Puts a new signing key (and encryption key) in front; the old ones keep verifying and decrypting. */
  static async rotate(file: string): Promise<{ kid: string }> {
    const content = JSON.parse(readFileSync(file, 'utf8')) as IdentityKeysFile;
    const signing = await newSigningJwk();
    content.signing.unshift(signing);
    content.encryption.unshift(newEncryptionKey());
    writeFileSync(file, JSON.stringify(content, null, 2), { mode: 0o600 });
    // `mode` applies only when the file is created: a file an earlier version wrote keeps its mode otherwise.
    chmodSync(file, 0o600);
    return { kid: signing.kid! };
  }

  private static async from(content: IdentityKeysFile, file: string): Promise<IdentityKeys> {
    if (!Array.isArray(content?.signing) || !content.signing.length || !Array.isArray(content.encryption) || !content.encryption.length) {
      throw new Error(`${file} must hold "signing" and "encryption" key lists`);
    }
    const signing = await Promise.all(
      content.signing.map(async (jwk) => {
        const { d: _private, ...publicPart } = jwk;
        return {
          kid: jwk.kid!,
          privateKey: (await importJWK(jwk, ACCESS_TOKEN.algorithm)) as CryptoKey,
          publicJwk: { ...publicPart, use: 'sig', alg: ACCESS_TOKEN.algorithm },
        };
      }),
    );
    const encryption = content.encryption.map((k) => ({ id: k.id, key: Buffer.from(k.key, 'base64') }));
    if (encryption.some((k) => k.key.length !== 32)) throw new Error(`${file}: encryption keys must be 32 bytes (base64)`);
    return new IdentityKeys(signing, encryption);
  }
}

async function newSigningJwk(): Promise<JWK> {
  const { privateKey } = await generateKeyPair(ACCESS_TOKEN.algorithm, { extractable: true });
  const jwk = await exportJWK(privateKey);
  jwk.kid = await calculateJwkThumbprint(jwk);
  jwk.alg = ACCESS_TOKEN.algorithm;
  return jwk;
}

function newEncryptionKey(): { id: string; key: string } {
  return { id: randomBytes(6).toString('hex'), key: randomBytes(32).toString('base64') };
}
