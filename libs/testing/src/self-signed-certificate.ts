import { generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * A self-signed TLS certificate for a local test server (ECDSA P-256, SHA-256), made with node:crypto
 * alone: Node can parse X.509 but not write it, so the few DER structures a certificate needs are
 * encoded here. Trust it on the client with `ca: cert`.
 */
export interface SelfSignedCertificate {
  /** PEM certificate: give it to the server as `cert` and to the client as `ca`. */
  cert: string;
  /** PEM private key (PKCS#8). */
  key: string;
}

/** Valid from an hour ago for a day, for `hosts` (names and IP addresses; default localhost, 127.0.0.1, ::1). */
export function selfSignedCertificate(hosts: readonly string[] = ['localhost', '127.0.0.1', '::1']): SelfSignedCertificate {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const ecdsaWithSha256 = sequence(oid('1.2.840.10045.4.3.2'));
  const name = sequence(set(sequence(oid('2.5.4.3'), tlv(0x0c, Buffer.from(hosts[0] ?? 'localhost')))));
  const now = Date.now();
  // A positive serial whose first byte is not zero: DER wants the shortest encoding of an INTEGER, and
  // OpenSSL refuses a certificate whose serial starts 00 followed by a byte < 0x80 ("illegal padding").
  const serial = randomBytes(16);
  serial[0] = 0x40 | (serial[0] & 0x3f);
  const subjectAltNames = sequence(
    ...hosts.map((host) => (isIP(host) ? tlv(0x87, Buffer.from(ipaddr.parse(host).toByteArray())) : tlv(0x82, Buffer.from(host)))),
  );
  const tbs = sequence(
    tlv(0xa0, integer(Buffer.from([2]))), // version 3
    integer(serial),
    ecdsaWithSha256,
    name,
    sequence(utcTime(new Date(now - 3600_000)), utcTime(new Date(now + 24 * 3600_000))),
    name,
    publicKey.export({ type: 'spki', format: 'der' }),
    tlv(0xa3, sequence(sequence(oid('2.5.29.17'), tlv(0x04, subjectAltNames)))),
  );
  const signature = sign('sha256', tbs, { key: privateKey, dsaEncoding: 'der' });
  const certificate = sequence(tbs, ecdsaWithSha256, tlv(0x03, Buffer.concat([Buffer.from([0]), signature])));
  return { cert: pem('CERTIFICATE', certificate), key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString() };
}

function tlv(tag: number, content: Buffer): Buffer {
  const length = content.length;
  if (length < 0x80) return Buffer.concat([Buffer.from([tag, length]), content]);
  const bytes: number[] = [];
  for (let rest = length; rest > 0; rest >>= 8) bytes.unshift(rest & 0xff);
  return Buffer.concat([Buffer.from([tag, 0x80 | bytes.length, ...bytes]), content]);
}

const sequence = (...items: Buffer[]) => tlv(0x30, Buffer.concat(items));
const set = (...items: Buffer[]) => tlv(0x31, Buffer.concat(items));
const integer = (value: Buffer) => tlv(0x02, value[0] & 0x80 ? Buffer.concat([Buffer.from([0]), value]) : value);

function oid(dotted: string): Buffer {
  const [first, second, ...rest] = dotted.split('.').map(Number);
  const bytes = [first * 40 + second];
  for (const arc of rest) {
    const base128 = [arc & 0x7f];
    for (let high = arc >> 7; high > 0; high >>= 7) base128.unshift((high & 0x7f) | 0x80);
    bytes.push(...base128);
  }
  return tlv(0x06, Buffer.from(bytes));
}

function utcTime(date: Date): Buffer {
  const text = date.toISOString().replace(/[-:T]/g, '').slice(2, 14) + 'Z'; // YYMMDDHHMMSSZ
  return tlv(0x17, Buffer.from(text));
}

function pem(label: string, der: Buffer): string {
  const lines = der.toString('base64').match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${label}-----\n${lines.join('\n')}\n-----END ${label}-----\n`;
}
