import { Controller, UseFilters } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { RpcErrorFilter } from '@funnel/platform';
import { IdentityRequestBody, IntegrationSubjects, RpcRequest } from '@funnel/contracts';
import { integrationCaller } from './integrations/integration-caller';
import { IntegrationsService } from './integrations/integrations.service';
import { IntegrationSync } from './jobs/integration-sync.service';

type IntegrationRequest = RpcRequest<IdentityRequestBody>;

const params = (request: IntegrationRequest) => request?.body?.params ?? {};

/** The /v1/integrations routes (standard error body): reads with `assets:read`, changes with `integrations:manage`. */
@Controller()
@UseFilters(new RpcErrorFilter())
export class IntegrationsMessageController {
  constructor(private readonly integrations: IntegrationsService) {}

  @MessagePattern(IntegrationSubjects.list)
  list(@Payload() request: IntegrationRequest) {
    return this.integrations.list(integrationCaller(request?.context, 'read'));
  }

  @MessagePattern(IntegrationSubjects.capabilities)
  capabilities(@Payload() request: IntegrationRequest) {
    integrationCaller(request?.context, 'read');
    return this.integrations.capabilities();
  }

  @MessagePattern(IntegrationSubjects.get)
  get(@Payload() request: IntegrationRequest) {
    return this.integrations.get(integrationCaller(request?.context, 'read'), params(request).idIntegration);
  }

  @MessagePattern(IntegrationSubjects.rename)
  rename(@Payload() request: IntegrationRequest) {
    return this.integrations.rename(integrationCaller(request?.context, 'manage'), params(request).idIntegration, request.body?.body);
  }

  @MessagePattern(IntegrationSubjects.delete)
  delete(@Payload() request: IntegrationRequest) {
    return this.integrations.delete(integrationCaller(request?.context, 'manage'), params(request).idIntegration);
  }

  @MessagePattern(IntegrationSubjects.oauthStart)
  start(@Payload() request: IntegrationRequest) {
    return this.integrations.start(integrationCaller(request?.context, 'manage'), request.body?.body);
  }

  @MessagePattern(IntegrationSubjects.oauthComplete)
  complete(@Payload() request: IntegrationRequest) {
    return this.integrations.complete(integrationCaller(request?.context, 'manage'), request.body?.body);
  }

  @MessagePattern(IntegrationSubjects.reauthorize)
  reauthorize(@Payload() request: IntegrationRequest) {
    return this.integrations.reauthorize(integrationCaller(request?.context, 'manage'), params(request).idIntegration);
  }

  @MessagePattern(IntegrationSubjects.adAccounts)
  adAccounts(@Payload() request: IntegrationRequest) {
    return this.integrations.adAccounts(integrationCaller(request?.context, 'read'), params(request).idIntegration);
  }

  @MessagePattern(IntegrationSubjects.adAccountsRefresh)
  refreshAdAccounts(@Payload() request: IntegrationRequest) {
    return this.integrations.refreshAdAccounts(integrationCaller(request?.context, 'manage'), params(request).idIntegration);
  }

  @MessagePattern(IntegrationSubjects.adAccountLink)
  linkAdAccount(@Payload() request: IntegrationRequest) {
    const { idIntegration, adAccountId } = params(request);
    return this.integrations.linkAdAccount(integrationCaller(request?.context, 'manage'), idIntegration, adAccountId, request.body?.body);
  }

  @MessagePattern(IntegrationSubjects.goals)
  goals(@Payload() request: IntegrationRequest) {
    const { idIntegration, adAccountId } = params(request);
    return this.integrations.goals(integrationCaller(request?.context, 'read'), idIntegration, adAccountId);
  }

  @MessagePattern(IntegrationSubjects.goalLink)
  linkGoal(@Payload() request: IntegrationRequest) {
    const { idIntegration, adAccountId, goalId } = params(request);
    return this.integrations.linkGoal(integrationCaller(request?.context, 'manage'), idIntegration, adAccountId, goalId, request.body?.body);
  }
}

/** POST /integrations/:id/sync (`integrations:manage`, 202 with the job id) and GET /integrations/sync/:jobId (`assets:read`). */
@Controller()
@UseFilters(new RpcErrorFilter())
export class IntegrationSyncMessageController {
  constructor(private readonly sync: IntegrationSync) {}

  @MessagePattern(IntegrationSubjects.sync)
  request(@Payload() request: IntegrationRequest) {
    return this.sync.request(integrationCaller(request?.context, 'manage'), params(request).idIntegration, request.body?.body);
  }

  @MessagePattern(IntegrationSubjects.syncStatus)
  status(@Payload() request: IntegrationRequest) {
    return this.sync.status(integrationCaller(request?.context, 'read'), params(request).jobId);
  }
}
