import { OnModuleDestroy } from '@nestjs/common';
import { ApiKeysRevokedEvent, CallerContext, IdentityEvents, IdentitySubjects, Principal, ServiceError } from '@funnel/contracts';
import { ServiceClient } from '@funnel/platform';

interface CacheEntry {
  principal: Principal;
  expiresAt: number;
}

const MAX_ENTRIES = 10_000;

/** How long a key seen valid counts as known (see knownValid), and how many such keys are remembered. */
export const KNOWN_VALID_MS = 24 * 3600_000;
const MAX_KNOWN_VALID = 100_000;

/**
 * Checks API keys through the identity service, remembering answers briefly (cacheMs, at most 5 s).
 * When identity deletes, disables or changes a key it publishes IdentityEvents.apiKeysRevoked
 * before it replies, and this cache forgets the key at once; the expiry only bounds what a lost
 * event can cost. The cache is never logged or exported.
 */
export class ApiKeyAuthenticator implements OnModuleDestroy {
  private readonly cache = new Map<string, CacheEntry>();
  /** Keys identity answered valid, with when and their key id, oldest first (in memory only, never logged). */
  private readonly seenValid = new Map<string, { at: number; keyId?: string }>();
  /** Counts revocation events: an answer that was under way while one arrived may be stale, so it is not cached. */
  private revocations = 0;
  private readonly unsubscribe: () => void;

  constructor(
    private readonly client: ServiceClient,
    private readonly cacheMs: number,
    private readonly now: () => number = Date.now,
  ) {
    this.unsubscribe = client.subscribe(IdentityEvents.apiKeysRevoked, (data) => this.revoke(data as ApiKeysRevokedEvent));
  }

  async authenticate(key: string, correlationId: string): Promise<Principal> {
    // Keyed by the key itself: it is in this process's memory for the request anyway, and a
    // digest per request costs more than the rest of the cache lookup.
    const cacheKey = key;
    const cached = this.cache.get(cacheKey);
    const now = this.now();
    if (cached && cached.expiresAt > now) return cached.principal;
    const context: CallerContext = { accountId: '', userId: '', permissions: [], correlationId };
    const revocationsBefore = this.revocations;
    let principal: Principal;
    try {
      principal = await this.client.request<Principal>(IdentitySubjects.authenticateApiKey, { context, body: { key } });
    } catch (error) {
      this.cache.delete(cacheKey);
      throw error;
    }
    if (!principal?.accountId) throw ServiceError.unauthorized();
    this.seenValid.delete(key);
    if (this.seenValid.size >= MAX_KNOWN_VALID) this.seenValid.delete(this.seenValid.keys().next().value!);
    this.seenValid.set(key, { at: now, keyId: principal.keyId });
    if (this.cache.size >= MAX_ENTRIES) this.cache.clear();
    if (this.cacheMs > 0 && this.revocations === revocationsBefore) this.cache.set(cacheKey, { principal, expiresAt: now + this.cacheMs });
    return principal;
  }

  /**
   * Whether identity answered this key valid in the last KNOWN_VALID_MS (and it was not revoked
   * since): such a key is checked even while its address or prefix is blocked for failures.
   */
  knownValid(key: string): boolean {
    const seen = this.seenValid.get(key);
    return seen !== undefined && this.now() - seen.at < KNOWN_VALID_MS;
  }

  /** Forgets every cached verification of these keys (by key id: the event never carries keys). */
  revoke(event: ApiKeysRevokedEvent | undefined): void {
    this.revocations++;
    const keyIds = new Set(Array.isArray(event?.keyIds) ? event.keyIds : []);
    if (keyIds.size === 0) return;
    for (const [cacheKey, entry] of this.cache) {
      if (entry.principal.keyId !== undefined && keyIds.has(entry.principal.keyId)) this.cache.delete(cacheKey);
    }
    for (const [key, seen] of this.seenValid) if (seen.keyId !== undefined && keyIds.has(seen.keyId)) this.seenValid.delete(key);
  }

  onModuleDestroy(): void {
    this.unsubscribe();
  }
}
