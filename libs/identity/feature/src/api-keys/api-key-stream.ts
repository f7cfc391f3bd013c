import { EventStore, GlobalPosition, RecordedEvent, WrongExpectedRevisionError } from '@funnel/eventstore';
import {
  ApiKeyDigestReserved,
  ApiKeyState,
  IdentityStreams,
  decodeApiKeyEvent,
  evolveApiKey,
  initialApiKeyState,
  legacyApiKeyIdOf,
} from '@funnel/identity-domain';

export interface LoadedApiKey {
  state: ApiKeyState;
  /** Last stream revision, -1 when the stream does not exist. */
  revision: number;
  /** When the key was issued (ISO 8601), '' when the stream does not exist. */
  createdAt: string;
}

export const occurredAtOf = (e: RecordedEvent): string => (typeof e.metadata?.occurredAt === 'string' ? e.metadata.occurredAt : e.recordedAt.toISOString());

/** Reads a key's stream (`apikey-<keyId>`) and folds it: the state commands decide on. */
export async function loadApiKey(eventStore: EventStore, keyId: string): Promise<LoadedApiKey> {
  const recorded = await eventStore.readStream(IdentityStreams.apiKey(keyId));
  let state = initialApiKeyState();
  let createdAt = '';
  for (const e of recorded) {
    const event = decodeApiKeyEvent(e.type, e.data);
    if (!event) continue;
    if (event.type === 'ApiKeyIssued') createdAt = occurredAtOf(e);
    state = evolveApiKey(state, event);
  }
  return { state, revision: recorded.length ? recorded[recorded.length - 1].revision : -1, createdAt };
}

/**
 * The id of the key with this digest: the one its claim (`apikeydigest-<digest>`) names, or for a
 * key issued before ids were random, which has no claim, the legacy id derived from the digest.
 * The caller still compares the digest in the key's stream.
 */
export async function apiKeyIdByDigest(eventStore: EventStore, digest: string): Promise<string> {
  return (await claimedApiKeyId(eventStore, digest)) ?? legacyApiKeyIdOf(digest);
}

async function claimedApiKeyId(eventStore: EventStore, digest: string): Promise<string | undefined> {
  const claim = await eventStore.readStream(IdentityStreams.apiKeyDigest(digest), { maxCount: 1 });
  const keyId = (claim[0]?.data as ApiKeyDigestReserved['data'] | undefined)?.keyId;
  return typeof keyId === 'string' ? keyId : undefined;
}

/**
 * Claims a digest for `keyId` before the key's stream is written, so the key is found from itself
 * alone. When the digest is claimed already (a repeated bootstrap with the same key), answers the
 * id it was claimed for; a key issued before ids were random keeps its legacy id.
 */
export async function reserveApiKeyDigest(
  eventStore: EventStore,
  digest: string,
  keyId: string,
  metadata: Record<string, unknown>,
): Promise<{ keyId: string; position?: GlobalPosition }> {
  const legacy = await loadApiKey(eventStore, legacyApiKeyIdOf(digest));
  if (legacy.state.key?.digest === digest) return { keyId: legacy.state.key.keyId };
  const reserved: ApiKeyDigestReserved = { type: 'ApiKeyDigestReserved', data: { keyId } };
  try {
    const { position } = await eventStore.append(IdentityStreams.apiKeyDigest(digest), [{ ...reserved, metadata }], { expectedRevision: 'no_stream' });
    return { keyId, position };
  } catch (error) {
    if (!(error instanceof WrongExpectedRevisionError)) throw error;
    const claimed = await claimedApiKeyId(eventStore, digest);
    if (!claimed) throw error;
    return { keyId: claimed };
  }
}
