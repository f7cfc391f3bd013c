import { Test } from '@nestjs/testing';
import { INestApplicationContext } from '@nestjs/common';
import { CallerContext, IdentityEvents, PERMISSIONS, RpcRequest, IdentityRequestBody } from '@funnel/contracts';
import { RecordedEvent, SqliteEventStore } from '@funnel/eventstore';
import { EmbeddedReadStore } from '@funnel/readstore';
import { EventPublisher } from '@funnel/platform';
import { IdentityStreams, apiKeyDigest, apiKeyPrefix, legacyApiKeyIdOf } from '@funnel/identity-domain';
import { IdentityFeatureModule } from '../identity-feature.module';
import { IdentityService } from '../identity.service';
import { IdentityProjector } from '../identity-projector';
import { apiKeyUsageCollection, apiKeysCollection } from '../identity-read-model';
import { ApiKeysMessageController } from './api-keys.message.controller';

const ALL = [...PERMISSIONS];
const alice: CallerContext = { accountId: 'ACCOUNT0000A', userId: 'USER0000000A', permissions: ALL, correlationId: 'c-a' };
const bob: CallerContext = { accountId: 'ACCOUNT0000B', userId: 'USER0000000B', permissions: ALL, correlationId: 'c-b' };

describe('API keys over SQLite and the embedded read store', () => {
  let eventStore: SqliteEventStore;
  let readStore: EmbeddedReadStore;
  let app: INestApplicationContext | undefined;
  let controller: ApiKeysMessageController;
  let identity: IdentityService;
  let published: { subject: string; data: unknown }[];
  const events: EventPublisher = { publish: (subject, data) => void published.push({ subject, data }) };

  /** Starts the identity module; a fresh embedded read store each time, as a restart rebuilds it from the log. */
  async function boot(): Promise<void> {
    await app?.close();
    readStore = new EmbeddedReadStore();
    app = await Test.createTestingModule({ imports: [IdentityFeatureModule.forRoot({ eventStore, readStore, events })] }).compile();
    await app.init();
    controller = app.get(ApiKeysMessageController);
    identity = app.get(IdentityService);
  }
  const request = (context: CallerContext, body?: unknown): RpcRequest<IdentityRequestBody> => ({ context, body: { query: {}, body } });
  const list = (context: CallerContext) => controller.list(request(context));
  const generate = (context: CallerContext, body: unknown) => controller.generate(request(context, body));
  const update = (context: CallerContext, body: unknown) => controller.update(request(context, body));
  const remove = (context: CallerContext, body: unknown) => controller.delete(request(context, body));
  const failure = (promise: Promise<unknown>) =>
    promise.then(
      () => undefined,
      (error: unknown) => error,
    );
  const revoked = () => published.filter((p) => p.subject === IdentityEvents.apiKeysRevoked).map((p) => p.data);
  async function log(): Promise<RecordedEvent[]> {
    const all: RecordedEvent[] = [];
    const subscription = eventStore.subscribeToAll({ onEvents: (batch) => void all.push(...batch) });
    await subscription.caughtUp;
    await subscription.stop();
    return all;
  }

  beforeEach(async () => {
    eventStore = new SqliteEventStore({ filename: ':memory:' });
    published = [];
    app = undefined;
    await boot();
  });
  afterEach(async () => {
    await app?.close();
    await eventStore.close();
  });

  it('generates a key shown once, which authenticates at once; lists never show it or its digest', async () => {
    const generated = await generate(alice, { name: 'Zapier', permissions: ['assets:write', 'assets:read', 'assets:read'] });
    expect(generated).toEqual({
      id: expect.stringMatching(/^[0-9a-f]{24}$/),
      key: expect.stringMatching(/^fk_[A-Za-z0-9_-]{32}$/),
      name: 'Zapier',
      prefix: apiKeyPrefix(generated.key),
      permissions: ['assets:read', 'assets:write'],
      enabled: true,
      createdAt: expect.any(String),
      lastUsedAt: null,
      userId: alice.userId,
    });
    await expect(identity.authenticateApiKey(generated.key)).resolves.toEqual({
      accountId: alice.accountId,
      userId: alice.userId,
      permissions: ['assets:read', 'assets:write'],
      keyId: generated.id,
    });
    const listed = await list(alice);
    const { key: _key, ...info } = generated;
    expect(listed).toEqual([{ ...info, lastUsedAt: expect.any(String) }]);
    const everything = JSON.stringify([listed, await log(), await apiKeysCollection(readStore).find({})], (_k, v) => (typeof v === 'bigint' ? String(v) : v));
    expect(everything).not.toContain(generated.key);
    expect(JSON.stringify(listed)).not.toContain(apiKeyDigest(generated.key));
    // The id is random: it tells nothing about the key (not even a part of its digest).
    expect(apiKeyDigest(generated.key)).not.toContain(generated.id);
    expect((await generate(alice, { name: 'Zapier', permissions: [] })).id).not.toBe(generated.id);
  });

  it('notes the last use, at most once a minute per key', async () => {
    const { key, id } = await generate(alice, { name: 'n', permissions: [] });
    expect((await list(alice))[0].lastUsedAt).toBeNull();
    await identity.authenticateApiKey(key);
    const first = (await list(alice))[0].lastUsedAt;
    expect(Date.parse(first!)).toBeGreaterThan(Date.now() - 10_000);
    await new Promise((resolve) => setTimeout(resolve, 5));
    await identity.authenticateApiKey(key);
    expect((await apiKeyUsageCollection(readStore).findOne({ _id: id }))?.lastUsedAt).toBe(first);
  });

  it('renames, changes permissions, disables and enables; revokes cached checks of the changes that matter', async () => {
    const { key, id } = await generate(alice, { name: 'before', permissions: ['assets:read'] });
    await expect(update(alice, { id, name: 'after' })).resolves.toMatchObject({ id, name: 'after', permissions: ['assets:read'], enabled: true });
    expect(revoked()).toEqual([]);
    await expect(update(alice, { id, permissions: ['assets:write'] })).resolves.toMatchObject({ permissions: ['assets:write'] });
    expect(revoked()).toEqual([{ keyIds: [id] }]);
    await expect(identity.authenticateApiKey(key)).resolves.toMatchObject({ permissions: ['assets:write'] });

    await expect(update(alice, { id, enabled: false })).resolves.toMatchObject({ enabled: false });
    expect(revoked()).toHaveLength(2);
    await expect(identity.authenticateApiKey(key)).rejects.toMatchObject({ status: 401 });
    expect(await list(alice)).toEqual([expect.objectContaining({ id, name: 'after', enabled: false })]);

    await update(alice, { id, enabled: true });
    await expect(identity.authenticateApiKey(key)).resolves.toMatchObject({ keyId: id });
    // Nothing to change: no event, the key as it is.
    const revision = (await eventStore.readStream(IdentityStreams.apiKey(id))).length;
    await expect(update(alice, { id, name: 'after' })).resolves.toMatchObject({ name: 'after', enabled: true });
    expect(await eventStore.readStream(IdentityStreams.apiKey(id))).toHaveLength(revision);
  });

  it('deletes: the key stops working, leaves the list, and is revoked; any unknown entry deletes nothing', async () => {
    const one = await generate(alice, { name: 'one', permissions: [] });
    const two = await generate(alice, { name: 'two', permissions: [] });
    const unknown = 'f'.repeat(24);
    await expect(failure(remove(alice, { entries: [one.id, unknown] }))).resolves.toMatchObject({ status: 404, code: 'APIKEY.NOT_FOUND' });
    expect(await list(alice)).toHaveLength(2);
    await expect(identity.authenticateApiKey(one.key)).resolves.toBeDefined();

    await expect(remove(alice, { entries: [one.id, one.id] })).resolves.toBeUndefined();
    expect(revoked()).toEqual([{ keyIds: [one.id] }]);
    await expect(identity.authenticateApiKey(one.key)).rejects.toMatchObject({ status: 401 });
    expect((await list(alice)).map((k) => k.id)).toEqual([two.id]);
    await expect(failure(remove(alice, { entries: [one.id] }))).resolves.toMatchObject({ status: 404 });
    await expect(failure(update(alice, { id: one.id, enabled: true }))).resolves.toMatchObject({ status: 404 });
  });

  it('keeps accounts apart: another account neither sees nor changes a key (404, nothing changed)', async () => {
    const key = await generate(alice, { name: 'alice', permissions: ['assets:read'] });
    expect(await list(bob)).toEqual([]);
    await expect(failure(update(bob, { id: key.id, enabled: false }))).resolves.toMatchObject({ status: 404, code: 'APIKEY.NOT_FOUND' });
    await expect(failure(remove(bob, { entries: [key.id] }))).resolves.toMatchObject({ status: 404, code: 'APIKEY.NOT_FOUND' });
    await expect(identity.authenticateApiKey(key.key)).resolves.toMatchObject({ accountId: alice.accountId });
    expect(await eventStore.readStream(IdentityStreams.apiKey(key.id))).toHaveLength(1);
    expect(revoked()).toEqual([]);
  });

  it('never grants more than the caller holds (403), refuses unknown permissions and bad bodies (400), storing nothing', async () => {
    const limited: CallerContext = { ...alice, permissions: ['keys:manage', 'assets:read'], keyId: 'a'.repeat(24) };
    await expect(failure(generate(limited, { name: 'more', permissions: ['assets:write'] }))).resolves.toMatchObject({ status: 403 });
    const ok = await generate(limited, { name: 'same', permissions: ['assets:read'] });
    await expect(failure(update(limited, { id: ok.id, permissions: ['assets:read', 'billing:manage'] }))).resolves.toMatchObject({ status: 403 });
    for (const body of [
      undefined,
      [],
      {},
      { name: 'x' },
      { permissions: [] },
      { name: '', permissions: [] },
      { name: '   ', permissions: [] },
      { name: 'x'.repeat(257), permissions: [] },
      { name: 7, permissions: [] },
      { name: 'x', permissions: 'assets:read' },
      { name: 'x', permissions: ['assets:read', 'root'] },
      { name: 'x', permissions: [1] },
    ]) {
      await expect(failure(generate(alice, body))).resolves.toMatchObject({ status: 400, code: 'REQUEST.VALIDATION_FAILED' });
    }
    for (const body of [{}, { id: 'nope' }, { id: ok.id, enabled: 'no' }, { id: ok.id, permissions: ['x'] }, { id: ok.id, name: '' }]) {
      await expect(failure(update(alice, body))).resolves.toMatchObject({ status: 400 });
    }
    for (const body of [{}, { entries: [] }, { entries: 'x' }, { entries: ['not-an-id'] }]) {
      await expect(failure(remove(alice, body))).resolves.toMatchObject({ status: 400 });
    }
    expect(await list(alice)).toEqual([expect.objectContaining({ id: ok.id, permissions: ['assets:read'] })]);
    expect((await log()).filter((e) => e.streamName.startsWith('apikey-'))).toHaveLength(1);
    // Who generated it, through which key, is on the event.
    expect((await eventStore.readStream(IdentityStreams.apiKey(ok.id)))[0].metadata).toMatchObject({ actorId: alice.userId, actorKeyId: 'a'.repeat(24) });
  });

  it('a key holding keys:manage cannot update, disable or delete a key with a permission it lacks (403, nothing changed)', async () => {
    const manager: CallerContext = { ...alice, permissions: ['keys:manage', 'assets:read'], keyId: 'b'.repeat(24) };
    const stronger = await generate(alice, { name: 'writer', permissions: ['assets:read', 'assets:write'] });
    const weaker = await generate(alice, { name: 'reader', permissions: ['assets:read'] });
    for (const change of [{ name: 'renamed' }, { enabled: false }, { permissions: ['assets:read'] }]) {
      await expect(failure(update(manager, { id: stronger.id, ...change }))).resolves.toMatchObject({ status: 403, code: 'AUTH.FORBIDDEN' });
    }
    await expect(failure(remove(manager, { entries: [weaker.id, stronger.id] }))).resolves.toMatchObject({ status: 403 });
    await expect(identity.authenticateApiKey(stronger.key)).resolves.toMatchObject({ permissions: ['assets:read', 'assets:write'] });
    // Both keys, unchanged (keys made in the same millisecond are listed by id, so in either order).
    const keys = await list(alice);
    expect(keys).toHaveLength(2);
    expect(keys).toEqual(
      expect.arrayContaining([expect.objectContaining({ id: stronger.id, name: 'writer', enabled: true }), expect.objectContaining({ id: weaker.id })]),
    );
    expect(revoked()).toEqual([]);
    // A key no stronger than the caller is fine.
    await expect(update(manager, { id: weaker.id, enabled: false })).resolves.toMatchObject({ enabled: false });
    await expect(remove(manager, { entries: [weaker.id] })).resolves.toBeUndefined();
  });

  it('refuses callers without keys:manage or an account', async () => {
    await expect(failure(list({ ...alice, permissions: ['assets:read'] }))).resolves.toMatchObject({ status: 403 });
    await expect(failure(list({ ...alice, accountId: '' }))).resolves.toMatchObject({ status: 401 });
  });

  it('authenticates a generated key its read model does not know yet, through the digest claim and the key stream', async () => {
    const { key, id } = await generate(alice, { name: 'fresh', permissions: ['assets:read'] });
    // As if another process had written it and this projection had not got there yet.
    await apiKeysCollection(readStore).deleteMany({ keyId: id });
    await expect(identity.authenticateApiKey(key)).resolves.toEqual({
      accountId: alice.accountId,
      userId: alice.userId,
      permissions: ['assets:read'],
      keyId: id,
    });
  });

  it('authenticates a key issued before ids were random (legacy id) from its stream, when the read model does not know it yet', async () => {
    const key = 'fk_issued-by-the-cli-0123456789';
    const digest = apiKeyDigest(key);
    const keyId = legacyApiKeyIdOf(digest);
    const data = { keyId, accountId: bob.accountId, userId: bob.userId, name: 'cli', digest, prefix: apiKeyPrefix(key), permissions: ['assets:read'] };
    const { position } = await eventStore.append(IdentityStreams.apiKey(keyId), [{ type: 'ApiKeyIssued', data }], { expectedRevision: 'no_stream' });
    await app!.get(IdentityProjector).waitFor(position);
    // As if the projection had not got there yet.
    await apiKeysCollection(readStore).deleteMany({ keyId });
    await expect(identity.authenticateApiKey(key)).resolves.toEqual({ accountId: bob.accountId, userId: bob.userId, permissions: ['assets:read'], keyId });
    await eventStore.append(IdentityStreams.apiKey(keyId), [{ type: 'ApiKeyDisabled', data: { keyId, accountId: bob.accountId } }], { expectedRevision: 0 });
    await apiKeysCollection(readStore).deleteMany({ keyId });
    await expect(identity.authenticateApiKey(key)).rejects.toMatchObject({ status: 401 });
  });

  it('rebuilds the same list from the log after a restart (a key’s events in one batch)', async () => {
    const kept = await generate(alice, { name: 'kept', permissions: ['assets:read'] });
    await update(alice, { id: kept.id, name: 'renamed', permissions: ['assets:write'], enabled: false });
    const gone = await generate(alice, { name: 'gone', permissions: [] });
    await remove(alice, { entries: [gone.id] });
    const before = await list(alice);
    await boot();
    expect(await list(alice)).toEqual(before.map((k) => ({ ...k, lastUsedAt: null })));
    expect(before).toEqual([expect.objectContaining({ id: kept.id, name: 'renamed', permissions: ['assets:write'], enabled: false })]);
    await expect(identity.authenticateApiKey(kept.key)).rejects.toMatchObject({ status: 401 });
    await expect(identity.authenticateApiKey(gone.key)).rejects.toMatchObject({ status: 401 });
  });
});
