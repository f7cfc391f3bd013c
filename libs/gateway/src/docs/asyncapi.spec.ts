import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { ASSET_KINDS, assetEventTypesOf } from '@funnel/contracts';
import { AssetRegistry } from '@funnel/assets-domain';
import { AssetSecretBox, assetEventMessage } from '@funnel/assets-feature';
import type { RecordedEvent } from '@funnel/eventstore';
import { asyncApiDocument } from './asyncapi';

const KEY = /^[A-Za-z0-9_.-]+$/;

/** The value a local `$ref` (`#/a/b`) points to in `document`, or undefined. */
function resolve(document: unknown, ref: string): unknown {
  if (!ref.startsWith('#/')) return undefined;
  return ref
    .slice(2)
    .split('/')
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce<unknown>((node, part) => (node && typeof node === 'object' ? (node as Record<string, unknown>)[part] : undefined), document);
}

function refsIn(node: unknown, found: string[] = []): string[] {
  if (Array.isArray(node)) node.forEach((item) => refsIn(item, found));
  else if (node && typeof node === 'object') {
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string') found.push(value);
      else refsIn(value, found);
    }
  }
  return found;
}

describe('the AsyncAPI document of the asset events', () => {
  const document = asyncApiDocument();

  it('is structurally AsyncAPI 3: required fields, identifiers, and every reference resolves', () => {
    expect(document.asyncapi).toBe('3.0.0');
    expect(document.info.title).toEqual(expect.any(String));
    expect(document.info.version).toMatch(/^\d+\.\d+\.\d+$/);
    for (const server of Object.values(document.servers)) expect(server).toMatchObject({ host: expect.any(String), protocol: 'nats' });
    for (const [id, channel] of Object.entries(document.channels)) {
      expect(id).toMatch(KEY);
      expect(channel.address).toMatch(/^assets\.events\.[a-z]+\.[A-Za-z]+$/);
      for (const [messageId, message] of Object.entries(channel.messages)) {
        expect(messageId).toMatch(KEY);
        expect(resolve(document, message.$ref)).toBeDefined();
      }
    }
    for (const [id, operation] of Object.entries(document.operations)) {
      expect(id).toMatch(KEY);
      expect(['send', 'receive']).toContain(operation.action);
      const channelPrefix = `${operation.channel.$ref}/messages/`;
      expect(resolve(document, operation.channel.$ref)).toBeDefined();
      // An operation's messages must be messages of its own channel.
      for (const message of operation.messages) expect(message.$ref.startsWith(channelPrefix) && resolve(document, message.$ref)).toBeTruthy();
    }
    for (const [id, message] of Object.entries(document.components.messages)) {
      expect(id).toMatch(KEY);
      expect(message).toMatchObject({ contentType: 'application/json', payload: { $ref: expect.any(String) } });
    }
    for (const id of Object.keys(document.components.schemas)) expect(id).toMatch(KEY);
    const unresolved = refsIn(document).filter((ref) => resolve(document, ref) === undefined);
    expect(unresolved).toEqual([]);
  });

  it('has a channel, a receive operation and a message for every event type of every kind', () => {
    const expected = ASSET_KINDS.flatMap((kind) => assetEventTypesOf(kind).map((type) => `assets.events.${kind.kind}.${type}`));
    expect(expected).toContain('assets.events.funnel.FunnelUpdated');
    expect(
      Object.values(document.channels)
        .map((channel) => channel.address)
        .sort(),
    ).toEqual([...expected].sort());
    expect(Object.keys(document.operations)).toHaveLength(expected.length);
    expect(Object.keys(document.components.messages)).toHaveLength(expected.length);
    // Secrets are documented as gone, their flags as there.
    const webhook = document.components.schemas['WebhookConfigRecord'] as { properties: Record<string, unknown> };
    expect(webhook.properties).toHaveProperty('hasSigningSecret');
    expect(webhook.properties).not.toHaveProperty('signingSecret');
    expect(webhook.properties).toHaveProperty('url');
  });

  it("describes the payloads the relay publishes: each validates against its message's schema", () => {
    const ajv = new Ajv({ strict: false, allErrors: true });
    addFormats(ajv);
    ajv.addSchema({ components: document.components }, 'asyncapi');
    const registry = new AssetRegistry(ASSET_KINDS);
    const secrets = AssetSecretBox.ephemeral();
    let position = 0;
    const recorded = (kind: string, id: string, type: string, data: Record<string, unknown>, revision = 0): RecordedEvent => ({
      id: `00000000-0000-4000-8000-${String(++position).padStart(12, '0')}`,
      streamName: registry.streamName(kind, 'ACCOUNT00001', id),
      type,
      revision,
      position: { commit: BigInt(position), prepare: BigInt(position) },
      data,
      metadata: { accountId: 'ACCOUNT00001', actorId: 'USER00000001', correlationId: 'c', occurredAt: '2026-11-25T10:00:00.000Z' },
      recordedAt: new Date(),
    });
    const hook = {
      idWebhookConfig: 'HOOK00000001',
      webhookConfigName: 'h',
      status: 'active',
      signingSecret: secrets.encrypt('s'),
      basicAuth: { username: 'u', password: secrets.encrypt('p') },
    };
    const events = [
      recorded('webhookconfig', 'HOOK00000001', 'WebhookConfigCreated', { record: hook }),
      recorded('funnelgroup', 'GROUP0000001', 'FunnelGroupDeleted', { children: { action: 'cascade' } }, 3),
      recorded('visitortag', 'TAG000000001', 'VisitorTagMovedToCategory', { idCategory: '' }, 1),
      recorded('category', 'CAT000000001', 'CategoryUnarchived', {}, 2),
    ];
    for (const event of events) {
      const message = assetEventMessage(registry, event)!;
      const validate = ajv.getSchema(`asyncapi#/components/schemas/${event.type}Payload`)!;
      expect({ type: event.type, valid: validate(JSON.parse(JSON.stringify(message.payload))), errors: validate.errors ?? null }).toEqual({
        type: event.type,
        valid: true,
        errors: null,
      });
    }
    // And a payload of another kind does not pass as this one.
    const wrong = assetEventMessage(registry, events[2])!.payload;
    expect(ajv.getSchema('asyncapi#/components/schemas/VisitorTagMovedToCategoryPayload')!({ ...wrong, kind: 'funnel' })).toBe(false);
  });
});
