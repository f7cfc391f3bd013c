// TRUSTED_PROXIES, shared by every HTTP entry point that needs the client's address (the gateway for
// its credential limits, the tracking edge for a visitor's geo): one rule to read it and one way to
// hand it to Fastify, so that both find the same client behind the same proxies.
import ipaddr from 'ipaddr.js';
import { ConfigRule, INVALID_CONFIG_VALUE } from './config';

/** An IP address (IPv4 in dotted decimal, or IPv6) or a CIDR range of them. */
function isAddressOrRange(entry: string): boolean {
  const [address, bits, extra] = entry.split('/');
  const valid = ipaddr.IPv4.isValidFourPartDecimal(address) || ipaddr.IPv6.isValid(address);
  if (!valid || extra !== undefined) return false;
  if (bits === undefined) return true;
  return /^\d{1,3}$/.test(bits) && Number(bits) <= (ipaddr.parse(address).kind() === 'ipv4' ? 32 : 128);
}

/**
 * TRUSTED_PROXIES: comma-separated addresses and CIDR ranges of the proxies in front (ingress, load
 * balancer); unset or empty trusts none.
 */
export const trustedProxiesRule: ConfigRule<string[]> = {
  description: 'a comma-separated list of IP addresses and CIDR ranges such as 10.0.0.0/8,fd00::/8 (default none)',
  read(raw) {
    if (raw === undefined) return [];
    const entries = raw
      .split(',')
      .map((entry) => entry.trim())
      .filter((entry) => entry !== '');
    return entries.every(isAddressOrRange) ? entries : INVALID_CONFIG_VALUE;
  },
};

/**
 * Fastify's `trustProxy` option for these proxies: the request's `ip` is then the rightmost
 * X-Forwarded-For entry that is not one of them (the entries left of it are client-chosen); with
 * none, X-Forwarded-For is ignored and `ip` is the socket's peer.
 */
export function trustProxyOption(trustedProxies: readonly string[] | undefined): string[] | false {
  return trustedProxies?.length ? [...trustedProxies] : false;
}
