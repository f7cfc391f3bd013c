import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { AuthenticateApiKeyRequest, IdentitySubjects, Principal, RpcRequest } from '@funnel/contracts';
import { IdentityService } from './identity.service';

@Controller()
export class IdentityMessageController {
  constructor(private readonly identity: IdentityService) {}

  @MessagePattern(IdentitySubjects.authenticateApiKey)
  authenticateApiKey(@Payload() request: RpcRequest<AuthenticateApiKeyRequest>): Promise<Principal> {
    return this.identity.authenticateApiKey(request?.body?.key);
  }
}
