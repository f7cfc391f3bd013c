import { Inject, Injectable, Logger } from '@nestjs/common';
import {
  ApiKeyInfo,
  ApiKeysRevokedEvent,
  CallerContext,
  DeleteApiKeysDto,
  GenerateApiKeyDto,
  GeneratedApiKey,
  IdentityEvents,
  ServiceError,
  UpdateApiKeyDto,
  validateBody,
} from '@funnel/contracts';
import { EVENT_STORE, EventStore, GlobalPosition, WrongExpectedRevisionError, comparePositions } from '@funnel/eventstore';
import { READ_STORE, ReadStore } from '@funnel/readstore';
import { EVENT_PUBLISHER, EventPublisher } from '@funnel/platform';
import {
  API_KEY_EVENT_SCHEMA_VERSION,
  API_KEY_REVOKING_EVENTS,
  ApiKeyCommand,
  ApiKeyEvent,
  apiKeyDigest,
  apiKeyPrefix,
  decideApiKey,
  evolveApiKey,
  generateApiKey,
  initialApiKeyState,
  IdentityStreams,
  newApiKeyId,
} from '@funnel/identity-domain';
import { IdentityProjector } from '../identity-projector';
import { apiKeyUsageCollection, apiKeysCollection } from '../identity-read-model';
import { loadApiKey, reserveApiKeyDigest } from './api-key-stream';

/** The caller of a key-management request, as the gateway set it (the route requires keys:manage). */
function manager(context: CallerContext | undefined): CallerContext {
  if (!context?.accountId || !context.userId) throw ServiceError.unauthorized();
  if (!context.permissions?.includes('keys:manage')) throw ServiceError.forbidden('this credential lacks the keys:manage permission');
  return context;
}

/**
 * Integration API keys: generate (the key is answered once and stored only as a SHA-256 digest),
 * list, update, delete (authentication: ApiKeyAuthentication). Each key is one event stream
 * (`apikey-<keyId>`); writes append with the expected revision and answer once the read model shows
 * them. A write that can make a cached verification wrong (delete, disable, permission change)
 * publishes IdentityEvents.apiKeysRevoked before it answers, so every gateway forgets the key first.
 */
@Injectable()
export class ApiKeysService {
  private readonly logger = new Logger(ApiKeysService.name);
  private readonly keys = apiKeysCollection(this.readStore);
  private readonly usage = apiKeyUsageCollection(this.readStore);

  constructor(
    @Inject(EVENT_STORE) private readonly eventStore: EventStore,
    @Inject(READ_STORE) private readonly readStore: ReadStore,
    private readonly projector: IdentityProjector,
    @Inject(EVENT_PUBLISHER) private readonly events: EventPublisher,
  ) {}

  /** The account's keys (not deleted), oldest first. Never the key or its digest. */
  async list(context: CallerContext | undefined): Promise<ApiKeyInfo[]> {
    const { accountId } = manager(context);
    const docs = await this.keys.find({ accountId, deleted: { $ne: true } }, { sort: { createdAt: 1, keyId: 1 } });
    const lastUsed = await this.lastUsed(docs.map((d) => d.keyId));
    return docs.map((d) => ({
      id: d.keyId,
      name: d.name,
      prefix: d.prefix,
      permissions: [...d.permissions],
      enabled: d.enabled,
      createdAt: d.createdAt ?? '',
      lastUsedAt: lastUsed.get(d.keyId) ?? null,
      userId: d.userId,
    }));
  }

  /** A new key for the caller's user with at most the caller's permissions. The only answer that holds the key. */
  async generate(context: CallerContext | undefined, body: unknown): Promise<GeneratedApiKey> {
    const caller = manager(context);
    const request = validateBody(GenerateApiKeyDto, body);
    const key = generateApiKey();
    const digest = apiKeyDigest(key);
    const keyId = newApiKeyId();
    const command: ApiKeyCommand = {
      type: 'IssueApiKey',
      keyId,
      accountId: caller.accountId,
      userId: caller.userId,
      name: request.name,
      digest,
      prefix: apiKeyPrefix(key),
      permissions: request.permissions,
      grantor: caller.permissions,
    };
    const events = decideApiKey(command, initialApiKeyState());
    const createdAt = new Date().toISOString();
    // The digest's claim first: it is how authentication finds the stream of a key the read model does not know yet.
    await reserveApiKeyDigest(this.eventStore, digest, keyId, this.metadata(caller, createdAt));
    const { position } = await this.append(caller, keyId, events, -1, createdAt);
    await this.projector.waitFor(position);
    const issued = evolveApiKey(initialApiKeyState(), events[0]).key!;
    return {
      id: keyId,
      key,
      name: issued.name,
      prefix: issued.prefix,
      permissions: issued.permissions,
      enabled: true,
      createdAt,
      lastUsedAt: null,
      userId: issued.userId,
    };
  }

  /** Renames, changes permissions (never beyond the caller's), disables or enables; answers the key as lists show it. */
  async update(context: CallerContext | undefined, body: unknown): Promise<ApiKeyInfo> {
    const caller = manager(context);
    const request = validateBody(UpdateApiKeyDto, body);
    const loaded = await loadApiKey(this.eventStore, request.id);
    const command: ApiKeyCommand = {
      type: 'UpdateApiKey',
      accountId: caller.accountId,
      name: request.name,
      permissions: request.permissions,
      enabled: request.enabled,
      grantor: caller.permissions,
    };
    const events = decideApiKey(command, loaded.state);
    let state = loaded.state;
    if (events.length) {
      const { position } = await this.append(caller, request.id, events, loaded.revision, new Date().toISOString());
      state = events.reduce(evolveApiKey, state);
      await this.settle(position, events.some((e) => API_KEY_REVOKING_EVENTS.includes(e.type)) ? [request.id] : []);
    }
    const key = state.key!;
    const lastUsed = await this.lastUsed([key.keyId]);
    return {
      id: key.keyId,
      name: key.name,
      prefix: key.prefix,
      permissions: [...key.permissions],
      enabled: key.enabled,
      createdAt: loaded.createdAt,
      lastUsedAt: lastUsed.get(key.keyId) ?? null,
      userId: key.userId,
    };
  }

  /** Deletes every listed key of the caller's account; any unknown id makes it a 404 with nothing deleted. */
  async delete(context: CallerContext | undefined, body: unknown): Promise<void> {
    const caller = manager(context);
    const request = validateBody(DeleteApiKeysDto, body);
    const ids = [...new Set(request.entries)];
    // Decide every entry before writing any.
    const decided = await Promise.all(
      ids.map(async (id) => {
        const loaded = await loadApiKey(this.eventStore, id);
        return { id, loaded, events: decideApiKey({ type: 'DeleteApiKey', accountId: caller.accountId, grantor: caller.permissions }, loaded.state) };
      }),
    );
    const deleted: string[] = [];
    let last: GlobalPosition | undefined;
    try {
      const occurredAt = new Date().toISOString();
      for (const { id, loaded, events } of decided) {
        const { position } = await this.append(caller, id, events, loaded.revision, occurredAt);
        deleted.push(id);
        if (!last || comparePositions(position, last) > 0) last = position;
      }
    } finally {
      // Even when a later entry lost a race (409), the keys deleted so far are revoked now.
      if (last) await this.settle(last, deleted);
    }
  }

  /** Appends expecting the revision the decision was made on; a lost race is a 409, never a lost write. */
  private async append(caller: CallerContext, keyId: string, events: ApiKeyEvent[], expectedRevision: number, occurredAt: string) {
    try {
      return await this.eventStore.append(
        IdentityStreams.apiKey(keyId),
        events.map((e) => ({
          type: e.type,
          data: e.data as unknown as Record<string, unknown>,
          metadata: this.metadata(caller, occurredAt),
        })),
        { expectedRevision: expectedRevision < 0 ? 'no_stream' : expectedRevision },
      );
    } catch (error) {
      if (error instanceof WrongExpectedRevisionError) {
        if (expectedRevision < 0) throw ServiceError.conflict('APIKEY.ALREADY_EXISTS', 'this API key exists already');
        throw ServiceError.conflict('APIKEY.CONCURRENT_MODIFICATION', 'the API key was changed concurrently; reload and retry');
      }
      throw error;
    }
  }

  private metadata(caller: CallerContext, occurredAt: string): Record<string, unknown> {
    return {
      accountId: caller.accountId,
      actorId: caller.userId,
      ...(caller.keyId ? { actorKeyId: caller.keyId } : {}),
      correlationId: caller.correlationId,
      occurredAt,
      schemaVersion: API_KEY_EVENT_SCHEMA_VERSION,
    };
  }

  /**
   * Read-your-writes, then revocation: the event goes out once the read model refuses the old
   * state, so a gateway that forgets the key and asks again cannot get the old answer back.
   */
  private async settle(position: GlobalPosition, revokedKeyIds: string[]): Promise<void> {
    const reached = await this.projector.waitFor(position);
    if (!reached) this.logger.warn('API key read model lags behind a write; answering anyway');
    if (revokedKeyIds.length) {
      const event: ApiKeysRevokedEvent = { keyIds: revokedKeyIds };
      this.events.publish(IdentityEvents.apiKeysRevoked, event);
    }
  }

  private async lastUsed(keyIds: string[]): Promise<Map<string, string>> {
    if (!keyIds.length) return new Map();
    const docs = await this.usage.find({ _id: { $in: keyIds } });
    return new Map(docs.map((d) => [d._id, d.lastUsedAt]));
  }
}
