import { clientAddress } from './client-address';

describe('clientAddress', () => {
  it.each([
    ['8.8.8.8', '8.8.8.8', 'ipv4', true],
    ['::ffff:8.8.8.8', '8.8.8.8', 'ipv4', true],
    ['2001:4860:4860:0:0:0:0:8888', '2001:4860:4860::8888', 'ipv6', true],
    ['10.1.2.3', '10.1.2.3', 'ipv4', false],
    ['127.0.0.1', '127.0.0.1', 'ipv4', false],
    ['::ffff:192.168.0.1', '192.168.0.1', 'ipv4', false],
    ['::1', '::1', 'ipv6', false],
    ['fe80::1%eth0', 'fe80::1', 'ipv6', false],
    ['100.64.0.1', '100.64.0.1', 'ipv4', false],
  ])('reads %s as %s (%s, public %s)', (text, ip, kind, isPublic) => {
    expect(clientAddress(text)).toEqual({ ip, kind, public: isPublic });
  });

  it.each([undefined, '', 'unknown', '127.1', '0x7f.0.0.1', '1.2.3.4.5', '999.1.1.1', 'a'.repeat(100)])('finds no address in %p', (text) => {
    expect(clientAddress(text)).toEqual({ ip: '', kind: null, public: false });
  });
});
