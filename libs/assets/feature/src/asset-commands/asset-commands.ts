import { Injectable } from '@nestjs/common';
import { AssetKindDescriptor, AssetRequestBody, CallerContext } from '@funnel/contracts';
import { AssetRecord, FieldProblem } from '@funnel/assets-domain';
import { KindActionAssets } from '../asset-actions';
import { SaveCommand } from './save-command';
import { DuplicateCommand } from './duplicate-command';
import { ArchiveDeleteCommands } from './archive-delete-commands';
import { MoveCommands } from './move-commands';
import { ValidateCommand } from './validate-command';
import { KindActionCommands } from './kind-action-commands';

/**
 * Write side of every asset kind: validate, load the stream, decide, append with the expected
 * revision, then answer once the read model shows the write (read-your-writes). Each operation is
 * a method of the same name (see asset-operations), served by the use case that owns it.
 */
@Injectable()
export class AssetCommands implements KindActionAssets {
  constructor(
    private readonly saves: SaveCommand,
    private readonly duplicates: DuplicateCommand,
    private readonly archives: ArchiveDeleteCommands,
    private readonly moves: MoveCommands,
    private readonly validation: ValidateCommand,
    private readonly kindActions: KindActionCommands,
  ) {}

  create(kind: AssetKindDescriptor, context: CallerContext, request: AssetRequestBody): Promise<unknown> {
    return this.saves.create(kind, context, request);
  }

  update(kind: AssetKindDescriptor, context: CallerContext, request: AssetRequestBody): Promise<unknown> {
    return this.saves.update(kind, context, request);
  }

  duplicate(kind: AssetKindDescriptor, context: CallerContext, request: AssetRequestBody): Promise<{ id: string }> {
    return this.duplicates.duplicate(kind, context, request);
  }

  archive(kind: AssetKindDescriptor, context: CallerContext, request: AssetRequestBody): Promise<void> {
    return this.archives.archive(kind, context, request);
  }

  unarchive(kind: AssetKindDescriptor, context: CallerContext, request: AssetRequestBody): Promise<void> {
    return this.archives.unarchive(kind, context, request);
  }

  delete(kind: AssetKindDescriptor, context: CallerContext, request: AssetRequestBody): Promise<void> {
    return this.archives.delete(kind, context, request);
  }

  move(kind: AssetKindDescriptor, context: CallerContext, request: AssetRequestBody): Promise<void> {
    return this.moves.move(kind, context, request);
  }

  moveCategory(kind: AssetKindDescriptor, context: CallerContext, request: AssetRequestBody): Promise<void> {
    return this.moves.moveCategory(kind, context, request);
  }

  validate(
    kind: AssetKindDescriptor,
    context: CallerContext,
    request: AssetRequestBody,
  ): Promise<{ valid: boolean; errors: FieldProblem[]; warnings: FieldProblem[] }> {
    return this.validation.validate(kind, context, request);
  }

  secret(kind: AssetKindDescriptor, context: CallerContext, request: AssetRequestBody): Promise<unknown> {
    return this.kindActions.secret(kind, context, request);
  }

  rotateSecret(kind: AssetKindDescriptor, context: CallerContext, request: AssetRequestBody): Promise<unknown> {
    return this.kindActions.rotateSecret(kind, context, request);
  }

  test(kind: AssetKindDescriptor, context: CallerContext, request: AssetRequestBody): Promise<unknown> {
    return this.kindActions.test(kind, context, request);
  }

  simulate(kind: AssetKindDescriptor, context: CallerContext, request: AssetRequestBody): Promise<unknown> {
    return this.kindActions.simulate(kind, context, request);
  }

  find(kind: string, context: CallerContext, ids: readonly string[]): Promise<AssetRecord[]> {
    return this.kindActions.find(kind, context, ids);
  }

  checked(kind: AssetKindDescriptor, context: CallerContext, body: unknown): Promise<{ errors: FieldProblem[]; code: string; record: AssetRecord | null }> {
    return this.kindActions.checked(kind, context, body);
  }

  stored(kind: AssetKindDescriptor, context: CallerContext, id: string): Promise<AssetRecord> {
    return this.kindActions.stored(kind, context, id);
  }

  updateWith(kind: AssetKindDescriptor, context: CallerContext, id: string, change: (current: AssetRecord) => AssetRecord): Promise<AssetRecord> {
    return this.kindActions.updateWith(kind, context, id, change);
  }
}
