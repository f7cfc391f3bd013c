import { CallerContext, IdentitySubjects, Principal, ServiceError } from '@funnel/contracts';
import { ServiceClient } from '@funnel/platform';

interface CacheEntry {
  principal: Principal;
  expiresAt: number;
}

const MAX_ENTRIES = 10_000;

/**
 * Checks API keys through the identity service, remembering answers briefly (cacheMs, at most 5 s)
 * so a disabled or deleted key stops working within that time. The cache is never logged or exported.
 */
export class ApiKeyAuthenticator {
  private readonly cache = new Map<string, CacheEntry>();

  constructor(
    private readonly client: ServiceClient,
    private readonly cacheMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  async authenticate(key: string, correlationId: string): Promise<Principal> {
    // Keyed by the key itself: it is in this process's memory for the request anyway, and a
    // digest per request costs more than the rest of the cache lookup.
    const cacheKey = key;
    const cached = this.cache.get(cacheKey);
    const now = this.now();
    if (cached && cached.expiresAt > now) return cached.principal;
    const context: CallerContext = { accountId: '', userId: '', permissions: [], correlationId };
    let principal: Principal;
    try {
      principal = await this.client.request<Principal>(IdentitySubjects.authenticateApiKey, { context, body: { key } });
    } catch (error) {
      this.cache.delete(cacheKey);
      throw error;
    }
    if (!principal?.accountId) throw ServiceError.unauthorized();
    if (this.cache.size >= MAX_ENTRIES) this.cache.clear();
    if (this.cacheMs > 0) this.cache.set(cacheKey, { principal, expiresAt: now + this.cacheMs });
    return principal;
  }
}
