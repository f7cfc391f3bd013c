import { Logger } from '@nestjs/common';
import { API_KEY_PATTERN, Principal, ServiceError } from '@funnel/contracts';
import { EventStore } from '@funnel/eventstore';
import { ReadStore } from '@funnel/readstore';
import { apiKeyDigest, apiKeyPrincipal } from '@funnel/identity-domain';
import { ApiKeyDocument, apiKeyUsageCollection, apiKeysCollection } from '../identity-read-model';
import { apiKeyIdByDigest, loadApiKey } from './api-key-stream';

/** A key's last-used time is written at most this often per key (and process). */
export const API_KEY_USAGE_INTERVAL_MS = 60_000;
const USAGE_MEMORY_LIMIT = 10_000;

/**
 * Who an API key authenticates as. The read model answers; a key it does not know (yet) is checked
 * against its stream, found through the digest's claim (`apikeydigest-<digest>`), so a key issued by another process,
 * such as the CLI, works before this process's projection has caught up. Disabled and deleted keys
 * are refused. Each success notes the key's last use, at most once a minute per key, in a read-model
 * collection of its own (no event per use).
 */
export class ApiKeyAuthentication {
  private readonly logger = new Logger('ApiKeyAuthentication');
  private readonly keys: ReturnType<typeof apiKeysCollection>;
  private readonly usage: ReturnType<typeof apiKeyUsageCollection>;
  /** keyId -> when this process last wrote its usage (ms). */
  private readonly usageWrittenAt = new Map<string, number>();

  constructor(
    private readonly eventStore: EventStore,
    readStore: ReadStore,
    private readonly now: () => number = Date.now,
  ) {
    this.keys = apiKeysCollection(readStore);
    this.usage = apiKeyUsageCollection(readStore);
  }

  async authenticate(key: unknown): Promise<Principal> {
    if (typeof key !== 'string' || !API_KEY_PATTERN.test(key)) throw ServiceError.unauthorized();
    const digest = apiKeyDigest(key);
    const doc = await this.keys.findOne({ _id: digest });
    const principal = doc
      ? principalOf(doc)
      : apiKeyPrincipal((await loadApiKey(this.eventStore, await apiKeyIdByDigest(this.eventStore, digest))).state, digest);
    if (!principal) throw ServiceError.unauthorized();
    await this.recordUse(principal.keyId!, principal.accountId);
    return principal;
  }

  /** Never fails the authentication: a lost usage write only makes "last used" older. */
  private async recordUse(keyId: string, accountId: string): Promise<void> {
    const now = this.now();
    const written = this.usageWrittenAt.get(keyId);
    if (written !== undefined && now - written < API_KEY_USAGE_INTERVAL_MS) return;
    if (this.usageWrittenAt.size >= USAGE_MEMORY_LIMIT) this.usageWrittenAt.clear();
    this.usageWrittenAt.set(keyId, now);
    try {
      await this.usage.bulkWrite([
        { updateOne: { filter: { _id: keyId }, update: { $set: { accountId, lastUsedAt: new Date(now).toISOString() } }, upsert: true } },
      ]);
    } catch (error) {
      this.usageWrittenAt.delete(keyId);
      this.logger.warn(`could not record the use of API key ${keyId}: ${(error as Error).message}`);
    }
  }
}

function principalOf(doc: ApiKeyDocument): Principal | null {
  if (!doc.enabled || doc.deleted === true) return null;
  return { accountId: doc.accountId, userId: doc.userId, permissions: [...doc.permissions], keyId: doc.keyId };
}
