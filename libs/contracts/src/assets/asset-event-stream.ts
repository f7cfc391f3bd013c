import type { AssetKindDescriptor } from './asset-kind';

/**
 * The asset event stream for internal services: every asset event, as the relay of the assets
 * service publishes it to JetStream. The subjects, the payload and the stream's name are the
 * contract; the AsyncAPI document (`GET /v1/asyncapi.json`) is generated from these definitions.
 */

/** The JetStream stream holding the asset events. */
export const ASSET_EVENTS_STREAM = 'ASSET_EVENTS';
/** Every asset event subject starts with this: `assets.events.<kind>.<EventType>`. */
export const ASSET_EVENTS_SUBJECT_ROOT = 'assets.events';
/** The stream's subjects. */
export const ASSET_EVENTS_SUBJECTS = `${ASSET_EVENTS_SUBJECT_ROOT}.>`;
/** The KV bucket of the relay: its checkpoint and which replica holds the lease. */
export const ASSET_EVENTS_RELAY_BUCKET = 'ASSET_EVENTS_RELAY';

/**
 * The facts every asset kind's events are made of: a stored type is the kind's `eventPrefix` plus
 * one of them (`FunnelUpdated`). The domain's decider emits exactly these (a test keeps them equal).
 */
export const ASSET_EVENT_FACTS = [
  'Created',
  'DuplicatePlanned',
  'DuplicateDecided',
  'Updated',
  'Archived',
  'Unarchived',
  'Deleted',
  'MovedToCategory',
] as const;
export type AssetEventFact = (typeof ASSET_EVENT_FACTS)[number];

/** The stored event types of one kind (`FunnelCreated`, `FunnelUpdated`, ...). */
export function assetEventTypesOf(kind: AssetKindDescriptor): string[] {
  return ASSET_EVENT_FACTS.map((fact) => `${kind.eventPrefix}${fact}`);
}

/** `assets.events.<kind>.<EventType>`, e.g. `assets.events.funnel.FunnelUpdated`. */
export function assetEventSubject(kind: string, eventType: string): string {
  return `${ASSET_EVENTS_SUBJECT_ROOT}.${kind}.${eventType}`;
}

/** Who caused an event: the user, and the API key when the request came with one. */
export interface AssetEventActor {
  userId: string | null;
  keyId: string | null;
}

/**
 * One message of the stream (its `Nats-Msg-Id` header is `eventId`). `data` is the stored event's
 * data with the kind's write-only secrets removed: a `Created`/`Updated` carries `{ record }` (the
 * full record, its `has<Field>` flags set, never a secret's value nor its ciphertext), `Archived`,
 * `Unarchived` and `Deleted` may carry `{ children }` (a parent's), an `Archived` by a parent's
 * cascade `{ cascadedFrom: { kind, id } }`, `MovedToCategory` carries `{ idCategory }`, and
 * `DuplicateDecided` (the first event of a duplicate that copies several assets: the copy does not
 * exist yet, its `Created` follows) carries `{ duplicatedFrom, copies: [{ kind, id, duplicatedFrom,
 * record }] }`, each copy's record without secrets as in `Created`. A decision too large for one
 * event is written in parts first: `DuplicatePlanned` `{ part, copies }` (part 0, 1, ...), then the
 * `DuplicateDecided` with `parts` (their number) holding the last part's copies.
 */
export interface AssetEventMessage {
  eventId: string;
  /** The stored type, e.g. `FunnelUpdated`. */
  type: string;
  kind: string;
  accountId: string;
  assetId: string;
  /** 0-based revision of the event in the asset's stream: consecutive per asset. */
  revision: number;
  /** The event's global position in the log, `<commit>/<prepare>` (ordered as the log is). */
  position: string;
  /** ISO 8601. */
  occurredAt: string;
  actor: AssetEventActor;
  correlationId: string | null;
  data: Record<string, unknown>;
}
