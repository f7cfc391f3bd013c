import { X509Certificate, createPrivateKey } from 'node:crypto';
import { createSecureContext } from 'node:tls';
import { selfSignedCertificate } from './self-signed-certificate';

describe('selfSignedCertificate', () => {
  it('is a self-signed X.509 certificate for the given names and addresses, valid now', () => {
    const { cert, key } = selfSignedCertificate(['localhost', '127.0.0.1', '::1']);
    const x509 = new X509Certificate(cert);
    expect(x509.subject).toBe('CN=localhost');
    expect(x509.issuer).toBe('CN=localhost');
    expect(x509.verify(x509.publicKey)).toBe(true);
    expect(x509.checkPrivateKey(createPrivateKey(key))).toBe(true);
    expect(x509.checkHost('localhost')).toBe('localhost');
    expect(x509.checkIP('127.0.0.1')).toBe('127.0.0.1');
    expect(x509.checkIP('::1')).toBe('::1');
    expect(x509.checkIP('10.0.0.1')).toBeUndefined();
    expect(new Date(x509.validFrom).getTime()).toBeLessThan(Date.now());
    expect(new Date(x509.validTo).getTime()).toBeGreaterThan(Date.now());
  });

  it('is accepted by TLS every time (its serial is in the shortest DER form, whatever the random bytes)', () => {
    // A serial starting 00 then < 0x80 came out of 1 in 512 calls before, and TLS refused it.
    for (let i = 0; i < 2000; i++) {
      const { cert, key } = selfSignedCertificate(['localhost']);
      expect(() => createSecureContext({ cert, key })).not.toThrow();
      expect(new X509Certificate(cert).serialNumber).toMatch(/^(?!00)[0-9A-F]{32}$/); // 16 random bytes, no leading zero byte
    }
  });
});
