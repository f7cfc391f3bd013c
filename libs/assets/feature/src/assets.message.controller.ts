import { Controller, Type, UseFilters } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { RpcErrorFilter } from '@funnel/platform';
import { AssetKindDescriptor, AssetOperation, AssetReply, AssetRequestBody, RpcRequest, ServiceError, assetSubject, servedOperations } from '@funnel/contracts';
import { RunAssetCommand, RunAssetQuery, isQueryOperation } from './asset-operations';
import { AssetAnswer } from './asset-answer';

export type { AssetReply };

/**
 * Builds the message controller of the asset service from the registry: one handler per kind and
 * operation on subject `assets.<kind>.<operation>`, each dispatching to the CQRS buses.
 */
export function createAssetsMessageController(kinds: readonly AssetKindDescriptor[]): Type<unknown> {
  @Controller()
  @UseFilters(new RpcErrorFilter())
  class AssetsMessageController {
    constructor(
      readonly commandBus: CommandBus,
      readonly queryBus: QueryBus,
    ) {}

    async dispatch(kind: AssetKindDescriptor, operation: AssetOperation, request: RpcRequest<AssetRequestBody>): Promise<AssetReply> {
      if (!request?.context?.accountId) throw ServiceError.unauthorized();
      const normalized: RpcRequest<AssetRequestBody> = {
        context: request.context,
        body: { query: request.body?.query ?? {}, body: request.body?.body, headers: request.body?.headers },
      };
      const result = isQueryOperation(operation)
        ? await this.queryBus.execute(new RunAssetQuery(kind, operation, normalized))
        : await this.commandBus.execute(new RunAssetCommand(kind, operation, normalized));
      if (!(result instanceof AssetAnswer)) return { result };
      const reply: AssetReply = { result: result.result };
      if (result.revision !== undefined) reply.revision = result.revision;
      if (result.nextCursor !== undefined) reply.nextCursor = result.nextCursor;
      return reply;
    }
  }

  const prototype = AssetsMessageController.prototype as unknown as Record<string, unknown>;
  for (const kind of kinds) {
    for (const operation of servedOperations(kind)) {
      const method = `${kind.kind}_${operation}`;
      prototype[method] = function (this: AssetsMessageController, request: RpcRequest<AssetRequestBody>) {
        return this.dispatch(kind, operation, request);
      };
      const descriptor = Object.getOwnPropertyDescriptor(prototype, method)!;
      MessagePattern(assetSubject(kind.kind, operation))(prototype, method, descriptor);
      Payload()(prototype, method, 0);
    }
  }
  return AssetsMessageController;
}
