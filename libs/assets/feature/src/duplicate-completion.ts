import { Injectable } from '@nestjs/common';
import { CallerContext, ServiceError } from '@funnel/contracts';
import { GlobalPosition, START_POSITION, comparePositions } from '@funnel/eventstore';
import { AssetEvent, DuplicateDecision, PlannedCopy, copiesOfDecision, decideAsset } from '@funnel/assets-domain';
import { AssetRepository } from './asset-repository';
import { RECORDS_PER_TURN, forEachInTurns } from './turn-taking';

const MAX_ATTEMPTS = 5;

/**
 * Completes a decided multi-asset duplicate (a DuplicateDecided event: a funnel with its local page
 * groups and conditions, a funnel group with its funnels): creates each planned copy in order, the
 * assets a copy names before it. Idempotent: a copy whose stream already holds a record is left as it
 * is, and a lost race (the command handler and the process manager completing the same decision) is
 * read again, so running it twice, or after a crash part-way, creates each copy exactly once.
 */
@Injectable()
export class DuplicateCompletion {
  /** The decisions being completed in this process, by the stream that holds them. */
  private readonly completing = new Map<string, Promise<GlobalPosition>>();

  constructor(private readonly repository: AssetRepository) {}

  /**
   * Completes the decision stored in the stream of `copy` (the asset it is the first event of):
   * a decision written in parts reads them (the stream's first events) for the copies they hold.
   * A decision the command is completing in this process is not done twice: this waits for it.
   */
  async completeStored(context: CallerContext, copy: { kind: string; id: string }, decision: DuplicateDecision): Promise<GlobalPosition> {
    const running = this.completing.get(keyOf(context, copy));
    if (running) return running.catch(() => this.completeStored(context, copy, decision));
    const planned = decision.parts ? await this.repository.events(copy.kind, context.accountId, copy.id, { maxCount: decision.parts }) : [];
    return this.complete(context, copy, copiesOfDecision(decision, planned));
  }

  /**
   * Creates `copies` (every copy of the decision in the stream of `copy`, in order); returns the
   * position of the last copy written (START_POSITION when every copy existed already).
   */
  complete(context: CallerContext, copy: { kind: string; id: string }, copies: readonly PlannedCopy[]): Promise<GlobalPosition> {
    const key = keyOf(context, copy);
    const running = this.completing.get(key);
    if (running) return running;
    const run = this.createAll(context, copies).finally(() => this.completing.delete(key));
    this.completing.set(key, run);
    return run;
  }

  private async createAll(context: CallerContext, copies: readonly PlannedCopy[]): Promise<GlobalPosition> {
    let last = START_POSITION;
    // A copy a turn: storing a large funnel takes tens of ms, and the other requests go between them.
    await forEachInTurns(
      copies,
      async (copy) => {
        const position = await this.create(context, copy);
        if (comparePositions(position, last) > 0) last = position;
      },
      RECORDS_PER_TURN,
    );
    return last;
  }

  private async create(context: CallerContext, copy: PlannedCopy): Promise<GlobalPosition> {
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      const loaded = await this.repository.load(copy.kind, context.accountId, copy.id);
      if (loaded.state.record) return START_POSITION;
      let events: AssetEvent[];
      try {
        events = decideAsset({ type: 'CreateAsset', record: copy.record, duplicatedFrom: copy.duplicatedFrom }, loaded.state, { kind: copy.kind, id: copy.id });
      } catch (error) {
        // The id was taken by another decision: not this duplicate's to create.
        if (error instanceof ServiceError) return START_POSITION;
        throw error;
      }
      try {
        return (await this.repository.append(copy.kind, context, copy.id, events, loaded.revision)).position;
      } catch (error) {
        if (!(error instanceof ServiceError && error.status === 409) || attempt === MAX_ATTEMPTS) throw error;
      }
    }
    return START_POSITION;
  }
}

function keyOf(context: CallerContext, copy: { kind: string; id: string }): string {
  return `${context.accountId}/${copy.kind}/${copy.id}`;
}
