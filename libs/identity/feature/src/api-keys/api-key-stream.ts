import { EventStore, RecordedEvent } from '@funnel/eventstore';
import { ApiKeyState, IdentityStreams, decodeApiKeyEvent, evolveApiKey, initialApiKeyState } from '@funnel/identity-domain';

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
