import { ASSET_KINDS, type SecretField } from '@funnel/contracts';
import type { RecordedEvent } from '@funnel/eventstore';
import { AssetRegistry } from '@funnel/assets-domain';
import { AssetSecretBox } from '../secrets/asset-secret-box';
import { assetEventMessage } from './asset-event-message';

const registry = new AssetRegistry(ASSET_KINDS);
const secrets = AssetSecretBox.ephemeral();

function recorded(kind: string, type: string, data: Record<string, unknown>): RecordedEvent {
  return {
    id: '00000000-0000-4000-8000-000000000009',
    streamName: registry.streamName(kind, 'ACCOUNT00001', 'ASSET0000001'),
    type,
    revision: 4,
    position: { commit: 42n, prepare: 42n },
    data,
    metadata: { accountId: 'ACCOUNT00001' },
    recordedAt: new Date('2026-11-25T12:00:00.000Z'),
  };
}

/** Puts an encrypted secret at `path` (`a.b`, or `list[].a.b` in two items of the list). */
function withSecret(record: Record<string, any>, { path }: SecretField, clear: string): void {
  const [list, inItem] = path.includes('[].') ? path.split('[].') : [undefined, path];
  const holders = list ? (record[list] ??= [{ idNode: 'N1' }, { idNode: 'N2' }]) : [record];
  for (const holder of holders) {
    const parts = inItem.split('.');
    const last = parts.pop()!;
    let node = holder;
    for (const part of parts) node = node[part] ??= {};
    node[last] = secrets.encrypt(clear);
  }
}

describe('the message of an asset event', () => {
  const kindsWithSecrets = ASSET_KINDS.filter((kind) => kind.secretFields?.length);

  it('covers kinds with secrets', () => {
    expect(kindsWithSecrets.map((kind) => kind.kind).sort()).toEqual(['funnel', 'middlewareconfig', 'webhookconfig']);
  });

  it.each(kindsWithSecrets.map((kind) => [kind.kind, kind] as const))(
    'removes every secret of %s (value and ciphertext) and keeps the flags',
    (_name, kind) => {
      const record: Record<string, any> = { [kind.idField]: 'ASSET0000001', status: 'active' };
      kind.secretFields!.forEach((field, i) => withSecret(record, field, `clear-secret-${i}`));
      for (const type of ['Created', 'Updated']) {
        const message = assetEventMessage(registry, recorded(kind.kind, `${kind.eventPrefix}${type}`, { record }))!;
        const text = JSON.stringify(message.payload);
        expect(text).not.toMatch(/clear-secret|\$secret|aes-256-gcm/);
        for (const field of kind.secretFields!) if (field.flag) expect(message.payload.data['record']).toHaveProperty(field.flag, true);
      }
      // The stored event is left as it was (the relay never changes what it reads).
      expect(JSON.stringify(record)).toMatch(/\$secret/);
    },
  );

  it.each([
    ['decision', 'FunnelDuplicateDecided', { duplicatedFrom: 'ASSET0000001' }],
    ['decision in parts', 'FunnelDuplicateDecided', { duplicatedFrom: 'ASSET0000001', parts: 2 }],
    ['plan part', 'FunnelDuplicatePlanned', { part: 1 }],
  ])("removes the secrets of every copy a duplicate's %s carries, each by its own kind", (_, type, rest) => {
    const copies = kindsWithSecrets.map((kind, i) => {
      const record: Record<string, any> = { [kind.idField]: `COPY0000000${i}`, status: 'active' };
      kind.secretFields!.forEach((field, j) => withSecret(record, field, `clear-secret-${i}-${j}`));
      return { kind: kind.kind, id: `COPY0000000${i}`, duplicatedFrom: 'ASSET0000001', record };
    });
    const message = assetEventMessage(registry, recorded('funnel', type, { ...rest, copies }))!;
    expect(JSON.stringify(message.payload)).toMatch(/COPY0000000/);
    expect(JSON.stringify(message.payload)).not.toMatch(/clear-secret|\$secret|aes-256-gcm/);
    expect(message.payload.data).toMatchObject(rest);
    const sent = message.payload.data['copies'] as { kind: string; record: Record<string, unknown> }[];
    expect(sent.map((copy) => copy.kind)).toEqual(kindsWithSecrets.map((kind) => kind.kind));
    kindsWithSecrets.forEach((kind, i) => {
      for (const field of kind.secretFields!) if (field.flag) expect(sent[i].record).toHaveProperty(field.flag, true);
    });
  });

  it('says false in a flag when no secret is stored', () => {
    const message = assetEventMessage(
      registry,
      recorded('webhookconfig', 'WebhookConfigUpdated', { record: { idWebhookConfig: 'ASSET0000001', status: 'active' } }),
    )!;
    expect(message.payload.data['record']).toMatchObject({ hasBasicAuthPassword: false, hasSigningSecret: false });
  });

  it('reads records in today’s field names and fills the envelope from the stream name and metadata', () => {
    const message = assetEventMessage(registry, recorded('category', 'CategoryCreated', { record: { idCategory: 'ASSET0000001', uiSettings: { x: 1 } } }))!;
    expect(message).toEqual({
      subject: 'assets.events.category.CategoryCreated',
      msgId: '00000000-0000-4000-8000-000000000009',
      payload: {
        eventId: '00000000-0000-4000-8000-000000000009',
        type: 'CategoryCreated',
        kind: 'category',
        accountId: 'ACCOUNT00001',
        assetId: 'ASSET0000001',
        revision: 4,
        position: '42/42',
        // No occurredAt in the metadata: the time it was recorded.
        occurredAt: '2026-11-25T12:00:00.000Z',
        actor: { userId: null, keyId: null },
        correlationId: null,
        data: { record: { idCategory: 'ASSET0000001', meta: { x: 1 } } },
      },
    });
  });

  it('has none for a stream of no asset kind', () => {
    expect(
      assetEventMessage(registry, { ...recorded('visitortag', 'VisitorTagCreated', {}), streamName: 'claim-ACCOUNT00001.shortlink.slug.x' }),
    ).toBeUndefined();
  });
});
