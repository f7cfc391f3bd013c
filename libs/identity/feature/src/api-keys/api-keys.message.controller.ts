import { Controller, UseFilters } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { RpcErrorFilter } from '@funnel/platform';
import { ApiKeyInfo, GeneratedApiKey, IdentityRequestBody, IdentitySubjects, RpcRequest } from '@funnel/contracts';
import { ApiKeysService } from './api-keys.service';

/**
 * GET /v1/apikeys/list/ (a bare array, as asset lists), POST /v1/apikeys/generate/ (the one answer
 * that holds the key), PUT /v1/apikeys/update/ (the updated entry), DELETE /v1/apikeys/delete/ (no body).
 */
@Controller()
@UseFilters(new RpcErrorFilter())
export class ApiKeysMessageController {
  constructor(private readonly apiKeys: ApiKeysService) {}

  @MessagePattern(IdentitySubjects.apiKeysList)
  list(@Payload() request: RpcRequest<IdentityRequestBody>): Promise<ApiKeyInfo[]> {
    return this.apiKeys.list(request?.context);
  }

  @MessagePattern(IdentitySubjects.apiKeysGenerate)
  generate(@Payload() request: RpcRequest<IdentityRequestBody>): Promise<GeneratedApiKey> {
    return this.apiKeys.generate(request?.context, request?.body?.body);
  }

  @MessagePattern(IdentitySubjects.apiKeysUpdate)
  update(@Payload() request: RpcRequest<IdentityRequestBody>): Promise<ApiKeyInfo> {
    return this.apiKeys.update(request?.context, request?.body?.body);
  }

  @MessagePattern(IdentitySubjects.apiKeysDelete)
  delete(@Payload() request: RpcRequest<IdentityRequestBody>): Promise<void> {
    return this.apiKeys.delete(request?.context, request?.body?.body);
  }
}
