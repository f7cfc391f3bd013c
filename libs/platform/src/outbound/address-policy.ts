import ipaddr from 'ipaddr.js';

/**
 * The one rule for where the service may connect on a user's behalf: only public unicast addresses.
 * ipaddr.js's `process` turns an IPv4-mapped IPv6 address (`::ffff:127.0.0.1`) into the IPv4 address
 * it carries, so a mapped private address is judged as what it is; every other range ipaddr.js names
 * (loopback, private, linkLocal, carrierGradeNat, multicast, unspecified, broadcast, reserved,
 * uniqueLocal, 6to4, teredo, rfc6052 ...) is refused.
 */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  return ipaddr.process(address).range() === 'unicast';
}

/** The address of an IP-literal host (`127.0.0.1`, `[::1]`), or undefined for a name. */
export function ipLiteralOf(host: string): string | undefined {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  return ipaddr.isValid(bare) && (bare.includes(':') || ipaddr.IPv4.isValidFourPartDecimal(bare)) ? bare : undefined;
}
