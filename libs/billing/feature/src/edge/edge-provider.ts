import { DomainRecord, EdgeView } from '@funnel/billing-domain';
import type { RoutingCheck } from '../checks/domain-checker';

export interface ProvisionRequest {
  /** The normalised domain. */
  domain: string;
  /** A random token for this domain: the ownership TXT record's value where the adapter chooses it. */
  verificationToken: string;
}

/**
 * Where custom hostnames are served: the edge provider port. `self-managed` (the default) verifies
 * ownership itself by DNS and reads certificate status from the routing check; `cloudflare` uses
 * Cloudflare for SaaS custom hostnames. Failures are ServiceErrors (503 EDGE_UNAVAILABLE when the
 * edge cannot be reached, 409 EDGE_REJECTED when it refuses the hostname).
 */
export interface EdgeProvider {
  readonly name: string;
  /** Creates the hostname at the edge: pending, with the records the user must add. */
  provision(request: ProvisionRequest): Promise<EdgeView>;
  /**
   * The edge's current view of a registered domain. `check` is the routing check under way (it runs
   * alongside, so both fit in one request's time; self-managed reads the certificate status from it);
   * `recheck` asks the edge to validate again (Cloudflare: PATCH with the same ssl object).
   */
  observe(record: DomainRecord, check: Promise<RoutingCheck>, options?: { recheck?: boolean }): Promise<EdgeView>;
  /** Removes the hostname from the edge; removing one the edge no longer has succeeds. */
  deprovision(record: DomainRecord): Promise<void>;
}

export const EDGE_PROVIDER = Symbol.for('funnel.billing.EdgeProvider');
