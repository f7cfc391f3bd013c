import { Inject, Injectable } from '@nestjs/common';
import { AssetKindDescriptor, AssetRequestBody, CallerContext, ErrorCodes, ServiceError } from '@funnel/contracts';
import { KIND_ACTIONS } from './assets.tokens';

/** The operations a kind may implement itself (I/O of its own: a signing secret in clear, a test delivery). */
export type KindActionName = 'secret' | 'rotateSecret' | 'test';

export type KindAction = (kind: AssetKindDescriptor, context: CallerContext, request: AssetRequestBody) => Promise<unknown>;

/** One kind's actions; registered under KIND_ACTIONS by kind name. */
export type KindActionSet = Partial<Record<KindActionName, KindAction>>;

/** Kind-owned actions, looked up by kind and operation: the generic pipeline has no branch per kind. */
@Injectable()
export class AssetActions {
  constructor(@Inject(KIND_ACTIONS) private readonly actions: Readonly<Record<string, KindActionSet>>) {}

  run(kind: AssetKindDescriptor, name: KindActionName, context: CallerContext, request: AssetRequestBody): Promise<unknown> {
    const action = this.actions[kind.kind]?.[name];
    if (!action) throw ServiceError.notFound(ErrorCodes.ROUTE_NOT_FOUND, `${kind.kind} has no ${name} operation`);
    return action(kind, context, request);
  }
}
