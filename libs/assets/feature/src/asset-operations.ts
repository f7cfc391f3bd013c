import { Injectable } from '@nestjs/common';
import { CommandHandler, ICommandHandler, IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { AssetKindDescriptor, AssetOperation, AssetRequestBody, RpcRequest, ServiceError } from '@funnel/contracts';
import { AssetCommands } from './asset-commands';
import { AssetQueries } from './asset-queries';

export const ASSET_QUERY_OPERATIONS: readonly AssetOperation[] = ['list', 'findById', 'findByIds', 'findByStatus', 'findByCategory'];

export function isQueryOperation(operation: AssetOperation): boolean {
  return ASSET_QUERY_OPERATIONS.includes(operation);
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
    switch (operation) {
      case 'create':
        return this.commands.create(kind, context, body);
      case 'update':
        return this.commands.update(kind, context, body);
      case 'duplicate':
        return this.commands.duplicate(kind, context, body);
      case 'delete':
        return this.commands.delete(kind, context, body);
      case 'archive':
        return this.commands.archive(kind, context, body);
      case 'unarchive':
        return this.commands.unarchive(kind, context, body);
      case 'moveCategory':
        return this.commands.moveCategory(kind, context, body);
      default:
        throw ServiceError.notFound('REQUEST.ROUTE_NOT_FOUND', `${operation} is not a command`);
    }
  }
}

@QueryHandler(RunAssetQuery)
@Injectable()
export class RunAssetQueryHandler implements IQueryHandler<RunAssetQuery, unknown> {
  constructor(private readonly queries: AssetQueries) {}

  execute({ kind, operation, request: { context, body } }: RunAssetQuery): Promise<unknown> {
    switch (operation) {
      case 'list':
        return this.queries.list(kind, context, body);
      case 'findById':
        return this.queries.findById(kind, context, body);
      case 'findByIds':
        return this.queries.findByIds(kind, context, body);
      case 'findByStatus':
        return this.queries.findByStatus(kind, context, body);
      case 'findByCategory':
        return this.queries.findByCategory(kind, context, body);
      default:
        throw ServiceError.notFound('REQUEST.ROUTE_NOT_FOUND', `${operation} is not a query`);
    }
  }
}
