import { Controller, UseFilters } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { RpcErrorFilter } from '@funnel/platform';
import { IdentityRequestBody, IdentitySubjects, RpcRequest } from '@funnel/contracts';
import { UserSettings } from '@funnel/identity-domain';
import { UserSettingsService } from './user-settings.service';

/** GET /v1/usersettings/, POST /v1/usersettings/save/, DELETE /v1/usersettings/delete/. Saves and deletes answer no body. */
@Controller()
@UseFilters(new RpcErrorFilter())
export class UserSettingsMessageController {
  constructor(private readonly settings: UserSettingsService) {}

  @MessagePattern(IdentitySubjects.userSettingsGet)
  get(@Payload() request: RpcRequest<IdentityRequestBody>): Promise<UserSettings> {
    return this.settings.get(request?.context);
  }

  @MessagePattern(IdentitySubjects.userSettingsSave)
  save(@Payload() request: RpcRequest<IdentityRequestBody>): Promise<void> {
    return this.settings.save(request?.context, request?.body?.body);
  }

  @MessagePattern(IdentitySubjects.userSettingsDelete)
  delete(@Payload() request: RpcRequest<IdentityRequestBody>): Promise<void> {
    return this.settings.delete(request?.context);
  }
}
