import { Test } from '@nestjs/testing';
import { INestApplicationContext } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { ServiceError } from '@funnel/contracts';
import { RecordedEvent, SqliteEventStore } from '@funnel/eventstore';
import { EmbeddedReadStore } from '@funnel/readstore';
import { IdentityStreams } from '@funnel/identity-domain';
import { BootstrapAdmin, IdentityFeatureModule } from './identity-feature.module';
import { IdentityService } from './identity.service';
import { usersCollection } from './identity-read-model';

const admin: BootstrapAdmin = { email: 'Admin@Example.com', password: 'a long password', apiKey: 'bootstrap-key-0123456789' };

describe('identity over SQLite and the embedded read store', () => {
  let eventStore: SqliteEventStore;
  let app: INestApplicationContext | undefined;
  let readStore: EmbeddedReadStore;

  async function boot(bootstrapAdmin?: BootstrapAdmin): Promise<IdentityService> {
    await app?.close();
    // A fresh embedded read store each time: what a restart does (rebuilt from the log).
    readStore = new EmbeddedReadStore();
    app = await Test.createTestingModule({ imports: [IdentityFeatureModule.forRoot({ eventStore, readStore, bootstrapAdmin })] }).compile();
    await app.init();
    return app.get(IdentityService);
  }

  function allEvents(): Promise<RecordedEvent[]> {
    return new Promise((resolve) => {
      const all: RecordedEvent[] = [];
      const sub = eventStore.subscribeToAll({ onEvents: (events) => void all.push(...events) });
      void sub.caughtUp.then(() => sub.stop()).then(() => resolve(all));
    });
  }

  beforeEach(() => {
    eventStore = new SqliteEventStore({ filename: ':memory:' });
    app = undefined;
  });
  afterEach(async () => {
    await app?.close();
    await eventStore.close();
  });

  it('bootstraps the admin once, however often the service starts', async () => {
    for (let start = 0; start < 3; start++) {
      const identity = await boot(admin);
      await expect(identity.authenticateApiKey(admin.apiKey)).resolves.toMatchObject({ permissions: expect.arrayContaining(['assets:write', 'keys:manage']) });
      expect(await usersCollection(readStore).countDocuments({})).toBe(1);
    }
    // One key, with a random id claimed for its digest: a restart finds it rather than issuing another.
    const issued = (await allEvents()).filter((e) => e.type === 'ApiKeyIssued');
    expect(issued).toHaveLength(1);
    expect(issued[0].data).toMatchObject({ keyId: expect.stringMatching(/^[0-9a-f]{24}$/) });
    expect(createHash('sha256').update(admin.apiKey).digest('hex')).not.toContain((issued[0].data as { keyId: string }).keyId);
  });

  it('keeps a bootstrap key issued before ids were random under its legacy id', async () => {
    const digest = createHash('sha256').update(admin.apiKey).digest('hex');
    const legacyId = digest.slice(0, 24);
    const data = {
      keyId: legacyId,
      accountId: 'ACCT00000001',
      userId: 'USER00000001',
      name: 'default',
      digest,
      prefix: 'bootst',
      permissions: ['assets:read'],
    };
    await eventStore.append(IdentityStreams.apiKey(legacyId), [{ type: 'ApiKeyIssued', data }]);
    const identity = await boot(admin);
    await expect(identity.authenticateApiKey(admin.apiKey)).resolves.toMatchObject({ keyId: legacyId });
    expect((await allEvents()).filter((e) => e.type === 'ApiKeyIssued')).toHaveLength(1);
  });

  it('refuses a wrong or malformed key with 401, and never stores keys or passwords in clear', async () => {
    const identity = await boot(admin);
    for (const key of ['bootstrap-key-0123456780', 'short', 42]) {
      await expect(identity.authenticateApiKey(key)).rejects.toMatchObject({ status: 401 });
    }
    const log = JSON.stringify(await allEvents(), (_key, value) => (typeof value === 'bigint' ? String(value) : value));
    expect(log).not.toContain(admin.apiKey);
    expect(log).not.toContain(admin.password);
  });

  it('an e-mail belongs to one user: a second account with it is a 409', async () => {
    const identity = await boot();
    await identity.createUserWithAccount({ email: 'a@b.co', password: 'password one' });
    const error = await identity.createUserWithAccount({ email: 'A@B.co', password: 'password two' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServiceError);
    expect(error).toMatchObject({ status: 409, code: 'IDENTITY.EMAIL_TAKEN' });
  });

  it('completes a bootstrap cut short after the user was registered but before its key', async () => {
    const identity = await boot();
    const first = await identity.createUserWithAccount({ email: admin.email, password: admin.password });
    const restarted = await boot(admin);
    await expect(restarted.authenticateApiKey(admin.apiKey)).resolves.toMatchObject({ accountId: first.accountId, userId: first.userId });
  });

  it('completes a bootstrap cut short after the e-mail was claimed', async () => {
    const digest = createHash('sha256').update(admin.email.toLowerCase()).digest('hex');
    await eventStore.append(IdentityStreams.email(digest), [{ type: 'EmailReserved', data: { userId: 'USER00000001', accountId: 'ACCT00000001' } }]);
    const identity = await boot(admin);
    await expect(identity.authenticateApiKey(admin.apiKey)).resolves.toMatchObject({ accountId: 'ACCT00000001', userId: 'USER00000001' });
  });
});
