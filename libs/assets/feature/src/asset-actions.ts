import { Inject, Injectable } from '@nestjs/common';
import { AssetKindDescriptor, AssetRequestBody, CallerContext, ErrorCodes, ServiceError } from '@funnel/contracts';
import type { AssetRecord, FieldProblem } from '@funnel/assets-domain';
import { KIND_ACTIONS } from './assets.tokens';

/** The operations a kind may implement itself (I/O of its own: a signing secret in clear, a test delivery, a funnel's simulation). */
export type KindActionName = 'secret' | 'rotateSecret' | 'test' | 'simulate';

/** What an action may do with its kind's assets: through the pipeline, never by writing events itself. */
export interface KindActionAssets {
  /** The asset as stored (secrets encrypted), read from its stream: a 404 when it does not exist or is deleted. */
  stored(kind: AssetKindDescriptor, context: CallerContext, id: string): Promise<AssetRecord>;
  /**
   * Stores `change(current)` as an update of the asset (unique values claimed, appended at the revision
   * it was loaded at, answered once the read model shows it); a 404 when it does not exist or is deleted.
   * The change is the service's own: it is not run through the DTO or the kind's rules.
   */
  updateWith(kind: AssetKindDescriptor, context: CallerContext, id: string, change: (current: AssetRecord) => AssetRecord): Promise<AssetRecord>;
  /**
   * The live (not deleted) records of one kind among `ids` in the caller's account, as the read model
   * holds them (secrets encrypted); missing ones are left out.
   */
  find(kind: string, context: CallerContext, ids: readonly string[]): Promise<AssetRecord[]>;
  /**
   * An unsaved record (a request body) checked as the kind's validate/ checks it: its problems and the
   * code save's 400 would carry, or (no problems) the record as save would store it.
   */
  checked(kind: AssetKindDescriptor, context: CallerContext, body: unknown): Promise<{ errors: FieldProblem[]; code: string; record: AssetRecord | null }>;
}

export type KindAction = (kind: AssetKindDescriptor, context: CallerContext, request: AssetRequestBody, assets: KindActionAssets) => Promise<unknown>;

/** One kind's actions; registered under KIND_ACTIONS by kind name. */
export type KindActionSet = Partial<Record<KindActionName, KindAction>>;

/** Kind-owned actions, looked up by kind and operation: the generic pipeline has no branch per kind. */
@Injectable()
export class AssetActions {
  constructor(@Inject(KIND_ACTIONS) private readonly actions: Readonly<Record<string, KindActionSet>>) {}

  run(kind: AssetKindDescriptor, name: KindActionName, context: CallerContext, request: AssetRequestBody, assets: KindActionAssets): Promise<unknown> {
    const action = this.actions[kind.kind]?.[name];
    if (!action) throw ServiceError.notFound(ErrorCodes.ROUTE_NOT_FOUND, `${kind.kind} has no ${name} operation`);
    return action(kind, context, request, assets);
  }
}
