import { BillingErrorCodes, CallerContext, ServiceError } from '@funnel/contracts';
import { EventStore, WrongExpectedRevisionError } from '@funnel/eventstore';
import { CustomDomainState, DomainStreams, asCustomDomainEvent, domainExists, evolveCustomDomain, initialCustomDomainState } from '@funnel/billing-domain';

const CLAIMED = 'CustomDomainClaimed';
const RELEASED = 'CustomDomainReleased';

/** A claim is only taken over once it is this old: younger, its registration may still be under way. */
const STALE_AFTER_MS = 60_000;

interface Claim {
  holder?: { accountId: string; domainId: string; claimedAt: number };
  revision: number;
}

/**
 * The global claim of a domain name across accounts, in its own stream `domainclaim-<domain>`,
 * appended at the revision it was read at: of two accounts (or replicas) racing for one name,
 * exactly one appends, the other reads the winner and answers 409 (DOMAIN_ALREADY_OWNED, or
 * DOMAIN_EXISTS when the winner is its own account). A claim whose holder never registered the
 * domain (a crash between claiming and registering) is taken over once a minute old.
 */
export class DomainClaims {
  constructor(
    private readonly eventStore: EventStore,
    private readonly clock: () => number = Date.now,
  ) {}

  async claim(context: CallerContext, domain: string, domainId: string): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      const claim = await this.load(domain);
      const holder = claim.holder;
      if (holder && !(await this.abandoned(holder, domain))) {
        if (holder.accountId === context.accountId) throw domainExists(domain);
        throw ServiceError.conflict(BillingErrorCodes.DOMAIN_ALREADY_OWNED, `${domain} is a custom domain of another account`);
      }
      try {
        await this.eventStore.append(
          DomainStreams.claim(domain),
          [
            {
              type: CLAIMED,
              data: { accountId: context.accountId, domainId, claimedAt: this.clock() },
              metadata: { accountId: context.accountId, actorId: context.userId, correlationId: context.correlationId },
            },
          ],
          { expectedRevision: claim.revision < 0 ? 'no_stream' : claim.revision },
        );
        return;
      } catch (error) {
        // Someone appended first: read again and answer as the winner makes it (once is enough).
        if (!(error instanceof WrongExpectedRevisionError)) throw error;
        if (attempt > 0) throw conflict(domain);
      }
    }
  }

  /** Releases the claim if `domainId` of the account still holds it. */
  async release(context: CallerContext, domain: string, domainId: string): Promise<void> {
    const claim = await this.load(domain);
    if (claim.holder?.accountId !== context.accountId || claim.holder.domainId !== domainId) return;
    try {
      await this.eventStore.append(
        DomainStreams.claim(domain),
        [
          {
            type: RELEASED,
            data: { accountId: context.accountId, domainId },
            metadata: { accountId: context.accountId, correlationId: context.correlationId },
          },
        ],
        { expectedRevision: claim.revision },
      );
    } catch (error) {
      // Taken over meanwhile: no longer ours to release.
      if (!(error instanceof WrongExpectedRevisionError)) throw error;
    }
  }

  private async load(domain: string): Promise<Claim> {
    const claim: Claim = { revision: -1 };
    for (const event of await this.eventStore.readStream(DomainStreams.claim(domain))) {
      claim.revision = event.revision;
      claim.holder =
        event.type === CLAIMED
          ? { accountId: String(event.data.accountId), domainId: String(event.data.domainId), claimedAt: Number(event.data.claimedAt) || 0 }
          : undefined;
    }
    return claim;
  }

  /** The holder never registered the domain (or no longer holds it registered) and the claim is old enough to be taken over. */
  private async abandoned(holder: NonNullable<Claim['holder']>, domain: string): Promise<boolean> {
    if (this.clock() - holder.claimedAt < STALE_AFTER_MS) return false;
    let state: CustomDomainState = initialCustomDomainState();
    for (const e of await this.eventStore.readStream(DomainStreams.domain(holder.accountId, domain))) {
      const event = asCustomDomainEvent(e.type, e.data);
      if (event) state = evolveCustomDomain(state, event);
    }
    return state.record?.id !== holder.domainId;
  }
}

function conflict(domain: string): ServiceError {
  return ServiceError.conflict(BillingErrorCodes.CONFLICT, `${domain} was claimed concurrently; try again`);
}
