import { isIPv4, isIPv6 } from 'node:net';
import ipaddr from 'ipaddr.js';

/** A client address as the edge keeps it, and whether a geo database may know it. */
export interface ClientAddress {
  /** Canonical text: dotted IPv4 (an IPv4-mapped IPv6 address unwrapped), compact IPv6 without zone; "" when not an address. */
  ip: string;
  kind: 'ipv4' | 'ipv6' | null;
  /** A public unicast address (not private, loopback, link-local, reserved, ... as ipaddr.js names ranges): worth a geo lookup. */
  public: boolean;
}

const NONE: ClientAddress = Object.freeze({ ip: '', kind: null, public: false });

/** Longest text taken for an address (an IPv6 address with a zone id is well below it). */
const MAX_ADDRESS_LENGTH = 64;

/**
 * The client address from the text the HTTP layer found (Fastify's `request.ip` behind
 * TRUSTED_PROXIES). IPv4 only in four-part dotted decimal (`127.1` or `0x7f.0.0.1` are no address);
 * anything else that is not an address gives `ip: ""`. Per request, so IPv4 (the common case) takes
 * a fast path: Node's check and the special ranges by their first octets.
 */
export function clientAddress(text: string | undefined): ClientAddress {
  if (!text || text.length > MAX_ADDRESS_LENGTH) return NONE;
  if (isIPv4(text)) return { ip: text, kind: 'ipv4', public: isPublicIpv4(text) };
  if (!isIPv6(text) || !ipaddr.IPv6.isValid(text)) return NONE;
  const address = ipaddr.process(text);
  if (address.kind() === 'ipv4') return { ip: address.toString(), kind: 'ipv4', public: address.range() === 'unicast' };
  (address as ipaddr.IPv6).zoneId = undefined;
  return { ip: address.toString(), kind: 'ipv6', public: address.range() === 'unicast' };
}

/**
 * Whether a valid dotted IPv4 address is public unicast: outside 0/8, 10/8, 100.64/10, 127/8,
 * 169.254/16, 172.16/12, 192.0.0/24, 192.0.2/24, 192.88.99/24, 192.168/16, 198.18/15, 198.51.100/24,
 * 203.0.113/24 and 224/3 (the ranges ipaddr.js names other than unicast).
 */
export function isPublicIpv4(ip: string): boolean {
  const dot1 = ip.indexOf('.');
  const dot2 = ip.indexOf('.', dot1 + 1);
  const dot3 = ip.indexOf('.', dot2 + 1);
  const a = Number(ip.slice(0, dot1));
  const b = Number(ip.slice(dot1 + 1, dot2));
  switch (a) {
    case 0:
    case 10:
    case 127:
      return false;
    case 100:
      return b < 64 || b > 127;
    case 169:
      return b !== 254;
    case 172:
      return b < 16 || b > 31;
    case 192: {
      if (b === 168) return false;
      const c = Number(ip.slice(dot2 + 1, dot3));
      return !((b === 0 && (c === 0 || c === 2)) || (b === 88 && c === 99));
    }
    case 198:
      return !(b === 18 || b === 19 || (b === 51 && Number(ip.slice(dot2 + 1, dot3)) === 100));
    case 203:
      return !(b === 0 && Number(ip.slice(dot2 + 1, dot3)) === 113);
    default:
      return a < 224;
  }
}
