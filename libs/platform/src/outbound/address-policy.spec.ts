import fc from 'fast-check';
import { ipLiteralOf, isPublicAddress } from './address-policy';

describe('isPublicAddress', () => {
  it.each([
    ['8.8.8.8', true],
    ['1.1.1.1', true],
    ['93.184.216.34', true],
    ['2606:4700:4700::1111', true],
    ['::ffff:8.8.8.8', true],
    ['127.0.0.1', false],
    ['127.255.255.254', false],
    ['10.0.0.1', false],
    ['172.16.0.1', false],
    ['172.31.255.255', false],
    ['192.168.1.1', false],
    ['169.254.169.254', false],
    ['100.64.0.1', false],
    ['100.127.255.255', false],
    ['0.0.0.0', false],
    ['255.255.255.255', false],
    ['224.0.0.1', false],
    ['192.0.2.1', false],
    ['::1', false],
    ['::', false],
    ['fe80::1', false],
    ['fc00::1', false],
    ['fd12:3456::1', false],
    ['ff02::1', false],
    ['::ffff:127.0.0.1', false],
    ['::ffff:7f00:1', false],
    ['::ffff:10.0.0.1', false],
    ['::ffff:169.254.169.254', false],
    ['64:ff9b::7f00:1', false],
    ['2002:7f00:1::', false],
    ['not an address', false],
    ['', false],
  ])('%s -> %s', (address, expected) => {
    expect(isPublicAddress(address)).toBe(expected);
  });

  const octet = fc.integer({ min: 0, max: 255 });
  const privateV4 = fc.oneof(
    fc.tuple(octet, octet, octet).map(([b, c, d]) => `10.${b}.${c}.${d}`),
    fc.tuple(octet, octet, octet).map(([b, c, d]) => `127.${b}.${c}.${d}`),
    fc.tuple(fc.integer({ min: 16, max: 31 }), octet, octet).map(([b, c, d]) => `172.${b}.${c}.${d}`),
    fc.tuple(octet, octet).map(([c, d]) => `192.168.${c}.${d}`),
    fc.tuple(octet, octet).map(([c, d]) => `169.254.${c}.${d}`),
    fc.tuple(fc.integer({ min: 64, max: 127 }), octet, octet).map(([b, c, d]) => `100.${b}.${c}.${d}`),
  );

  it('refuses every private, loopback, link-local and CGNAT IPv4 address, plain or IPv4-mapped', () => {
    fc.assert(
      fc.property(privateV4, (address) => {
        expect(isPublicAddress(address)).toBe(false);
        expect(isPublicAddress(`::ffff:${address}`)).toBe(false);
      }),
    );
  });
});

describe('ipLiteralOf', () => {
  it.each([
    ['127.0.0.1', '127.0.0.1'],
    ['[::1]', '::1'],
    ['[::ffff:127.0.0.1]', '::ffff:127.0.0.1'],
    ['example.com', undefined],
    ['localhost', undefined],
  ])('%s -> %s', (host, expected) => {
    expect(ipLiteralOf(host)).toBe(expected);
  });

  it('sees every IPv4 spelling a URL accepts as the dotted address it is', () => {
    for (const raw of ['http://2130706433/', 'http://0x7f000001/', 'http://127.1/', 'http://0177.0.0.1/']) {
      expect(ipLiteralOf(new URL(raw).hostname)).toBe('127.0.0.1');
    }
  });
});
