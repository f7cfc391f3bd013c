import { AssetEventMessage, SecretField, assetEventSubject } from '@funnel/contracts';
import { RecordedEvent, positionToString } from '@funnel/eventstore';
import { AssetRecord, AssetRegistry, maskSecrets } from '@funnel/assets-domain';

/** A message ready to publish: its subject, its `Nats-Msg-Id` and its JSON payload. */
export interface OutgoingAssetEvent {
  subject: string;
  msgId: string;
  payload: AssetEventMessage;
}

/**
 * The stream message of a stored asset event, or undefined for an event of no asset kind (the
 * subscription filters by the kinds' stream prefixes, so only a malformed stream name gives one).
 * Records are read in today's shape (renamed fields) and lose every write-only secret of their kind
 * (the descriptor's `secretFields`, list items included), keeping the `has<Field>` flags.
 */
export function assetEventMessage(registry: AssetRegistry, event: RecordedEvent): OutgoingAssetEvent | undefined {
  const stream = registry.parseStreamName(event.streamName);
  if (!stream) return undefined;
  const descriptor = registry.get(stream.kind);
  const decoded = registry.decodeEvent(stream.kind, event.type, event.data);
  let data = (decoded?.data ?? event.data) as Record<string, unknown>;
  const record = data['record'];
  if (isRecord(record) && descriptor.secretFields?.length) {
    data = { ...data, record: withoutSecrets(record as AssetRecord, descriptor.secretFields) };
  }
  // A duplicate's decision carries the records of its copies, of several kinds.
  const copies = data['copies'];
  if (Array.isArray(copies)) data = { ...data, copies: copies.map((copy) => copyWithoutSecrets(registry, copy)) };
  const metadata = event.metadata;
  return {
    subject: assetEventSubject(stream.kind, event.type),
    msgId: event.id,
    payload: {
      eventId: event.id,
      type: event.type,
      kind: stream.kind,
      accountId: stream.accountId,
      assetId: stream.id,
      revision: event.revision,
      position: positionToString(event.position),
      occurredAt: typeof metadata.occurredAt === 'string' ? metadata.occurredAt : event.recordedAt.toISOString(),
      actor: { userId: textOrNull(metadata.actorId), keyId: textOrNull(metadata['keyId']) },
      correlationId: textOrNull(metadata.correlationId),
      data,
    },
  };
}

function copyWithoutSecrets(registry: AssetRegistry, copy: unknown): unknown {
  if (!isRecord(copy) || typeof copy['kind'] !== 'string' || !isRecord(copy['record']) || !registry.has(copy['kind'])) return copy;
  const fields = registry.get(copy['kind']).secretFields;
  return fields?.length ? { ...copy, record: withoutSecrets(copy['record'] as AssetRecord, fields) } : copy;
}

const hiddenFieldsCache = new WeakMap<readonly SecretField[], SecretField[]>();

/** The record with every secret removed (not even the placeholder) and each flag telling whether one is stored. */
export function withoutSecrets(record: AssetRecord, fields: readonly SecretField[]): AssetRecord {
  let hidden = hiddenFieldsCache.get(fields);
  if (!hidden) hiddenFieldsCache.set(fields, (hidden = fields.map((field) => ({ ...field, hidden: true }))));
  return maskSecrets(record, hidden);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function textOrNull(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? value : null;
}
