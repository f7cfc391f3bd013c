import { FastifyRequest } from 'fastify';
import { Principal, ServiceError } from '@funnel/contracts';
import { ApiKeyAuthenticator } from './api-key-authenticator';

/** The API key of a request: `key` query parameter or `X-API-Key` header (legacy schemes, both accepted). */
export function apiKeyOf(request: FastifyRequest): string | undefined {
  const header = request.headers['x-api-key'];
  if (typeof header === 'string' && header !== '') return header;
  const query = request.query as Record<string, unknown> | undefined;
  const key = query?.key;
  if (typeof key === 'string' && key !== '') return key;
  if (Array.isArray(key) && typeof key[0] === 'string') return key[0];
  return undefined;
}

export async function authenticate(request: FastifyRequest, apiKeys: ApiKeyAuthenticator): Promise<Principal> {
  const key = apiKeyOf(request);
  if (!key) throw ServiceError.unauthorized('not authorized: send an API key (key query parameter or X-API-Key header)');
  return apiKeys.authenticate(key, String(request.id));
}

export function requirePermission(principal: Principal, permission: string): void {
  if (!principal.permissions.includes(permission)) throw ServiceError.forbidden(`this credential lacks the ${permission} permission`);
}
