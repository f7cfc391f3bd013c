import { Injectable } from '@nestjs/common';
import { AssetKindDescriptor, CallerContext, ErrorCodes, ServiceError } from '@funnel/contracts';
import { GlobalPosition } from '@funnel/eventstore';
import { AssetCommand, AssetEvent, AssetRecord, decideAsset } from '@funnel/assets-domain';
import { UniqueClaims } from '../unique-claims';
import { AssetRepository, LoadedAsset, assertRevision } from '../asset-repository';
import { AssetProjector } from '../asset-projector';
import { mapInTurns } from '../turn-taking';

/** Events decided for one asset at the revision they were decided on. */
export interface Decided {
  id: string;
  events: AssetEvent[];
  revision: number;
}

/**
 * How every use case writes: decide on the loaded stream, claim unique values, append with the
 * expected revision (a lost race is a 409, with If-Match a 412), then wait for the read model to
 * show the write (read-your-writes). Bulk writes load in turns and append as one write.
 */
@Injectable()
export class AssetWrites {
  constructor(
    private readonly repository: AssetRepository,
    private readonly projector: AssetProjector,
    private readonly claims: UniqueClaims,
  ) {}

  /** Creates one asset, claiming its unique values first (settled when the create ends: released when it failed). */
  async appendNew(kind: AssetKindDescriptor, context: CallerContext, record: AssetRecord, command: () => AssetCommand): Promise<void> {
    const id = String(record[kind.idField]);
    const ticket = await this.claims.claimAll(kind, context, id, record, null);
    try {
      await this.decideAndAppend(kind, context, [id], command);
    } finally {
      await this.claims.settle(ticket);
    }
  }

  /** Decides the update of a loaded asset to `record`, claims its unique values and appends at the loaded revision (`conditional`: If-Match). */
  async appendUpdate(
    kind: AssetKindDescriptor,
    context: CallerContext,
    id: string,
    loaded: LoadedAsset,
    record: AssetRecord,
    conditional = false,
  ): Promise<void> {
    const current = loaded.state.record;
    const events = decideAsset({ type: 'UpdateAsset', record }, loaded.state, { kind: kind.kind, id });
    const ticket = await this.claims.claimAll(kind, context, id, record, current);
    let result;
    try {
      result = await this.repository.append(kind.kind, context, id, events, loaded.revision, conditional);
    } finally {
      // Saved or not: the values it claimed are held by the stored record or free, as are those it gave up.
      await this.claims.settle(ticket);
    }
    await this.projector.waitFor(result.position);
  }

  /**
   * Decides for every id first (any failure rejects the whole request, nothing appended), then appends.
   * `ifMatch`: the revision the (one) asset must be at, checked on load and again by the append.
   */
  async decideAndAppend(kind: AssetKindDescriptor, context: CallerContext, ids: string[], command: () => AssetCommand, ifMatch?: number): Promise<void> {
    await this.appendDecided(kind, context, await this.decideAll(kind, context, ids, command, ifMatch), ifMatch !== undefined);
  }

  /** Loads and decides for every id (`before`: its record as loaded); any failure rejects them all. */
  async decideAll(
    kind: AssetKindDescriptor,
    context: CallerContext,
    ids: string[],
    command: () => AssetCommand,
    ifMatch?: number,
  ): Promise<(Decided & { before: AssetRecord | null })[]> {
    return mapInTurns([...new Set(ids)], async (id) => {
      const loaded = await this.repository.load(kind.kind, context.accountId, id);
      assertRevision(kind.kind, id, loaded.revision, ifMatch);
      return { id, revision: loaded.revision, before: loaded.state.record, events: decideAsset(command(), loaded.state, { kind: kind.kind, id }) };
    });
  }

  /** Appends decided events, then waits for the read model to show the last. */
  async appendDecided(kind: AssetKindDescriptor, context: CallerContext, decided: Decided[], conditional: boolean): Promise<void> {
    const appended = await this.appendAll(kind, context, decided, conditional);
    if (appended.length) await this.projector.waitFor(appended[appended.length - 1].position);
  }

  /**
   * Appends the decided events of each asset that has any, each at the revision it was decided on.
   * Several (a bulk request) go to the event store as one write (SQLite: one group commit): the
   * first that fails (a lost race: 409, with If-Match 412) ends it, the assets before it written,
   * it and those after it not, and the request answers its error, as appending them one after
   * another did.
   */
  async appendAll(
    kind: AssetKindDescriptor,
    context: CallerContext,
    decided: Decided[],
    conditional = false,
  ): Promise<{ id: string; position: GlobalPosition }[]> {
    const writes = decided.filter((d) => d.events.length > 0);
    if (writes.length === 1) {
      const [{ id, events, revision }] = writes;
      return [{ id, position: (await this.repository.append(kind.kind, context, id, events, revision, conditional)).position }];
    }
    const results = await this.repository.appendMany(
      kind.kind,
      context,
      writes.map(({ id, events, revision }) => ({ id, events, expectedRevision: revision })),
      conditional,
    );
    return writes.map(({ id }, index) => ({ id, position: results[index].position }));
  }

  async loadLive(kind: AssetKindDescriptor, context: CallerContext, id: string): Promise<LoadedAsset> {
    const loaded = await this.repository.load(kind.kind, context.accountId, id);
    if (!loaded.state.record || loaded.state.record.status === 'deleted')
      throw ServiceError.notFound(ErrorCodes.ASSET_NOT_FOUND, `${kind.kind} ${id} not found`);
    return loaded;
  }
}
