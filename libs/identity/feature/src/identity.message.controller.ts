import { Controller, UseFilters } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { RpcErrorFilter } from '@funnel/platform';
import { AuthenticateApiKeyRequest, IdentitySubjects, Principal, RpcRequest } from '@funnel/contracts';
import { IdentityService } from './identity.service';

@Controller()
@UseFilters(new RpcErrorFilter())
export class IdentityMessageController {
  constructor(private readonly identity: IdentityService) {}

  @MessagePattern(IdentitySubjects.authenticateApiKey)
  authenticateApiKey(@Payload() request: RpcRequest<AuthenticateApiKeyRequest>): Promise<Principal> {
    return this.identity.authenticateApiKey(request?.body?.key);
  }
}
