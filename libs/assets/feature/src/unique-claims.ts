import { createHash } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { AssetKindDescriptor, CallerContext, ServiceError, UniqueField } from '@funnel/contracts';
import { EVENT_STORE, EventStore, WrongExpectedRevisionError } from '@funnel/eventstore';
import { AssetQueries } from './asset-queries';

const CLAIMED = 'UniqueValueClaimed';
const RELEASED = 'UniqueValueReleased';

/** A claim is only taken over once it is this old: younger, its save may still be under way. */
const STALE_AFTER_MS = 60_000;

interface ClaimState {
  /** The asset holding the value, if any, and since when. */
  holder?: string;
  claimedAt: number;
  revision: number;
}

/**
 * Values that must be unique among an account's live assets of a kind (a short link's slug): each
 * value is claimed in a stream of its own, `claim-<accountId>.<kind>.<field>.<digest>`, by
 * appending at the revision it was read at, so of two replicas racing for one value exactly one
 * wins and the other answers 409. Delete releases the claim; archive keeps it. A claim whose holder
 * no longer holds the value (a crash between claiming and saving, or an update that did not get to
 * release it) is taken over once it is a minute old (a younger one may belong to a save under way).
 */
@Injectable()
export class UniqueClaims {
  constructor(
    @Inject(EVENT_STORE) private readonly eventStore: EventStore,
    private readonly queries: AssetQueries,
  ) {}

  /**
   * Claims every unique value of `record` for asset `id`; returns the claims made (to release if the
   * save fails). A value `id` already holds is not among them: a failed save must not free it.
   */
  async claimAll(
    kind: AssetKindDescriptor,
    context: CallerContext,
    id: string,
    record: Record<string, unknown>,
    previous: Record<string, unknown> | null,
  ): Promise<UniqueField[]> {
    const made: UniqueField[] = [];
    try {
      for (const unique of kind.uniqueFields ?? []) {
        const value = record[unique.field];
        if (typeof value !== 'string' || value === '' || value === previous?.[unique.field]) continue;
        if (await this.claim(kind, context, unique, value, id)) made.push(unique);
      }
    } catch (error) {
      await this.releaseAll(kind, context, id, record, made);
      throw error;
    }
    return made;
  }

  /** Releases the values of `record` held by `id` (all unique fields unless `only` is given). */
  async releaseAll(
    kind: AssetKindDescriptor,
    context: CallerContext,
    id: string,
    record: Record<string, unknown>,
    only = kind.uniqueFields ?? [],
  ): Promise<void> {
    for (const unique of only) {
      const value = record[unique.field];
      if (typeof value === 'string' && value !== '') await this.release(kind, context, unique, value, id);
    }
  }

  /** Claims `value` for asset `id`: true when claimed now, false when `id` already held it; a 409 when another asset does. */
  private async claim(kind: AssetKindDescriptor, context: CallerContext, unique: UniqueField, value: string, id: string): Promise<boolean> {
    const stream = this.streamOf(kind, context, unique, value);
    const state = await this.load(stream);
    if (state.holder === id) return false;
    if (state.holder && (Date.now() - state.claimedAt < STALE_AFTER_MS || (await this.stillHolds(kind, context, unique, value, state.holder)))) {
      throw this.taken(kind, unique, value);
    }
    try {
      await this.eventStore.append(
        stream,
        [
          {
            type: CLAIMED,
            data: { assetId: id, claimedAt: new Date().toISOString() },
            metadata: { accountId: context.accountId, correlationId: context.correlationId },
          },
        ],
        {
          expectedRevision: state.revision < 0 ? 'no_stream' : state.revision,
        },
      );
    } catch (error) {
      if (error instanceof WrongExpectedRevisionError) throw this.taken(kind, unique, value);
      throw error;
    }
    return true;
  }

  private async release(kind: AssetKindDescriptor, context: CallerContext, unique: UniqueField, value: string, id: string): Promise<void> {
    const stream = this.streamOf(kind, context, unique, value);
    const state = await this.load(stream);
    if (state.holder !== id) return;
    try {
      await this.eventStore.append(
        stream,
        [{ type: RELEASED, data: { assetId: id }, metadata: { accountId: context.accountId, correlationId: context.correlationId } }],
        {
          expectedRevision: state.revision,
        },
      );
    } catch (error) {
      // Someone took it over meanwhile: it is not ours to release any more.
      if (!(error instanceof WrongExpectedRevisionError)) throw error;
    }
  }

  /** Whether the holder is a live asset that still has the value (else its claim is stale). */
  private async stillHolds(kind: AssetKindDescriptor, context: CallerContext, unique: UniqueField, value: string, holder: string): Promise<boolean> {
    const record = await this.queries.current(kind.kind, context.accountId, holder);
    return !!record && record.status !== 'deleted' && record[unique.field] === value;
  }

  private async load(stream: string): Promise<ClaimState> {
    const state: ClaimState = { revision: -1, claimedAt: 0 };
    for (const event of await this.eventStore.readStream(stream)) {
      state.revision = event.revision;
      state.holder = event.type === CLAIMED ? String(event.data.assetId) : undefined;
      state.claimedAt = Date.parse(String(event.data.claimedAt)) || 0;
    }
    return state;
  }

  private streamOf(kind: AssetKindDescriptor, context: CallerContext, unique: UniqueField, value: string): string {
    const digest = createHash('sha256').update(value).digest('hex').slice(0, 40);
    return `claim-${context.accountId}.${kind.kind}.${unique.field}.${digest}`;
  }

  private taken(kind: AssetKindDescriptor, unique: UniqueField, value: string): ServiceError {
    const shown = value.length > 64 ? `${value.slice(0, 64)}…` : value;
    return ServiceError.conflict(unique.code, `${unique.field} ${shown} is already used by another ${kind.kind}`, [
      { field: unique.field, code: 'unique', message: `${unique.field} ${shown} is already used by another ${kind.kind}` },
    ]);
  }
}
