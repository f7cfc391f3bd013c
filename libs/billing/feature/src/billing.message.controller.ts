import { Controller, UseFilters } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { RpcErrorFilter } from '@funnel/platform';
import { BILLING_EDGE_DOMAINS_SUBJECT, BillingSubjects, IdentityRequestBody, RpcRequest } from '@funnel/contracts';
import { billingCaller } from './billing-caller';
import { DomainsService } from './domains/domains.service';
import { SubscriptionService } from './subscription/subscription.service';
import { IdempotentRequests } from './idempotency/idempotent-requests';

type BillingRequest = RpcRequest<IdentityRequestBody>;

const idempotencyKeyOf = (request: BillingRequest) => request?.body?.headers?.['idempotency-key'];

/**
 * The /v1/billing routes. Mutations (domain create and delete, add-on quantity and switch) honour
 * an `Idempotency-Key` header; every answer has the billing body shape.
 */
@Controller()
@UseFilters(new RpcErrorFilter())
export class BillingMessageController {
  constructor(
    private readonly domains: DomainsService,
    private readonly subscription: SubscriptionService,
    private readonly idempotency: IdempotentRequests,
  ) {}

  @MessagePattern(BillingSubjects.domainsList)
  async listDomains(@Payload() request: BillingRequest) {
    return this.domains.list(billingCaller(request?.context));
  }

  /** Internal (the tracking edge only; the gateway may not send here): every account's live domains, paged. */
  @MessagePattern(BILLING_EDGE_DOMAINS_SUBJECT)
  async edgeDomains(@Payload() request: RpcRequest<unknown>) {
    return this.domains.edgeDomains(request?.body);
  }

  @MessagePattern(BillingSubjects.domainsCreate)
  async createDomain(@Payload() request: BillingRequest) {
    const context = billingCaller(request?.context);
    return this.once(request, BillingSubjects.domainsCreate, () => this.domains.create(context, request.body?.body));
  }

  @MessagePattern(BillingSubjects.domainsGet)
  async getDomain(@Payload() request: BillingRequest) {
    return this.domains.get(billingCaller(request?.context), request?.body?.params?.domain);
  }

  @MessagePattern(BillingSubjects.domainsDelete)
  async deleteDomain(@Payload() request: BillingRequest) {
    const context = billingCaller(request?.context);
    return this.once(request, BillingSubjects.domainsDelete, () => this.domains.delete(context, request.body?.params?.domain));
  }

  @MessagePattern(BillingSubjects.domainsCheck)
  async checkDomain(@Payload() request: BillingRequest) {
    return this.domains.check(billingCaller(request?.context), request?.body?.body);
  }

  @MessagePattern(BillingSubjects.domainsRefresh)
  async refreshDomain(@Payload() request: BillingRequest) {
    return this.domains.refresh(billingCaller(request?.context), request?.body?.params?.domain, request?.body?.body);
  }

  @MessagePattern(BillingSubjects.addonsQuantity)
  async changeQuantity(@Payload() request: BillingRequest) {
    const context = billingCaller(request?.context);
    const key = idempotencyKeyOf(request);
    return this.once(request, BillingSubjects.addonsQuantity, () => this.subscription.changeQuantity(context, request.body?.body, key));
  }

  @MessagePattern(BillingSubjects.addonsSwitch)
  async switchAddon(@Payload() request: BillingRequest) {
    const context = billingCaller(request?.context);
    const key = idempotencyKeyOf(request);
    return this.once(request, BillingSubjects.addonsSwitch, () => this.subscription.switchAddon(context, request.body?.body, key));
  }

  @MessagePattern(BillingSubjects.subscriptionGet)
  async getSubscription(@Payload() request: BillingRequest) {
    return this.subscription.get(billingCaller(request?.context));
  }

  @MessagePattern(BillingSubjects.invoicesList)
  async listInvoices(@Payload() request: BillingRequest) {
    return this.subscription.invoices(billingCaller(request?.context));
  }

  private once<T>(request: BillingRequest, subject: string, work: () => Promise<T>): Promise<T> {
    return this.idempotency.run(request.context, idempotencyKeyOf(request), { subject, params: request.body?.params, body: request.body?.body }, work);
  }
}
