import { Injectable } from '@nestjs/common';
import { AssetKindDescriptor, AssetRequestBody, CallerContext } from '@funnel/contracts';
import { AssetRecord, FieldProblem } from '@funnel/assets-domain';
import { AssetActions, KindActionAssets } from '../asset-actions';
import { AssetQueries } from '../asset-queries';
import { AssetWrites } from './asset-writes';
import { ValidateCommand } from './validate-command';

/** A kind's own actions (a webhook config's secret, its rotation, its test delivery), given the assets they may read and update. */
@Injectable()
export class KindActionCommands implements KindActionAssets {
  constructor(
    private readonly actions: AssetActions,
    private readonly writes: AssetWrites,
    private readonly queries: AssetQueries,
    private readonly validation: ValidateCommand,
  ) {}

  /** A kind's own action (a webhook config's signing secret, its test delivery). */
  async secret(kind: AssetKindDescriptor, context: CallerContext, request: AssetRequestBody): Promise<unknown> {
    return this.actions.run(kind, 'secret', context, request, this);
  }

  async rotateSecret(kind: AssetKindDescriptor, context: CallerContext, request: AssetRequestBody): Promise<unknown> {
    return this.actions.run(kind, 'rotateSecret', context, request, this);
  }

  async test(kind: AssetKindDescriptor, context: CallerContext, request: AssetRequestBody): Promise<unknown> {
    return this.actions.run(kind, 'test', context, request, this);
  }

  /** A kind's dry run for a visitor (a funnel's simulation); reads only. */
  async simulate(kind: AssetKindDescriptor, context: CallerContext, request: AssetRequestBody): Promise<unknown> {
    return this.actions.run(kind, 'simulate', context, request, this);
  }

  /** For kind actions (see KindActionAssets): live records by ids, from the read model. */
  find(kind: string, context: CallerContext, ids: readonly string[]): Promise<AssetRecord[]> {
    return this.queries.currentMany(kind, context.accountId, ids);
  }

  /** For kind actions (see KindActionAssets): an unsaved record checked as validate/ checks it. */
  checked(kind: AssetKindDescriptor, context: CallerContext, body: unknown): Promise<{ errors: FieldProblem[]; code: string; record: AssetRecord | null }> {
    return this.validation.checked(kind, context, body);
  }

  /** For kind actions (see KindActionAssets): the asset as stored, from its stream. */
  async stored(kind: AssetKindDescriptor, context: CallerContext, id: string): Promise<AssetRecord> {
    return (await this.writes.loadLive(kind, context, id)).state.record!;
  }

  /** For kind actions (see KindActionAssets): an update by the service's own change of the stored record. */
  async updateWith(kind: AssetKindDescriptor, context: CallerContext, id: string, change: (current: AssetRecord) => AssetRecord): Promise<AssetRecord> {
    const loaded = await this.writes.loadLive(kind, context, id);
    const record = change(loaded.state.record!);
    await this.writes.appendUpdate(kind, context, id, loaded, record);
    return record;
  }
}
