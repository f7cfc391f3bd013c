import type { DomainStatus, EdgeDomain } from '@funnel/contracts';

/**
 * Custom domains by host name: which account a request's host belongs to. Hosts compare in lower
 * case without a trailing dot or a port (`Track.Example.com.:3001` is `track.example.com`).
 */
export class DomainDirectory {
  private byHost = new Map<string, { accountId: string; status: DomainStatus }>();

  get size(): number {
    return this.byHost.size;
  }

  /** Replaces every domain with these (a full load). */
  replace(domains: readonly EdgeDomain[]): void {
    const next = new Map<string, { accountId: string; status: DomainStatus }>();
    for (const { domain, accountId, status } of domains) if (status !== 'deleted') next.set(normaliseHost(domain), { accountId, status });
    this.byHost = next;
  }

  /** The account owning `host`, or undefined. */
  accountOf(host: string): string | undefined {
    return this.byHost.get(normaliseHost(host))?.accountId;
  }
}

/** Lower case, without a port and a trailing dot; IPv6 literals keep their brackets. */
export function normaliseHost(host: string): string {
  let name = host.trim().toLowerCase();
  if (name.startsWith('[')) {
    const end = name.indexOf(']');
    return end < 0 ? name : name.slice(0, end + 1);
  }
  const colon = name.indexOf(':');
  if (colon >= 0 && name.indexOf(':', colon + 1) < 0) name = name.slice(0, colon);
  return name.endsWith('.') ? name.slice(0, -1) : name;
}
