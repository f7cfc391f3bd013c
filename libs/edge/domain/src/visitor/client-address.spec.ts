import fc from 'fast-check';
import ipaddr from 'ipaddr.js';
import { clientAddress, isPublicIpv4 } from './client-address';

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

describe('isPublicIpv4', () => {
  it('agrees with ipaddr.js on every special range and its edges', () => {
    const edges = [
      '0.0.0.0',
      '0.255.255.255',
      '1.0.0.0',
      '9.255.255.255',
      '10.0.0.0',
      '10.255.255.255',
      '11.0.0.0',
      '100.63.255.255',
      '100.64.0.0',
      '100.127.255.255',
      '100.128.0.0',
      '126.255.255.255',
      '127.0.0.1',
      '128.0.0.0',
      '169.253.255.255',
      '169.254.0.1',
      '169.255.0.0',
      '172.15.255.255',
      '172.16.0.0',
      '172.31.255.255',
      '172.32.0.0',
      '192.0.0.1',
      '192.0.1.1',
      '192.0.2.1',
      '192.0.3.1',
      '192.88.98.1',
      '192.88.99.1',
      '192.88.100.1',
      '192.167.255.255',
      '192.168.0.0',
      '192.169.0.0',
      '198.17.255.255',
      '198.18.0.0',
      '198.19.255.255',
      '198.20.0.0',
      '198.51.99.1',
      '198.51.100.1',
      '198.51.101.1',
      '203.0.112.1',
      '203.0.113.1',
      '203.0.114.1',
      '223.255.255.255',
      '224.0.0.0',
      '239.255.255.255',
      '240.0.0.1',
      '255.255.255.255',
    ];
    for (const ip of edges) expect([ip, isPublicIpv4(ip)]).toEqual([ip, ipaddr.parse(ip).range() === 'unicast']);
  });

  it('agrees with ipaddr.js on any address', () => {
    fc.assert(
      fc.property(fc.ipV4(), (ip) => {
        expect(isPublicIpv4(ip)).toBe(ipaddr.parse(ip).range() === 'unicast');
      }),
    );
  });
});
