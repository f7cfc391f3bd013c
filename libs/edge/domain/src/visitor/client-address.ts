import ipaddr from 'ipaddr.js';

/** A client address as the edge keeps it, and whether a geo database may know it. */
export interface ClientAddress {
  /** Canonical text: dotted IPv4 (an IPv4-mapped IPv6 address unwrapped), compact IPv6 without zone; "" when not an address. */
  ip: string;
  kind: 'ipv4' | 'ipv6' | null;
  /** A public unicast address (not private, loopback, link-local, reserved, ...): worth a geo lookup. */
  public: boolean;
}

const NONE: ClientAddress = Object.freeze({ ip: '', kind: null, public: false });

/** Longest text taken for an address (an IPv6 address with a zone id is well below it). */
const MAX_ADDRESS_LENGTH = 64;

/**
 * The client address from the text the HTTP layer found (Fastify's `request.ip` behind
 * TRUSTED_PROXIES). IPv4 only in four-part dotted decimal (`127.1` or `0x7f.0.0.1` are no address);
 * anything else that is not an address gives `ip: ""`.
 */
export function clientAddress(text: string | undefined): ClientAddress {
  if (!text || text.length > MAX_ADDRESS_LENGTH) return NONE;
  let address: ipaddr.IPv4 | ipaddr.IPv6;
  if (ipaddr.IPv4.isValidFourPartDecimal(text)) address = ipaddr.IPv4.parse(text);
  else if (ipaddr.IPv6.isValid(text)) address = ipaddr.process(text);
  else return NONE;
  if (address.kind() === 'ipv6') (address as ipaddr.IPv6).zoneId = undefined;
  return { ip: address.toString(), kind: address.kind(), public: address.range() === 'unicast' };
}
