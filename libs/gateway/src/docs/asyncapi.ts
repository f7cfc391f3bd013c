import { getMetadataStorage } from 'class-validator';
import {
  ASSET_EVENTS_STREAM,
  ASSET_EVENT_FACTS,
  ASSET_KINDS,
  ASSET_STATUSES,
  type AssetEventFact,
  type AssetKindDescriptor,
  assetEventSubject,
} from '@funnel/contracts';

type Schema = Record<string, unknown>;

/** The AsyncAPI 3 document served at `GET /v1/asyncapi.json`. */
export interface AsyncApiDocument {
  asyncapi: '3.0.0';
  info: { title: string; version: string; description: string };
  defaultContentType: string;
  servers: Record<string, { host: string; protocol: string; description: string }>;
  channels: Record<string, { address: string; title: string; description: string; messages: Record<string, { $ref: string }> }>;
  operations: Record<string, { action: 'send' | 'receive'; title: string; channel: { $ref: string }; messages: { $ref: string }[] }>;
  components: { schemas: Record<string, Schema>; messages: Record<string, Schema> };
}

const FACT_DESCRIPTIONS: Record<AssetEventFact, string> = {
  Created: 'The asset was created (or duplicated from another, named by duplicatedFrom); data.record is the full record.',
  DuplicatePlanned:
    'A part of the plan of a duplicate too large for one event (data.part: 0, 1, ...; data.copies: the copies it holds, in creation order), before its DuplicateDecided: the copy does not exist yet, and parts not followed by a DuplicateDecided (cut short) never take effect.',
  DuplicateDecided:
    "A duplicate that copies several assets was decided (the first event of the copy, which does not exist yet, after its DuplicatePlanned parts when it has data.parts): its parts' copies, then data.copies, list every copy in the order they are created, each followed by its own Created event.",
  Updated: 'The asset was saved; data.record is the full record after the save (an update replaces the record).',
  Archived:
    "The asset was archived; a parent (category, funnel group, funnel) names what happens to its children in data.children; a child archived by its parent's cascade names that parent in data.cascadedFrom.",
  Unarchived:
    "The asset was unarchived; a parent's data.children (cascade) restores the children its archive archived in cascade (those whose Archived named it in cascadedFrom).",
  Deleted: 'The asset was deleted; a parent names what happens to its children in data.children.',
  MovedToCategory: 'The asset was moved to the category data.idCategory ("" = uncategorized).',
};

const CHILDREN_DECISION: Schema = {
  type: 'object',
  description: "What happens to a parent's children: cascade (the same operation on each), move (to targetParentID), orphan, untouched.",
  required: ['action'],
  properties: { action: { type: 'string', enum: ['cascade', 'move', 'orphan', 'untouched'] }, targetParentID: { type: 'string' } },
};

/** The copies of a duplicate's plan, in creation order. */
const PLANNED_COPIES: Schema = {
  type: 'array',
  items: {
    type: 'object',
    required: ['kind', 'id', 'duplicatedFrom', 'record'],
    properties: {
      kind: { type: 'string' },
      id: { type: 'string' },
      duplicatedFrom: { type: 'string' },
      record: { type: 'object', description: "The copy's record (of its kind), without secrets." },
    },
  },
};

/** The envelope every message shares (the event's own fields), see AssetEventMessage in @funnel/contracts. */
const ENVELOPE: Schema = {
  type: 'object',
  required: ['eventId', 'type', 'kind', 'accountId', 'assetId', 'revision', 'position', 'occurredAt', 'actor', 'correlationId', 'data'],
  properties: {
    eventId: { type: 'string', description: 'The event id (a UUID); also the Nats-Msg-Id header.' },
    type: { type: 'string', description: "The stored event type: the kind's prefix and the fact, e.g. FunnelUpdated." },
    kind: { type: 'string', description: 'The asset kind, e.g. funnel.' },
    accountId: { type: 'string', description: 'The account the asset belongs to.' },
    assetId: { type: 'string', description: "The asset id (the record's id field)." },
    revision: { type: 'integer', minimum: 0, description: "The event's revision in the asset's stream: 0, 1, 2... per asset, in stream order." },
    position: { type: 'string', pattern: '^-?\\d+/-?\\d+$', description: "The event's position in the log, <commit>/<prepare>: increases along the stream." },
    occurredAt: { type: 'string', format: 'date-time' },
    actor: {
      type: 'object',
      required: ['userId', 'keyId'],
      properties: { userId: { type: ['string', 'null'] }, keyId: { type: ['string', 'null'], description: 'The API key, when the change came with one.' } },
    },
    correlationId: { type: ['string', 'null'], description: 'The X-Correlation-Id of the request that made the change.' },
    data: { type: 'object' },
  },
};

/** The properties a kind's DTO validates (class-validator's metadata), so the record schema follows the DTO. */
function dtoProperties(dto: new () => object): string[] {
  const metadata = getMetadataStorage().getTargetValidationMetadatas(dto, '', true, false);
  return [...new Set(metadata.map((m) => m.propertyName))];
}

/** A kind's record as the events carry it: loosely typed (see /v1/openapi.json for the field rules), secrets removed, flags added. */
function recordSchema(kind: AssetKindDescriptor): Schema {
  const secrets = kind.secretFields ?? [];
  const topLevelSecrets = new Set(secrets.map((s) => s.path).filter((path) => !path.includes('.') && !path.includes('[]')));
  const properties: Record<string, Schema> = {};
  for (const name of dtoProperties(kind.recordDto)) if (!topLevelSecrets.has(name)) properties[name] = {};
  properties[kind.idField] = { type: 'string' };
  properties[kind.nameField] = { type: 'string' };
  properties['status'] = { type: 'string', enum: [...ASSET_STATUSES] };
  for (const secret of secrets)
    if (secret.flag) properties[secret.flag] = { type: 'boolean', description: `Whether a ${secret.path} is stored (its value never leaves).` };
  const withoutSecrets = secrets.length ? ` Write-only secrets (${secrets.map((s) => s.path).join(', ')}) are removed.` : '';
  return {
    type: 'object',
    description: `A ${kind.kind} record as GET /v1${kind.paths[0]}/find/byId/ answers it (field rules in /v1/openapi.json).${withoutSecrets}`,
    required: [kind.idField, 'status'],
    properties,
    additionalProperties: true,
  };
}

function dataSchema(kind: AssetKindDescriptor, fact: AssetEventFact): Schema {
  const record = { $ref: `#/components/schemas/${recordSchemaName(kind)}` };
  switch (fact) {
    case 'Created':
      return {
        type: 'object',
        required: ['record'],
        properties: { record, duplicatedFrom: { type: 'string', description: 'The id of the asset it was duplicated from.' } },
      };
    case 'DuplicatePlanned':
      return {
        type: 'object',
        required: ['part', 'copies'],
        properties: { part: { type: 'integer', minimum: 0, description: 'The part number, 0 for the first.' }, copies: PLANNED_COPIES },
      };
    case 'DuplicateDecided':
      return {
        type: 'object',
        required: ['duplicatedFrom', 'copies'],
        properties: {
          duplicatedFrom: { type: 'string', description: 'The id of the asset duplicated.' },
          parts: {
            type: 'integer',
            minimum: 1,
            description:
              "Set when the plan was written in parts: how many DuplicatePlanned events precede this one in the copy's stream (data.copies is the last part).",
          },
          copies: PLANNED_COPIES,
        },
      };
    case 'Updated':
      return { type: 'object', required: ['record'], properties: { record } };
    case 'Archived':
      return {
        type: 'object',
        properties: {
          children: { $ref: '#/components/schemas/ChildrenDecision' },
          cascadedFrom: {
            type: 'object',
            description: 'The parent whose archive in cascade archived this asset (its unarchive restores it); absent when archived on its own.',
            required: ['kind', 'id'],
            properties: { kind: { type: 'string' }, id: { type: 'string' } },
          },
        },
      };
    case 'Deleted':
    case 'Unarchived':
      return { type: 'object', properties: { children: { $ref: '#/components/schemas/ChildrenDecision' } } };
    case 'MovedToCategory':
      return { type: 'object', required: ['idCategory'], properties: { idCategory: { type: 'string' } } };
  }
}

const recordSchemaName = (kind: AssetKindDescriptor) => `${kind.eventPrefix}Record`;

/**
 * The asset event stream as an AsyncAPI 3 document, generated from the kind registry and the event
 * facts: one channel per kind and event type (its address is the subject), one receive operation
 * per channel, one message per event type with the envelope and its data.
 */
export function asyncApiDocument(kinds: readonly AssetKindDescriptor[] = ASSET_KINDS): AsyncApiDocument {
  const document: AsyncApiDocument = {
    asyncapi: '3.0.0',
    info: {
      title: 'funnel-service asset events',
      version: '1.0.0',
      description: [
        `Every asset event, published by the assets service to the JetStream stream ${ASSET_EVENTS_STREAM} on assets.events.<kind>.<EventType>`,
        'with the header Nats-Msg-Id = eventId. At least once; in order per asset (revision 0, 1, 2...); a copy sent again within the',
        "stream's duplicate window (ASSET_EVENTS_DUPLICATE_WINDOW, 2 minutes by default) is dropped by JetStream. Kept ASSET_EVENTS_MAX_AGE",
        '(7 days by default). Write-only secrets never appear; their has<Field> flags do. Read it with a JetStream consumer (see README "Asset events").',
      ].join(' '),
    },
    defaultContentType: 'application/json',
    servers: {
      nats: {
        host: 'nats:4222',
        protocol: 'nats',
        description: 'The NATS cluster of the deployment (NATS_URL), with JetStream; readers need a user with the reader permissions.',
      },
    },
    channels: {},
    operations: {},
    components: { schemas: { AssetEventEnvelope: ENVELOPE, ChildrenDecision: CHILDREN_DECISION }, messages: {} },
  };
  for (const kind of kinds) {
    document.components.schemas[recordSchemaName(kind)] = recordSchema(kind);
    for (const fact of ASSET_EVENT_FACTS) {
      const type = `${kind.eventPrefix}${fact}`;
      document.components.schemas[`${type}Payload`] = {
        allOf: [
          { $ref: '#/components/schemas/AssetEventEnvelope' },
          { type: 'object', properties: { type: { const: type }, kind: { const: kind.kind }, data: dataSchema(kind, fact) } },
        ],
      };
      document.components.messages[type] = {
        name: type,
        title: `${kind.kind} ${fact}`,
        summary: FACT_DESCRIPTIONS[fact],
        contentType: 'application/json',
        headers: { type: 'object', required: ['Nats-Msg-Id'], properties: { 'Nats-Msg-Id': { type: 'string', description: 'The event id.' } } },
        payload: { $ref: `#/components/schemas/${type}Payload` },
      };
      document.channels[type] = {
        address: assetEventSubject(kind.kind, type),
        title: type,
        description: FACT_DESCRIPTIONS[fact],
        messages: { [type]: { $ref: `#/components/messages/${type}` } },
      };
      document.operations[`receive${type}`] = {
        action: 'receive',
        title: `Receive ${type}`,
        channel: { $ref: `#/channels/${type}` },
        messages: [{ $ref: `#/channels/${type}/messages/${type}` }],
      };
    }
  }
  return document;
}
