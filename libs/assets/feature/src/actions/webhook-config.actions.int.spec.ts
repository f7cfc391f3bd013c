import { Test } from '@nestjs/testing';
import { INestApplicationContext } from '@nestjs/common';
import { CallerContext, WEBHOOK_CONFIG_KIND, generateAssetId } from '@funnel/contracts';
import { SqliteEventStore } from '@funnel/eventstore';
import { EmbeddedReadStore } from '@funnel/readstore';
import { isEncryptedSecret } from '@funnel/assets-domain';
import { OutboundHttp } from '@funnel/platform';
import { tempDir } from '@funnel/testing';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { AssetsFeatureModule } from '../assets-feature.module';
import { AssetCommands } from '../asset-commands';
import { AssetSecretBox } from '../secrets/asset-secret-box';
import { assetsCollection } from '../asset-documents';
import { assetKindActions } from './index';

const context: CallerContext = { accountId: 'ACCOUNT00001', userId: 'U', permissions: [], correlationId: 'test' };

describe('webhook config secrets over SQLite and the embedded read store', () => {
  const dir = tempDir('webhook-secrets');
  const eventStore = new SqliteEventStore({ filename: join(dir.path, 'events.sqlite') });
  const readStore = new EmbeddedReadStore();
  const secrets = AssetSecretBox.ephemeral();
  const http = new OutboundHttp();
  let app: INestApplicationContext;
  let commands: AssetCommands;

  beforeAll(async () => {
    const actions = assetKindActions({ secrets, http });
    app = await Test.createTestingModule({ imports: [AssetsFeatureModule.forRoot({ eventStore, readStore, secrets, actions })] }).compile();
    await app.init();
    commands = app.get(AssetCommands);
  });
  afterAll(async () => {
    await app.close();
    await http.close();
    await eventStore.close();
    dir.remove();
  });

  const request = (id: string, body?: unknown) => ({ query: { idWebhookConfig: id }, body });

  it('given a saved password, a signing secret and its rotation, then neither the event log nor the read store holds one in clear', async () => {
    const id = generateAssetId();
    const password = 'int-scan-password-41';
    await commands.create(WEBHOOK_CONFIG_KIND, context, {
      query: {},
      body: { idWebhookConfig: id, webhookConfigName: 'scan', basicAuth: { username: 'int-user', password } },
    });
    const { signingSecret: first } = (await commands.secret(WEBHOOK_CONFIG_KIND, context, request(id))) as { signingSecret: string };
    const { signingSecret: second } = (await commands.rotateSecret(WEBHOOK_CONFIG_KIND, context, request(id))) as { signingSecret: string };
    expect(second).not.toBe(first);
    expect(await commands.secret(WEBHOOK_CONFIG_KIND, context, request(id))).toEqual({ signingSecret: second });

    const documents = await assetsCollection(readStore).find({ kind: 'webhookconfig' });
    const stored = documents.find((doc) => doc.record.idWebhookConfig === id)!.record;
    // The read model holds them encrypted, the rotation's included.
    expect(isEncryptedSecret(stored.signingSecret)).toBe(true);
    expect(isEncryptedSecret((stored.basicAuth as Record<string, unknown>).password)).toBe(true);
    expect(secrets.decrypt(stored.signingSecret as never)).toBe(second);

    const events = JSON.stringify((await eventStore.readStream(`webhookconfig-${context.accountId}.${id}`)).map((e) => e.data));
    const raw = Buffer.concat(readdirSync(dir.path).map((name) => readFileSync(join(dir.path, name))));
    expect(events).toContain('int-user');
    expect(raw.includes('int-user')).toBe(true);
    for (const clear of [password, first, second, first.slice(6), second.slice(6)]) {
      expect(JSON.stringify(documents)).not.toContain(clear);
      expect(events).not.toContain(clear);
      expect(raw.includes(clear)).toBe(false);
    }
  });

  it('rotates through the pipeline: one Updated event at the next revision, a 404 once deleted', async () => {
    const id = generateAssetId();
    await commands.create(WEBHOOK_CONFIG_KIND, context, { query: {}, body: { idWebhookConfig: id, webhookConfigName: 'rotate' } });
    await commands.rotateSecret(WEBHOOK_CONFIG_KIND, context, request(id));
    const events = await eventStore.readStream(`webhookconfig-${context.accountId}.${id}`);
    expect(events.map((e) => [e.type, e.revision])).toEqual([
      ['WebhookConfigCreated', 0],
      ['WebhookConfigUpdated', 1],
    ]);
    await commands.delete(WEBHOOK_CONFIG_KIND, context, { query: { idWebhookConfig: id }, body: undefined });
    await expect(commands.rotateSecret(WEBHOOK_CONFIG_KIND, context, request(id))).rejects.toMatchObject({ status: 404, code: 'ASSET.NOT_FOUND' });
  });
});
