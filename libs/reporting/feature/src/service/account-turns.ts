import type { JobDelivery } from '../queue/job-queue';
import type { AppliedJob } from './reporting.tokens';

/** What became of a delivery a group took: applied with the group (its result), or left to apply on its own. */
export type GroupOutcome = { kind: 'applied'; result: AppliedJob } | { kind: 'alone' };

/** A delivery taken into a group: `settle` tells it what became of it. */
export interface GroupMember<P> {
  delivery: JobDelivery<P>;
  settle(outcome: GroupOutcome): void;
}

interface Waiting<P> {
  delivery: JobDelivery<P>;
  take(outcome: Promise<GroupOutcome>): void;
}

/**
 * The deliveries of this process waiting for their account's turn, by account, so that the one
 * whose turn comes can take the ones right after it in the account's order into its group
 * (`gather`): they then wait for the group's outcome instead of their turn.
 */
export class AccountTurns<P> {
  private readonly waiting = new Map<string, Waiting<P>[]>();

  /**
   * Waits for the delivery's turn with `untilFirst` (its signal aborted when a group takes the
   * delivery meanwhile): `first` when its turn came, else the outcome of the group that took it.
   */
  async turn(delivery: JobDelivery<P>, untilFirst: (signal: AbortSignal) => Promise<void>): Promise<{ kind: 'first' } | GroupOutcome> {
    const abort = new AbortController();
    let taken: Promise<GroupOutcome> | undefined;
    let onTaken!: () => void;
    const takenSignal = new Promise<void>((resolve) => (onTaken = resolve));
    const entry: Waiting<P> = {
      delivery,
      take: (outcome) => {
        taken = outcome;
        this.remove(entry);
        abort.abort();
        onTaken();
      },
    };
    this.add(entry);
    const first = untilFirst(abort.signal);
    // Taken first: the turn's answer (aborted) no longer matters.
    first.catch(() => undefined);
    try {
      await Promise.race([first, takenSignal]);
    } catch (error) {
      if (!taken) throw error;
    } finally {
      this.remove(entry);
    }
    return taken ? await taken : { kind: 'first' };
  }

  /**
   * Takes, one after the other, the deliveries waiting here that come right after `leader` in its
   * account's order (the queue's `isNextOfAccountAfter`, from the leader on), while `fits` accepts
   * the next one: the first that does not, or none found, ends the group. The leader must be first of
   * its account (its turn came) and stay on the queue until every member is settled.
   */
  async gather(leader: JobDelivery<P>, fits: (delivery: JobDelivery<P>, members: number) => boolean): Promise<GroupMember<P>[]> {
    const members: GroupMember<P>[] = [];
    let tail = leader;
    for (;;) {
      let next: Waiting<P> | undefined;
      for (const candidate of [...(this.waiting.get(leader.job.accountId) ?? [])]) {
        if (await candidate.delivery.isNextOfAccountAfter(tail)) {
          next = candidate;
          break;
        }
      }
      // Still waiting: a delivery whose turn wait gave up meanwhile is no longer here.
      if (!next || !this.isWaiting(next) || !fits(next.delivery, members.length)) return members;
      let settle!: (outcome: GroupOutcome) => void;
      next.take(new Promise<GroupOutcome>((resolve) => (settle = resolve)));
      members.push({ delivery: next.delivery, settle });
      tail = next.delivery;
    }
  }

  private add(entry: Waiting<P>): void {
    const list = this.waiting.get(entry.delivery.job.accountId) ?? [];
    this.waiting.set(entry.delivery.job.accountId, list);
    list.push(entry);
  }

  private isWaiting(entry: Waiting<P>): boolean {
    return this.waiting.get(entry.delivery.job.accountId)?.includes(entry) ?? false;
  }

  private remove(entry: Waiting<P>): void {
    const accountId = entry.delivery.job.accountId;
    const list = this.waiting.get(accountId);
    if (!list) return;
    const at = list.indexOf(entry);
    if (at >= 0) list.splice(at, 1);
    if (list.length === 0) this.waiting.delete(accountId);
  }
}
