import { randomUUID } from 'node:crypto';
import { promises as dns } from 'node:dns';
import { EdgeSslStatus } from '@funnel/contracts';
import { DomainRecord, EdgeView, nextDomainStatus } from '@funnel/billing-domain';
import { EdgeProvider, ProvisionRequest } from './edge-provider';
import type { RoutingCheck } from '../checks/domain-checker';

/** Reads TXT records: node:dns's resolver, bound to DNS_SERVERS when given. */
export interface TxtResolver {
  resolveTxt(name: string): Promise<string[][]>;
}

/** A node:dns resolver asking `servers` (`ip` or `ip:port`, `[ipv6]:port`), or the system's servers when none are given. */
export function dnsResolver(servers: readonly string[] = [], timeoutMs = 1000): TxtResolver {
  const resolver = new dns.Resolver({ timeout: timeoutMs, tries: 2 });
  if (servers.length) resolver.setServers([...servers]);
  return resolver;
}

/** The ownership record's name: `_funnel-verify.<domain>`. */
export const ownershipRecordName = (domain: string) => `_funnel-verify.${domain}`;

/**
 * The service is the edge itself (its own ingress terminates the custom hostnames). Ownership is
 * proven by a TXT record `_funnel-verify.<domain>` holding the domain's random token, read through
 * node:dns; the certificate status is what the routing check's TLS handshake saw; the edge status
 * follows the domain status rules. Provisioning and deprovisioning call nothing: the ingress serves
 * any hostname that CNAMEs to it.
 */
export class SelfManagedEdge implements EdgeProvider {
  readonly name = 'self-managed';

  constructor(private readonly resolver: TxtResolver) {}

  async provision(request: ProvisionRequest): Promise<EdgeView> {
    return {
      edgeId: `sm-${randomUUID()}`,
      status: 'pending',
      sslStatus: 'initializing',
      sslTxtName: '',
      sslTxtValue: '',
      ownership: { type: 'txt', name: ownershipRecordName(request.domain), value: request.verificationToken },
      ownershipVerified: false,
      verificationErrors: [],
    };
  }

  async observe(record: DomainRecord, pendingCheck: Promise<RoutingCheck>): Promise<EdgeView> {
    const { ownership } = record.edge;
    const verificationErrors: string[] = [];
    let ownershipVerified = false;
    const lookup = this.resolver.resolveTxt(ownership.name);
    // Both settle before either is read: a failed lookup must not leave the check's failure unobserved.
    const [txt, check] = await Promise.all([
      lookup.then(
        (value) => ({ value }),
        (error: unknown) => ({ error }),
      ),
      pendingCheck,
    ]);
    try {
      if ('error' in txt) throw txt.error;
      const records = txt.value.map((chunks) => chunks.join(''));
      ownershipVerified = records.includes(ownership.value);
      if (!ownershipVerified) {
        verificationErrors.push(records.length ? `the TXT record ${ownership.name} does not hold the expected value` : `no TXT record ${ownership.name} found`);
      }
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? 'error';
      verificationErrors.push(
        code === 'ENODATA' || code === 'ENOTFOUND' ? `no TXT record ${ownership.name} found` : `the TXT lookup of ${ownership.name} failed (${code})`,
      );
    }
    return {
      ...record.edge,
      // The service is the edge: its view of the hostname is the domain status the rules give.
      status: nextDomainStatus(record.status, { ownershipVerified, found: check.found }),
      sslStatus: sslStatusOf(record.edge.sslStatus, check),
      ownershipVerified,
      verificationErrors,
    };
  }

  async deprovision(): Promise<void> {
    return;
  }
}

/** Active once a handshake proved a valid certificate; pending validation once one failed; initializing before any. */
function sslStatusOf(previous: EdgeSslStatus, check: RoutingCheck): EdgeSslStatus {
  if (check.ssl_valid) return 'active';
  if (check.ssl_error) return 'pending_validation';
  return previous === 'active' ? 'pending_validation' : previous;
}
