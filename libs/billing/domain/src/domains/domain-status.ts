import type { DomainStatus } from '@funnel/contracts';

/** What a refresh observed: the edge's ownership verdict and whether the routing check found our edge. */
export interface DomainObservation {
  ownershipVerified: boolean;
  /** The HTTPS check reached our edge (valid certificate, our answer). */
  found: boolean;
}

/**
 * The domain status rules:
 * - `pending` (on creation) stays pending until ownership is verified AND the check finds our edge,
 *   then it is `active`;
 * - `active` stays active while the check finds our edge; when a refresh no longer finds it, `moved`;
 * - `moved` becomes `active` again once ownership is verified and the check finds our edge;
 * - `deleted` is final (a deleted domain is never refreshed; registering it again starts anew).
 */
export function nextDomainStatus(current: DomainStatus, observation: DomainObservation): DomainStatus {
  const routed = observation.ownershipVerified && observation.found;
  switch (current) {
    case 'pending':
      return routed ? 'active' : 'pending';
    case 'active':
      return observation.found ? 'active' : 'moved';
    case 'moved':
      return routed ? 'active' : 'moved';
    case 'deleted':
      return 'deleted';
    default: {
      const unknown: never = current;
      throw new Error(`unknown domain status ${String(unknown)}`);
    }
  }
}
