import { Test } from '@nestjs/testing';
import { INestApplicationContext } from '@nestjs/common';
import { CallerContext, ServiceError, USER_SETTINGS_MAX_BYTES } from '@funnel/contracts';
import { SqliteEventStore } from '@funnel/eventstore';
import { EmbeddedReadStore } from '@funnel/readstore';
import { UserSettingsStreams } from '@funnel/identity-domain';
import { IdentityFeatureModule, IdentityHealth } from '../identity-feature.module';
import { UserSettingsMessageController } from './user-settings.message.controller';
import { UserSettingsProjector, userSettingsCollection } from './user-settings.projector';
import { UserSettingsService } from './user-settings.service';

const alice: CallerContext = { accountId: 'ACCOUNT0000A', userId: 'USER0000000A', permissions: ['settings:write'], correlationId: 'c-a' };
const bob: CallerContext = { accountId: 'ACCOUNT0000B', userId: 'USER0000000B', permissions: ['settings:write'], correlationId: 'c-b' };

describe('user settings over SQLite and the embedded read store', () => {
  let eventStore: SqliteEventStore;
  let readStore: EmbeddedReadStore;
  let app: INestApplicationContext | undefined;
  let controller: UserSettingsMessageController;

  /** Starts the identity module; a fresh embedded read store each time, as a restart rebuilds it from the log. */
  async function boot(): Promise<void> {
    await app?.close();
    readStore = new EmbeddedReadStore();
    app = await Test.createTestingModule({ imports: [IdentityFeatureModule.forRoot({ eventStore, readStore })] }).compile();
    await app.init();
    controller = app.get(UserSettingsMessageController);
  }
  const get = (context: CallerContext) => controller.get({ context, body: { query: {}, body: undefined } });
  const save = (context: CallerContext, body: unknown) => controller.save({ context, body: { query: {}, body } });
  const remove = (context: CallerContext) => controller.delete({ context, body: { query: {}, body: undefined } });
  const stream = (userId: string) => eventStore.readStream(UserSettingsStreams.settings(userId));

  beforeEach(async () => {
    eventStore = new SqliteEventStore({ filename: ':memory:' });
    app = undefined;
    await boot();
  });
  afterEach(async () => {
    await app?.close();
    await eventStore.close();
  });

  it('is ready once its projection has caught up (part of the identity readiness)', () => {
    expect(app!.get(UserSettingsProjector).ready).toBe(true);
    expect(app!.get(IdentityHealth).ready()).toBe(true);
  });

  it('answers {} when nothing is saved', async () => {
    await expect(get(alice)).resolves.toEqual({});
  });

  it('saves, reads its own write at once, replaces the whole object, and keeps the other user apart', async () => {
    await expect(save(alice, { theme: 'dark', columns: ['a', 'b'] })).resolves.toBeUndefined();
    await expect(get(alice)).resolves.toEqual({ theme: 'dark', columns: ['a', 'b'] });
    await save(alice, { density: 'compact' });
    await expect(get(alice)).resolves.toEqual({ density: 'compact' });
    await expect(get(bob)).resolves.toEqual({});
    await save(bob, { theme: 'light' });
    await expect(get(alice)).resolves.toEqual({ density: 'compact' });
    await expect(get(bob)).resolves.toEqual({ theme: 'light' });
  });

  it('never shows a document to a caller of another account', async () => {
    await save(alice, { theme: 'dark' });
    await expect(get({ ...bob, userId: alice.userId })).resolves.toEqual({});
  });

  it('keeps any JSON keys, including ones MongoDB documents cannot hold', async () => {
    const settings = { $set: { 'a.b': 1 }, '': [null, true, 1.5, 'é'], __nested: { $gt: 0 } };
    await save(alice, settings);
    await expect(get(alice)).resolves.toEqual(settings);
  });

  it('deletes idempotently: a second delete records nothing', async () => {
    await save(alice, { theme: 'dark' });
    await expect(remove(alice)).resolves.toBeUndefined();
    await expect(get(alice)).resolves.toEqual({});
    await remove(alice);
    await remove(bob);
    expect((await stream(alice.userId)).map((e) => e.type)).toEqual(['UserSettingsSaved', 'UserSettingsDeleted']);
    expect(await stream(bob.userId)).toEqual([]);
    await save(alice, { again: true });
    await expect(get(alice)).resolves.toEqual({ again: true });
  });

  it('stores nothing for a refused save (413 over the limit, 400 for a non-object)', async () => {
    await save(alice, { kept: true });
    const over = { v: 'x'.repeat(USER_SETTINGS_MAX_BYTES - 8 + 1) };
    await expect(save(alice, over)).rejects.toMatchObject({ status: 413, code: 'SETTINGS.TOO_LARGE' });
    for (const bad of [[], 'text', null, undefined, 7]) {
      const error = await save(alice, bad).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ServiceError);
      expect(error).toMatchObject({ status: 400, code: 'REQUEST.VALIDATION_FAILED' });
    }
    expect(await stream(alice.userId)).toHaveLength(1);
    await expect(get(alice)).resolves.toEqual({ kept: true });
    await save(alice, { v: 'x'.repeat(USER_SETTINGS_MAX_BYTES - 8) });
    expect(Buffer.byteLength(JSON.stringify(await get(alice)))).toBe(USER_SETTINGS_MAX_BYTES);
  });

  it('refuses a request without a caller (401)', async () => {
    await expect(controller.get({ context: { ...alice, userId: '' }, body: { query: {}, body: undefined } })).rejects.toMatchObject({ status: 401 });
  });

  it('rebuilds the same documents from the log after a restart, and a replay changes nothing', async () => {
    await save(alice, { first: 1 });
    await save(alice, { second: 2 });
    await save(bob, { theme: 'light' });
    await remove(bob);
    await boot();
    await expect(get(alice)).resolves.toEqual({ second: 2 });
    await expect(get(bob)).resolves.toEqual({});
    const before = await userSettingsCollection(readStore).find({});
    // Replay everything again over the same documents: the revision guard keeps them as they are.
    await readStore.checkpoints.reset('identity-user-settings');
    const replay = new UserSettingsProjector(eventStore, readStore);
    await replay.onApplicationBootstrap();
    await replay.onApplicationShutdown();
    expect(await userSettingsCollection(readStore).find({})).toEqual(before);
  });

  it('a delete decides on the log, not on a read model that has not seen the latest save', async () => {
    await app!.close();
    app = undefined;
    // No projection runs: the save below (as another instance would append it) is only in the log.
    await eventStore.append(UserSettingsStreams.settings(alice.userId), [{ type: 'UserSettingsSaved', data: { ...alice, settings: { a: 1 } } }]);
    const lagging = { waitFor: async () => true } as unknown as UserSettingsProjector;
    const service = new UserSettingsService(eventStore, new EmbeddedReadStore(), lagging);
    await service.delete(alice);
    expect((await stream(alice.userId)).map((e) => e.type)).toEqual(['UserSettingsSaved', 'UserSettingsDeleted']);
  });
});
