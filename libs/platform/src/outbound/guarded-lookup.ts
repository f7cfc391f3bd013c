import { promises as dns, type LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { isPublicAddress } from './address-policy';

/** A request the guard refused: the host is not a public address, or could not be resolved. */
export class OutboundRefusedError extends Error {
  constructor(
    readonly code: 'OUTBOUND.ADDRESS_REFUSED' | 'OUTBOUND.UNRESOLVABLE' | 'OUTBOUND.INVALID_URL',
    message: string,
  ) {
    super(message);
    this.name = 'OutboundRefusedError';
  }
}

/** How names are resolved: the system resolver by default, or a `dns.promises.Resolver` bound to DNS_SERVERS. */
export interface AddressResolver {
  resolve(hostname: string): Promise<LookupAddress[]>;
}

export const systemResolver: AddressResolver = {
  resolve: (hostname) => dns.lookup(hostname, { all: true, verbatim: true }),
};

/** A resolver that asks the given DNS servers (`ip` or `ip:port`, as DNS_SERVERS lists them) for A and AAAA records. */
export function dnsServersResolver(servers: readonly string[]): AddressResolver {
  const resolver = new dns.Resolver({ timeout: 2000, tries: 2 });
  resolver.setServers([...servers]);
  const records = async (query: Promise<string[]>, family: 4 | 6): Promise<LookupAddress[]> => {
    try {
      return (await query).map((address) => ({ address, family }));
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENODATA' || code === 'ENOTFOUND') return [];
      throw error;
    }
  };
  return {
    async resolve(hostname) {
      const [v4, v6] = await Promise.all([records(resolver.resolve4(hostname), 4), records(resolver.resolve6(hostname), 6)]);
      return [...v4, ...v6];
    },
  };
}

/**
 * Resolves a name once and judges every address it has: if any is not public, the name is refused
 * (a name with one public and one private record could otherwise be steered to the private one).
 * Answers the addresses to connect to, which are exactly the ones checked.
 */
export async function resolvePublicAddresses(hostname: string, resolver: AddressResolver, allowPrivate: boolean): Promise<LookupAddress[]> {
  let addresses: LookupAddress[];
  try {
    addresses = await resolver.resolve(hostname);
  } catch (error) {
    throw new OutboundRefusedError('OUTBOUND.UNRESOLVABLE', `${hostname} could not be resolved (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  if (!addresses.length) throw new OutboundRefusedError('OUTBOUND.UNRESOLVABLE', `${hostname} has no address`);
  if (!allowPrivate) {
    const refused = addresses.find((a) => !isPublicAddress(a.address));
    if (refused) throw new OutboundRefusedError('OUTBOUND.ADDRESS_REFUSED', `${hostname} resolves to ${refused.address}, which is not a public address`);
  }
  return addresses;
}

/**
 * A `lookup` for net/tls/undici connections that resolves through the guard, so the socket connects
 * to an address that was checked. Node skips `lookup` for IP-literal hosts: check those with
 * `assertPublicHost` before connecting.
 */
export function guardedLookup(resolver: AddressResolver, allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    resolvePublicAddresses(hostname, resolver, allowPrivate).then(
      (addresses) => {
        const wanted = options.family === 4 || options.family === 6 ? addresses.filter((a) => a.family === options.family) : addresses;
        if (!wanted.length) {
          callback(Object.assign(new Error(`${hostname} has no IPv${options.family} address`), { code: 'ENOTFOUND' }), '', 0);
        } else if (options.all) {
          (callback as unknown as (err: null, addresses: LookupAddress[]) => void)(null, wanted);
        } else {
          callback(null, wanted[0].address, wanted[0].family);
        }
      },
      (error: Error) => callback(error as NodeJS.ErrnoException, '', 0),
    );
  };
}
