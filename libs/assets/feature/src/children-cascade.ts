import { Inject, Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { AssetKindDescriptor, CallerContext, ServiceError } from '@funnel/contracts';
import { EVENT_STORE, EventStore, GlobalPosition, RecordedEvent, START_POSITION, Subscription, comparePositions, positionToString } from '@funnel/eventstore';
import { READ_STORE, ReadStore } from '@funnel/readstore';
import {
  AssetCommand,
  AssetEventType,
  AssetRecord,
  assetEventType,
  AssetRegistry,
  ChildrenDecision,
  ParentOperation,
  childCommandFor,
  childStatusesFor,
  decideAsset,
  isRestoredBy,
} from '@funnel/assets-domain';
import { ASSET_REGISTRY } from './assets.tokens';
import { AssetRepository } from './asset-repository';
import { AssetProjector } from './asset-projector';
import { assetsCollection } from './asset-documents';
import { DuplicateCompletion } from './duplicate-completion';

const PROCESS_MANAGER_NAME = 'assets-children-cascade';
/** The events that carry a decision to complete. */
const PROCESS_MANAGER_EVENTS: ReadonlySet<AssetEventType> = new Set(['Deleted', 'Archived', 'Unarchived', 'DuplicateDecided']);
const MAX_ATTEMPTS = 5;
/** The parent operation each decision-carrying event records. */
const OPERATION_OF = { Deleted: 'delete', Archived: 'archive', Unarchived: 'unarchive' } as const satisfies Record<string, ParentOperation>;

/** The commands a parent's decision passes on to its children's own children. */
function isCascading(command: AssetCommand): command is Extract<AssetCommand, { type: 'DeleteAsset' | 'ArchiveAsset' | 'UnarchiveAsset' }> {
  return command.type === 'DeleteAsset' || command.type === 'ArchiveAsset' || command.type === 'UnarchiveAsset';
}

/** Where children of one kind name their parent: `idCategory`, a parent field, or (local assets) a scope field. */
interface ChildHold {
  kind: AssetKindDescriptor;
  field: string;
  local: boolean;
}

export interface ParentMutationDone {
  parentKind: AssetKindDescriptor;
  accountId: string;
  parentId: string;
  parent: AssetRecord;
  operation: ParentOperation;
  decision: ChildrenDecision;
  /** Position of the parent's event that carries the decision. */
  decidedAt: GlobalPosition;
  context: CallerContext;
}

/**
 * Completes a parent's children decision (cascade, move, orphan) after the parent's event is in the
 * log; a parent's unarchive restores the children its archive archived in cascade (each records it). Idempotent and ordered: a child whose stream changed after the decision is left alone, and
 * commands already in effect decide no events, so running it twice (the command handler, then the
 * process manager replaying the log after a crash) converges on one result.
 */
@Injectable()
export class ChildrenCascade implements OnApplicationShutdown {
  private readonly logger = new Logger(ChildrenCascade.name);
  private readonly collection = assetsCollection(this.readStore);
  private subscription?: Subscription;
  /** The decisions being completed in this process, by parent and decision position. */
  private readonly completing = new Map<string, Promise<GlobalPosition>>();

  constructor(
    @Inject(EVENT_STORE) private readonly eventStore: EventStore,
    @Inject(READ_STORE) private readonly readStore: ReadStore,
    @Inject(ASSET_REGISTRY) private readonly registry: AssetRegistry,
    private readonly repository: AssetRepository,
    private readonly projector: AssetProjector,
    private readonly duplicates: DuplicateCompletion,
  ) {}

  /**
   * Returns the position of the last child event written (START_POSITION when none). One decision is
   * completed once at a time in this process: the command and the process manager (which reads the
   * same decision from the log meanwhile) share one run, so the command answers only once the
   * children, and theirs, are written, whoever wrote them.
   */
  complete(done: ParentMutationDone): Promise<GlobalPosition> {
    const key = `${done.accountId}/${done.parentKind.kind}/${done.parentId}@${positionToString(done.decidedAt)}`;
    const running = this.completing.get(key);
    if (running) return running;
    const run = this.completeNow(done).finally(() => this.completing.delete(key));
    this.completing.set(key, run);
    return run;
  }

  private async completeNow(done: ParentMutationDone): Promise<GlobalPosition> {
    const command = childCommandFor(done.operation, done.decision, { kind: done.parentKind.kind, id: done.parentId });
    if (!command) return START_POSITION;
    const holds = this.childrenHeldBy(done.parentKind, done.parent).filter((h) => h.local || done.decision.action !== 'orphan' || h.field === 'idCategory');
    if (!holds.length) return START_POSITION;
    await this.projector.waitFor(done.decidedAt);
    let last = START_POSITION;
    for (const hold of holds) {
      const children = await this.collection.find({
        accountId: done.accountId,
        kind: hold.kind.kind,
        [hold.field === 'idCategory' ? 'idCategory' : `record.${hold.field}`]: done.parentId,
        status: { $in: childStatusesFor(done.operation, done.decision) },
      });
      for (const child of children) {
        const position = await this.applyToChild(hold, child.assetId, done, command);
        if (comparePositions(position, last) > 0) last = position;
      }
    }
    return last;
  }

  /**
   * Where a parent's children are, by kind: the kinds its category type manages (in `idCategory`),
   * the kinds whose `parent` it is (in that field), and its local kinds (in their scope field; a
   * local asset always goes with its record, whatever the decision).
   */
  private childrenHeldBy(parentKind: AssetKindDescriptor, parent: AssetRecord): ChildHold[] {
    const holds: ChildHold[] = [];
    if (parentKind.categoryTypeField) {
      for (const kind of this.registry.childKindsOf(String(parent[parentKind.categoryTypeField]))) holds.push({ kind, field: 'idCategory', local: false });
    }
    for (const kind of this.registry.kinds) if (kind.parent?.kind === parentKind.kind) holds.push({ kind, field: kind.parent.field, local: false });
    for (const name of parentKind.localKinds ?? []) {
      const kind = this.registry.get(name);
      if (kind.scopeField) holds.push({ kind, field: kind.scopeField, local: true });
    }
    return holds;
  }

  /**
   * The command a child gets: delete, archive and unarchive of local assets always (they go with
   * their record); a move along a parent field is an update of that field; a child that has local
   * assets of its own passes a cascade on to them.
   */
  private childCommand(hold: ChildHold, done: ParentMutationDone, command: AssetCommand, record: AssetRecord): AssetCommand {
    if (hold.local) return childCommandFor(done.operation, { action: 'cascade' }, { kind: done.parentKind.kind, id: done.parentId })!;
    if (command.type === 'MoveAssetToCategory' && hold.field !== 'idCategory')
      return { type: 'UpdateAsset', record: { ...record, [hold.field]: command.idCategory } };
    if (isCascading(command) && hold.kind.localKinds?.length) return { ...command, children: { action: 'cascade' } };
    return command;
  }

  private async applyToChild(hold: ChildHold, id: string, done: ParentMutationDone, parentCommand: AssetCommand): Promise<GlobalPosition> {
    const kind = hold.kind.kind;
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      const loaded = await this.repository.load(kind, done.accountId, id);
      const record = loaded.state.record;
      // Changed after the decision, or no longer in this parent: the later change wins (and is waited for).
      if (!record || comparePositions(loaded.position, done.decidedAt) > 0 || record[hold.field] !== done.parentId) return loaded.position;
      // An unarchive restores only what the parent's archive archived, not a child archived on its own.
      if (done.operation === 'unarchive' && !isRestoredBy(loaded.state, { kind: done.parentKind.kind, id: done.parentId })) return START_POSITION;
      const command = this.childCommand(hold, done, parentCommand, record);
      let events;
      try {
        events = decideAsset(command, loaded.state, { kind, id });
      } catch (error) {
        if (error instanceof ServiceError) return START_POSITION;
        throw error;
      }
      if (!events.length) return START_POSITION;
      let position: GlobalPosition;
      try {
        position = (await this.repository.append(kind, done.context, id, events, loaded.revision)).position;
      } catch (error) {
        if (!(error instanceof ServiceError && error.status === 409) || attempt === MAX_ATTEMPTS) throw error;
        continue;
      }
      // A child that takes its own local assets along completes that cascade too (as the process manager would).
      if (isCascading(command) && command.children) {
        const reached = await this.complete({
          ...done,
          parentKind: hold.kind,
          parentId: id,
          parent: record,
          decision: command.children,
          decidedAt: position,
        });
        if (comparePositions(reached, position) > 0) position = reached;
      }
      return position;
    }
    return START_POSITION;
  }

  /**
   * Replays parent events from the checkpoint so a cascade or a multi-asset duplicate cut short by a
   * crash is completed. Parents: kinds with children (categories, parent records) or local assets.
   */
  async start(): Promise<void> {
    const parents = this.registry.kinds.filter((k) => this.registry.hasChildren(k));
    if (!parents.length) return;
    const from = (await this.readStore.checkpoints.get(PROCESS_MANAGER_NAME)) ?? START_POSITION;
    this.subscription = this.eventStore.subscribeToAll({
      from,
      streamNamePrefixes: parents.map((k) => `${k.kind}-`),
      onEvents: async (events) => {
        for (const e of events) await this.onParentEvent(e);
        await this.readStore.checkpoints.advance(PROCESS_MANAGER_NAME, events[events.length - 1].position);
      },
      onError: (error) => this.logger.error(`children cascade stopped: ${error.message}`),
    });
    await this.subscription.caughtUp;
  }

  private async onParentEvent(e: RecordedEvent): Promise<void> {
    const stream = this.registry.parseStreamName(e.streamName);
    if (!stream) return;
    // Only decisions concern it: the data of other events (a funnel's records) is not even read.
    if (!PROCESS_MANAGER_EVENTS.has(assetEventType(this.registry.get(stream.kind).eventPrefix, e.type) ?? 'Created')) return;
    const decoded = this.registry.decodeEvent(stream.kind, e.type, e.data);
    const context: CallerContext = {
      accountId: stream.accountId,
      userId: String(e.metadata.actorId ?? 'system'),
      permissions: [],
      correlationId: String(e.metadata.correlationId ?? e.id),
    };
    if (decoded?.type === 'DuplicateDecided') {
      await this.duplicates.completeStored(context, { kind: stream.kind, id: stream.id }, decoded.data);
      return;
    }
    if (!decoded || (decoded.type !== 'Deleted' && decoded.type !== 'Archived' && decoded.type !== 'Unarchived') || !decoded.data.children) return;
    const loaded = await this.repository.load(stream.kind, stream.accountId, stream.id);
    if (!loaded.state.record) return;
    const done: ParentMutationDone = {
      parentKind: this.registry.get(stream.kind),
      accountId: stream.accountId,
      parentId: stream.id,
      parent: loaded.state.record,
      operation: OPERATION_OF[decoded.type],
      decision: decoded.data.children,
      decidedAt: e.position,
      context,
    };
    // A run of the command that failed (its request answered with the error) is done again here.
    await this.complete(done).catch(() => this.complete(done));
  }

  async onApplicationShutdown(): Promise<void> {
    await this.subscription?.stop();
  }
}
