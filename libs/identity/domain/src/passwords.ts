import { randomBytes, scrypt as scryptCallback, timingSafeEqual } from 'node:crypto';

/** A salted scrypt hash with the parameters it was made with, so they can be raised later. */
export interface PasswordHash {
  algorithm: 'scrypt';
  N: number;
  r: number;
  p: number;
  keyLength: number;
  salt: string;
  hash: string;
}

const DEFAULTS = { N: 16384, r: 8, p: 1, keyLength: 64 };

function scrypt(password: string, salt: Buffer, keyLength: number, options: { N: number; r: number; p: number }): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scryptCallback(password, salt, keyLength, { ...options, maxmem: 256 * options.N * options.r }, (error, key) => (error ? reject(error) : resolve(key))),
  );
}

export async function hashPassword(password: string): Promise<PasswordHash> {
  const salt = randomBytes(16);
  const key = await scrypt(password, salt, DEFAULTS.keyLength, DEFAULTS);
  return { algorithm: 'scrypt', ...DEFAULTS, salt: salt.toString('base64'), hash: key.toString('base64') };
}

export async function verifyPassword(password: string, stored: PasswordHash): Promise<boolean> {
  const expected = Buffer.from(stored.hash, 'base64');
  const actual = await scrypt(password, Buffer.from(stored.salt, 'base64'), stored.keyLength, stored);
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}
