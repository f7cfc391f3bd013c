import { Inject, Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { EVENT_STORE, EventStore, GlobalPosition, RecordedEvent } from '@funnel/eventstore';
import { READ_STORE, ReadStore } from '@funnel/readstore';
import { ProjectionRunner, guardedReplace, writeGuarded } from '@funnel/projections';
import { ApiKeyIssued, IdentityStreams, UserRegistered } from '@funnel/identity-domain';
import { ApiKeyDocument, UserDocument, apiKeysCollection, usersCollection } from './identity-read-model';

/** Projects users and API keys into the identity read models. */
@Injectable()
export class IdentityProjector implements OnApplicationShutdown {
  private readonly logger = new Logger(IdentityProjector.name);
  private readonly users = usersCollection(this.readStore);
  private readonly apiKeys = apiKeysCollection(this.readStore);
  private readonly runner: ProjectionRunner;

  constructor(
    @Inject(EVENT_STORE) eventStore: EventStore,
    @Inject(READ_STORE) private readonly readStore: ReadStore,
  ) {
    this.runner = new ProjectionRunner({
      name: 'identity-read-model',
      eventStore,
      readStore,
      streamNamePrefixes: IdentityStreams.prefixes,
      apply: (events) => this.project(events),
      onError: (error) => this.logger.error(`identity projection stopped: ${error.message}`),
    });
  }

  async start(): Promise<void> {
    await this.users.createIndex({ email: 1 }, { unique: true });
    await this.runner.start();
  }

  get ready(): boolean {
    return this.runner.ready;
  }

  waitFor(position: GlobalPosition): Promise<boolean> {
    return this.runner.waitFor(position);
  }

  private async project(events: RecordedEvent[]): Promise<void> {
    const users: UserDocument[] = [];
    const keys: ApiKeyDocument[] = [];
    for (const e of events) {
      if (e.type === 'UserRegistered') {
        const d = e.data as UserRegistered['data'];
        users.push({ _id: d.userId, accountId: d.accountId, email: d.email, name: d.name, permissions: d.permissions, passwordHash: d.passwordHash, revision: e.revision });
      } else if (e.type === 'ApiKeyIssued') {
        const d = e.data as ApiKeyIssued['data'];
        keys.push({ _id: d.digest, keyId: d.keyId, accountId: d.accountId, userId: d.userId, name: d.name, prefix: d.prefix, permissions: d.permissions, enabled: true, revision: e.revision });
      }
    }
    await writeGuarded(this.users, users.map(guardedReplace));
    await writeGuarded(this.apiKeys, keys.map(guardedReplace));
  }

  async onApplicationShutdown(): Promise<void> {
    await this.runner.stop();
  }
}
