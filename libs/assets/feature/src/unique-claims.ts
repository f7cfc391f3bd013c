import { createHash, randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { AssetKindDescriptor, CallerContext, ErrorCodes, ServiceError, UniqueField } from '@funnel/contracts';
import { EVENT_STORE, EventStore, WrongExpectedRevisionError } from '@funnel/eventstore';
import { CLOCK, Clock } from './assets.tokens';
import { AssetRepository } from './asset-repository';

const CLAIMED = 'UniqueValueClaimed';
/** A save that claimed the value has ended; its holder keeps the value (its stored record has it, or another save is under way). */
const SAVE_ENDED = 'UniqueValueSaveEnded';
const RELEASED = 'UniqueValueReleased';

/** A claim is only taken over once it is this old: younger, its save may still be under way. */
const STALE_AFTER_MS = 60_000;
/** Appends to one claim stream lost to concurrent ones before giving up (each loss is another save's progress). */
const MAX_ATTEMPTS = 50;

interface ClaimState {
  /** The asset holding the value, if any. */
  holder?: string;
  /** Tokens of the holder's saves that claimed the value and have not ended (none in claims written before tokens). */
  tokens: Set<string>;
  /** When the value was last claimed. */
  claimedAt: number;
  revision: number;
}

interface ClaimedValue {
  unique: UniqueField;
  value: string;
}

/** One save's part in the claims: settle it (UniqueClaims.settle) once the save has ended, however it ended. */
export interface ClaimTicket {
  kind: AssetKindDescriptor;
  context: CallerContext;
  id: string;
  token: string;
  /** Values the save claimed, with its token. */
  claimed: ClaimedValue[];
  /** Values of the asset's previous record the save gives up. */
  givenUp: ClaimedValue[];
}

/**
 * Values that must be unique among an account's live assets of a kind (a short link's slug): each
 * value is claimed in a stream of its own, `claim-<accountId>.<kind>.<field>.<digest>`, by
 * appending at the revision it was read at, so of two replicas racing for one value exactly one
 * wins and the other answers 409.
 *
 * A value is held while a save that claimed it is under way, or while its holder's stored record has
 * it. Every save that sets a value its asset did not have appends a claim with a token of its own,
 * also when the asset already holds the value; when the save ends (saved or not) it settles each
 * value it touched: it takes its token back, and releases the value when no other save of the holder
 * is under way and the holder's stored record (its stream, not the read model) is deleted or has
 * another value. Delete settles the same way; archive keeps the claim. A claim of another asset is
 * taken over once it is a minute old and its holder's stored record does not have the value (a crash
 * between claiming and saving or settling: a younger one may belong to a save under way).
 */
@Injectable()
export class UniqueClaims {
  private readonly logger = new Logger(UniqueClaims.name);

  constructor(
    @Inject(EVENT_STORE) private readonly eventStore: EventStore,
    private readonly repository: AssetRepository,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /**
   * Claims, for a save of asset `id` from `previous` to `record`, every unique value of `record`
   * that `previous` did not have (a 409 when another asset holds one). The ticket names them and
   * the values given up; settle it when the save ends. On a 409 the claims made are settled here.
   */
  async claimAll(
    kind: AssetKindDescriptor,
    context: CallerContext,
    id: string,
    record: Record<string, unknown>,
    previous: Record<string, unknown> | null,
  ): Promise<ClaimTicket> {
    const ticket: ClaimTicket = { kind, context, id, token: randomUUID(), claimed: [], givenUp: [] };
    for (const unique of kind.uniqueFields ?? []) {
      const value = valueOf(record, unique);
      const before = previous ? valueOf(previous, unique) : undefined;
      if (before !== undefined && before !== value) ticket.givenUp.push({ unique, value: before });
    }
    try {
      for (const unique of kind.uniqueFields ?? []) {
        const value = valueOf(record, unique);
        if (value === undefined || value === valueOf(previous ?? {}, unique)) continue;
        // Named before the append: an append whose answer is lost may still have been made.
        ticket.claimed.push({ unique, value });
        await this.claim(kind, context, unique, value, id, ticket.token);
      }
    } catch (error) {
      await this.settle(ticket);
      throw error;
    }
    return ticket;
  }

  /** Settles every value a save touched, once it has ended (saved or not). */
  async settle(ticket: ClaimTicket): Promise<void> {
    const { kind, context, id, token } = ticket;
    for (const { unique, value } of ticket.claimed) await this.settleValue(kind, context, unique, value, id, token);
    for (const { unique, value } of ticket.givenUp) await this.settleValue(kind, context, unique, value, id);
  }

  /** Settles the unique values of `record` held by asset `id`, by no save of its own (after a delete). */
  async settleValuesOf(kind: AssetKindDescriptor, context: CallerContext, id: string, record: Record<string, unknown>): Promise<void> {
    for (const unique of kind.uniqueFields ?? []) {
      const value = valueOf(record, unique);
      if (value !== undefined) await this.settleValue(kind, context, unique, value, id);
    }
  }

  /** Claims `value` for asset `id` with `token`; a 409 when another asset holds it and its claim is not stale. */
  private async claim(kind: AssetKindDescriptor, context: CallerContext, unique: UniqueField, value: string, id: string, token: string): Promise<void> {
    const stream = this.streamOf(kind, context, unique, value);
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      const state = await this.load(stream);
      if (state.holder !== undefined && state.holder !== id) {
        const young = this.clock().getTime() - state.claimedAt < STALE_AFTER_MS;
        if (young || (await this.storedHolds(kind, context, unique, value, state.holder))) throw this.taken(kind, unique, value);
      }
      const claimedAt = this.clock().toISOString();
      if (await this.appendAt(stream, state, context, { type: CLAIMED, data: { assetId: id, claimedAt, token } })) return;
      // Another append came first: read again and decide again.
    }
    throw ServiceError.conflict(ErrorCodes.ASSET_CONFLICT, `${kind.kind} ${id}: ${unique.field} is being changed concurrently; retry`);
  }

  /**
   * Ends the part of one save (`token`, none for a delete) in the claim of `value`: the token is taken
   * back, and the value released unless another save of the holder is under way or the holder's
   * stored record is live and has it.
   */
  private async settleValue(kind: AssetKindDescriptor, context: CallerContext, unique: UniqueField, value: string, id: string, token?: string): Promise<void> {
    const stream = this.streamOf(kind, context, unique, value);
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      const state = await this.load(stream);
      if (state.holder !== id) return;
      const mine = token !== undefined && state.tokens.has(token);
      const othersUnderWay = [...state.tokens].some((other) => other !== token);
      const kept = othersUnderWay || (await this.storedHolds(kind, context, unique, value, id));
      if (kept && !mine) return;
      const event = kept ? { type: SAVE_ENDED, data: { assetId: id, token } } : { type: RELEASED, data: { assetId: id } };
      if (await this.appendAt(stream, state, context, event)) return;
    }
    // Its token stays: the claim falls to the stale-claim takeover (a minute) if the holder does not have the value.
    this.logger.warn(`${kind.kind} ${id}: ${unique.field} claim not settled after ${MAX_ATTEMPTS} concurrent changes`);
  }

  /** Appends `event` at the revision `state` was read at; false when another append came first. */
  private async appendAt(stream: string, state: ClaimState, context: CallerContext, event: { type: string; data: Record<string, unknown> }): Promise<boolean> {
    try {
      await this.eventStore.append(stream, [{ ...event, metadata: { accountId: context.accountId, correlationId: context.correlationId } }], {
        expectedRevision: state.revision < 0 ? 'no_stream' : state.revision,
      });
      return true;
    } catch (error) {
      if (error instanceof WrongExpectedRevisionError) return false;
      throw error;
    }
  }

  /** Whether asset `id`'s stored record (read from its stream: the read model may lag) is live and has the value. */
  private async storedHolds(kind: AssetKindDescriptor, context: CallerContext, unique: UniqueField, value: string, id: string): Promise<boolean> {
    const record = (await this.repository.load(kind.kind, context.accountId, id)).state.record;
    return !!record && record.status !== 'deleted' && record[unique.field] === value;
  }

  private async load(stream: string): Promise<ClaimState> {
    const state: ClaimState = { tokens: new Set(), revision: -1, claimedAt: 0 };
    for (const event of await this.eventStore.readStream(stream)) {
      state.revision = event.revision;
      const assetId = String(event.data.assetId);
      const token = typeof event.data.token === 'string' ? event.data.token : undefined;
      if (event.type === CLAIMED) {
        // A takeover (or a claim of a free value) starts a new set of saves under way.
        if (state.holder !== assetId) state.tokens = new Set();
        state.holder = assetId;
        state.claimedAt = Date.parse(String(event.data.claimedAt)) || 0;
        if (token !== undefined) state.tokens.add(token);
      } else if (event.type === SAVE_ENDED) {
        if (token !== undefined) state.tokens.delete(token);
      } else if (event.type === RELEASED) {
        state.holder = undefined;
        state.tokens = new Set();
      }
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

/** A record's unique value in `unique`'s field: a non-empty string, else none. */
function valueOf(record: Record<string, unknown>, unique: UniqueField): string | undefined {
  const value = record[unique.field];
  return typeof value === 'string' && value !== '' ? value : undefined;
}
