import { Injectable } from '@nestjs/common';
import { CommandHandler, ICommandHandler, IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { AssetKindDescriptor, AssetOperation, AssetRequestBody, RpcRequest, ServiceError } from '@funnel/contracts';
import { AssetCommands } from './asset-commands';
import { AssetQueries } from './asset-queries';
import { AssetHistory } from './asset-history';

/** Operations are methods of the same name on AssetQueries (reads) or AssetCommands (writes). */
const QUERY_OPERATIONS = [
  'list',
  'findById',
  'findByIds',
  'findByStatus',
  'findByCategory',
  'findByType',
  'evaluate',
  'findByName',
  'findBySlug',
] as const satisfies readonly (AssetOperation & keyof AssetQueries)[];
/** Reads of the asset's event stream, served by AssetHistory. */
const HISTORY_OPERATION = 'history' satisfies AssetOperation & keyof AssetHistory;
const COMMAND_OPERATIONS = [
  'create',
  'update',
  'duplicate',
  'delete',
  'archive',
  'unarchive',
  'moveCategory',
  'secret',
  'rotateSecret',
  'test',
  'move',
  'validate',
  'simulate',
] as const satisfies readonly (AssetOperation & keyof AssetCommands)[];
type QueryOperation = (typeof QUERY_OPERATIONS)[number];
type CommandOperation = (typeof COMMAND_OPERATIONS)[number];

export function isQueryOperation(operation: AssetOperation): operation is QueryOperation | typeof HISTORY_OPERATION {
  return operation === HISTORY_OPERATION || (QUERY_OPERATIONS as readonly string[]).includes(operation);
}

function isCommandOperation(operation: AssetOperation): operation is CommandOperation {
  return (COMMAND_OPERATIONS as readonly string[]).includes(operation);
}

/** A write operation on some asset kind, as received from the gateway. */
export class RunAssetCommand {
  constructor(
    readonly kind: AssetKindDescriptor,
    readonly operation: AssetOperation,
    readonly request: RpcRequest<AssetRequestBody>,
  ) {}
}

/** A read operation on some asset kind, as received from the gateway. */
export class RunAssetQuery {
  constructor(
    readonly kind: AssetKindDescriptor,
    readonly operation: AssetOperation,
    readonly request: RpcRequest<AssetRequestBody>,
  ) {}
}

@CommandHandler(RunAssetCommand)
@Injectable()
export class RunAssetCommandHandler implements ICommandHandler<RunAssetCommand, unknown> {
  constructor(private readonly commands: AssetCommands) {}

  execute({ kind, operation, request: { context, body } }: RunAssetCommand): Promise<unknown> {
    if (!isCommandOperation(operation)) throw ServiceError.notFound('REQUEST.ROUTE_NOT_FOUND', `${operation} is not a command`);
    return this.commands[operation](kind, context, body);
  }
}

@QueryHandler(RunAssetQuery)
@Injectable()
export class RunAssetQueryHandler implements IQueryHandler<RunAssetQuery, unknown> {
  constructor(
    private readonly queries: AssetQueries,
    private readonly assetHistory: AssetHistory,
  ) {}

  execute({ kind, operation, request: { context, body } }: RunAssetQuery): Promise<unknown> {
    if (operation === HISTORY_OPERATION) return this.assetHistory.history(kind, context, body);
    if (!isQueryOperation(operation)) throw ServiceError.notFound('REQUEST.ROUTE_NOT_FOUND', `${operation} is not a query`);
    return this.queries[operation](kind, context, body);
  }
}
