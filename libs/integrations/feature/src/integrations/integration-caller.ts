import { CallerContext, ServiceError, holdsPermission } from '@funnel/contracts';

/** Reads take `assets:read`, changes `integrations:manage` (the gateway checks too). */
export type IntegrationAccess = 'read' | 'manage';

const PERMISSION: Record<IntegrationAccess, string> = { read: 'assets:read', manage: 'integrations:manage' };

export function integrationCaller(context: CallerContext | undefined, access: IntegrationAccess): CallerContext {
  if (!context?.accountId) throw ServiceError.unauthorized();
  if (!holdsPermission(context.permissions ?? [], PERMISSION[access])) throw ServiceError.forbidden(`${PERMISSION[access]} is required`);
  return context;
}
