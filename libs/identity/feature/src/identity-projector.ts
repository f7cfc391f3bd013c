import { Inject, Injectable } from '@nestjs/common';
import { EVENT_STORE, EventStore, RecordedEvent } from '@funnel/eventstore';
import { READ_STORE, ReadStore } from '@funnel/readstore';
import { BulkOperation } from '@funnel/readstore';
import { Projector, guardedReplace, writeGuarded } from '@funnel/projections';
import { ApiKeyChange, ApiKeyIssued, IdentityStreams, UserRegistered, decodeApiKeyEvent } from '@funnel/identity-domain';
import { ApiKeyDocument, UserDocument, apiKeysCollection, usersCollection } from './identity-read-model';

/** Projects users and API keys into the identity read models. Started by the identity feature's bootstrap. */
@Injectable()
export class IdentityProjector extends Projector {
  private readonly users = usersCollection(this.readStore);
  private readonly apiKeys = apiKeysCollection(this.readStore);

  constructor(
    @Inject(EVENT_STORE) eventStore: EventStore,
    @Inject(READ_STORE) private readonly readStore: ReadStore,
  ) {
    super({ name: 'identity-read-model', description: 'identity projection', eventStore, readStore, streamNamePrefixes: IdentityStreams.prefixes });
  }

  protected override async createIndexes(): Promise<void> {
    await this.users.createIndex({ email: 1 }, { unique: true });
    await this.apiKeys.createIndex({ keyId: 1 }, { unique: true });
    await this.apiKeys.createIndex({ accountId: 1 });
  }

  protected override async project(events: RecordedEvent[]): Promise<void> {
    const users: UserDocument[] = [];
    // Per key: the whole document when this batch issues it, otherwise the fields the batch changes.
    const issued = new Map<string, ApiKeyDocument>();
    const changed = new Map<string, { set: Partial<ApiKeyDocument>; revision: number }>();
    for (const e of events) {
      if (e.type === 'UserRegistered') {
        const d = e.data as UserRegistered['data'];
        users.push({
          _id: d.userId,
          accountId: d.accountId,
          email: d.email,
          name: d.name,
          permissions: d.permissions,
          passwordHash: d.passwordHash,
          revision: e.revision,
        });
        continue;
      }
      const keyEvent = decodeApiKeyEvent(e.type, e.data);
      if (!keyEvent) continue;
      if (keyEvent.type === 'ApiKeyIssued') {
        issued.set(keyEvent.data.keyId, apiKeyDocument(keyEvent.data, e));
        continue;
      }
      const set = apiKeyChangeFields(keyEvent);
      const whole = issued.get(keyEvent.data.keyId);
      if (whole) {
        Object.assign(whole, set, { revision: e.revision });
      } else {
        const pending = changed.get(keyEvent.data.keyId) ?? { set: {}, revision: e.revision };
        changed.set(keyEvent.data.keyId, { set: { ...pending.set, ...set }, revision: e.revision });
      }
    }
    await writeGuarded(this.users, users.map(guardedReplace));
    await writeGuarded(this.apiKeys, [...issued.values()].map(guardedReplace));
    // Every field set is absolute, so one update per key with the batch's last revision is exact
    // whether the stored document reflects none or some of the batch's events (replays are no-ops).
    const updates: BulkOperation<ApiKeyDocument>[] = [...changed].map(([keyId, { set, revision }]) => ({
      updateOne: { filter: { keyId, revision: { $lt: revision } }, update: { $set: { ...set, revision } } },
    }));
    if (updates.length) await this.apiKeys.bulkWrite(updates);
  }
}

function apiKeyDocument(d: ApiKeyIssued['data'], e: RecordedEvent): ApiKeyDocument {
  const createdAt = typeof e.metadata?.occurredAt === 'string' ? e.metadata.occurredAt : e.recordedAt.toISOString();
  return {
    _id: d.digest,
    keyId: d.keyId,
    accountId: d.accountId,
    userId: d.userId,
    name: d.name,
    prefix: d.prefix,
    permissions: d.permissions,
    enabled: true,
    deleted: false,
    createdAt,
    revision: e.revision,
  };
}

function apiKeyChangeFields(event: ApiKeyChange): Partial<ApiKeyDocument> {
  switch (event.type) {
    case 'ApiKeyRenamed':
      return { name: event.data.name };
    case 'ApiKeyPermissionsChanged':
      return { permissions: event.data.permissions };
    case 'ApiKeyDisabled':
      return { enabled: false };
    case 'ApiKeyEnabled':
      return { enabled: true };
    case 'ApiKeyDeleted':
      return { deleted: true, enabled: false };
    default: {
      const unknown: never = event;
      throw new Error(`unknown API key event ${(unknown as { type: string }).type}`);
    }
  }
}
