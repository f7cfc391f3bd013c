import { CallerContext, ServiceError } from '@funnel/contracts';

/** The caller of a billing request: an authenticated account holding `billing:manage` (the gateway checks too). */
export function billingCaller(context: CallerContext | undefined): CallerContext {
  if (!context?.accountId) throw ServiceError.unauthorized();
  if (!context.permissions?.includes('billing:manage')) throw ServiceError.forbidden('billing:manage is required');
  return context;
}
