import { Inject, Injectable } from '@nestjs/common';
import { CallerContext, ErrorCodes, ServiceError } from '@funnel/contracts';
import {
  AppendResult,
  EVENT_STORE,
  EventStore,
  GlobalPosition,
  MaxAppendSizeExceededError,
  ReadStreamOptions,
  START_POSITION,
  StreamAppend,
  WrongExpectedRevisionError,
} from '@funnel/eventstore';
import { ASSET_EVENT_SCHEMA_VERSION, AssetEvent, AssetRegistry, AssetState, evolveAsset, initialAssetState, storedEventType } from '@funnel/assets-domain';
import { ASSET_REGISTRY, CLOCK, Clock } from './assets.tokens';

export interface LoadedAsset {
  state: AssetState;
  /** Last stream revision, or -1 when the stream does not exist. */
  revision: number;
  /** Global position of the last event (START_POSITION when none). */
  position: GlobalPosition;
}

/** Reads asset streams into decider state and appends decided events with the expected revision. */
@Injectable()
export class AssetRepository {
  constructor(
    @Inject(EVENT_STORE) private readonly eventStore: EventStore,
    @Inject(ASSET_REGISTRY) private readonly registry: AssetRegistry,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async load(kind: string, accountId: string, id: string): Promise<LoadedAsset> {
    const events = await this.eventStore.readStream(this.registry.streamName(kind, accountId, id));
    let state = initialAssetState();
    let revision = -1;
    let position = START_POSITION;
    for (const e of events) {
      const decoded = this.registry.decodeEvent(kind, e.type, e.data);
      if (decoded) state = evolveAsset(state, decoded);
      revision = e.revision;
      position = e.position;
    }
    return { state, revision, position };
  }

  /** The events of an asset's stream (decoded; one of no event type of its kind is skipped), `options` as readStream's. */
  async events(kind: string, accountId: string, id: string, options?: ReadStreamOptions): Promise<AssetEvent[]> {
    const events = await this.eventStore.readStream(this.registry.streamName(kind, accountId, id), options);
    return events.flatMap((e) => this.registry.decodeEvent(kind, e.type, e.data) ?? []);
  }

  /** Appends expecting the revision the decision was made on; a refusal is answered as appendErrorOf says. */
  async append(kind: string, context: CallerContext, id: string, events: AssetEvent[], expectedRevision: number, conditional = false): Promise<AppendResult> {
    const append = this.streamAppend(kind, context, { id, events, expectedRevision });
    try {
      return await this.eventStore.append(append.streamName, append.events, append.options);
    } catch (error) {
      throw appendErrorOf(kind, id, expectedRevision < 0, conditional, error);
    }
  }

  /**
   * The appends of a bulk request (several assets of one kind), as one write of the event store
   * (SQLite: one group commit), each expecting the revision its decision was made on. The first
   * that fails ends it, as `append` one after another would: the assets before it are written, it
   * and those after it are not, and its error is answered as `append` answers it.
   */
  async appendMany(kind: string, context: CallerContext, assets: readonly AssetAppend[], conditional = false): Promise<AppendResult[]> {
    const appends = assets.map((asset) => this.streamAppend(kind, context, asset));
    try {
      return await this.eventStore.appendMany(appends);
    } catch (error) {
      const failed = assets.find((_, index) => appends[index].streamName === (error as { streamName?: unknown }).streamName);
      throw failed ? appendErrorOf(kind, failed.id, failed.expectedRevision < 0, conditional, error) : error;
    }
  }

  private streamAppend(kind: string, context: CallerContext, { id, events, expectedRevision }: AssetAppend): StreamAppend {
    const descriptor = this.registry.get(kind);
    const occurredAt = this.clock().toISOString();
    return {
      streamName: this.registry.streamName(kind, context.accountId, id),
      events: events.map((e) => ({
        type: storedEventType(descriptor.eventPrefix, e.type),
        data: e.data as Record<string, unknown>,
        metadata: {
          accountId: context.accountId,
          actorId: context.userId,
          keyId: context.keyId ?? null,
          correlationId: context.correlationId,
          occurredAt,
          schemaVersion: ASSET_EVENT_SCHEMA_VERSION,
        },
      })),
      // Records are replaced, never edited, once decided: the projector may read these very objects.
      options: { expectedRevision: expectedRevision < 0 ? 'no_stream' : expectedRevision, shareData: true },
    };
  }
}

/** One asset's decided events and the revision they were decided on (-1: a create). */
export interface AssetAppend {
  id: string;
  events: AssetEvent[];
  expectedRevision: number;
}

/**
 * What a refused append answers: a lost race is a 409, never a lost write (a 412 naming the current
 * revision when the caller sent If-Match: `conditional`; a create of an existing id: 409
 * ASSET_EXISTS); events larger than the log takes in one append (EventStoreDB's MaxAppendSize) are a
 * 413 ASSET.TOO_LARGE.
 */
function appendErrorOf(kind: string, id: string, create: boolean, conditional: boolean, error: unknown): unknown {
  if (error instanceof WrongExpectedRevisionError) {
    if (create) return ServiceError.conflict(ErrorCodes.ASSET_EXISTS, `${kind} ${id} already exists`);
    if (conditional && typeof error.actual === 'number') return revisionMismatch(kind, id, error.actual);
    return ServiceError.conflict(ErrorCodes.ASSET_CONFLICT, `${kind} ${id} was changed concurrently; reload and retry`);
  }
  if (error instanceof MaxAppendSizeExceededError) {
    const size = error.size === undefined ? '' : ` (${error.size} bytes)`;
    return new ServiceError(
      413,
      ErrorCodes.ASSET_TOO_LARGE,
      `${kind} ${id}: the record is too large to store${size}: the event log takes at most ${error.maxAppendSize} bytes in one write`,
    );
  }
  return error;
}

/** 412: the asset has moved on from the revision the caller's If-Match names; the error names the current one. */
export function revisionMismatch(kind: string, id: string, current: number): ServiceError {
  const message =
    current < 0
      ? `${kind} ${id} does not exist, so no revision of it matches If-Match; save it without If-Match to create it`
      : `${kind} ${id} has changed: its current revision is ${current} (ETag W/"${current}"); reload it and apply your change again`;
  return ServiceError.preconditionFailed(ErrorCodes.ASSET_REVISION_MISMATCH, message, [{ field: 'If-Match', code: 'revision', message }]);
}

/** Refuses a write whose If-Match (`expected`) names another revision than the loaded one (a missing asset is left to the 404). */
export function assertRevision(kind: string, id: string, loaded: number, expected: number | undefined): void {
  if (expected !== undefined && loaded >= 0 && loaded !== expected) throw revisionMismatch(kind, id, loaded);
}
