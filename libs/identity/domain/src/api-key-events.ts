import { ApiKeyIssued } from './identity-events';

/**
 * What happens to an integration API key after it is issued (stream `apikey-<keyId>`). Explicit
 * stored type names; no event carries the key itself (ApiKeyIssued holds only its digest and prefix).
 * Every event names the key and its account, so a projector needs no other lookup.
 */
export interface ApiKeyRenamed {
  type: 'ApiKeyRenamed';
  data: { keyId: string; accountId: string; name: string };
}
export interface ApiKeyPermissionsChanged {
  type: 'ApiKeyPermissionsChanged';
  data: { keyId: string; accountId: string; permissions: string[] };
}
export interface ApiKeyDisabled {
  type: 'ApiKeyDisabled';
  data: { keyId: string; accountId: string };
}
export interface ApiKeyEnabled {
  type: 'ApiKeyEnabled';
  data: { keyId: string; accountId: string };
}
/** Final: a deleted key never authenticates again and is not shown. */
export interface ApiKeyDeleted {
  type: 'ApiKeyDeleted';
  data: { keyId: string; accountId: string };
}

export type ApiKeyChange = ApiKeyRenamed | ApiKeyPermissionsChanged | ApiKeyDisabled | ApiKeyEnabled | ApiKeyDeleted;
export type ApiKeyEvent = ApiKeyIssued | ApiKeyChange;
export type ApiKeyEventType = ApiKeyEvent['type'];

export const API_KEY_EVENT_TYPES: readonly ApiKeyEventType[] = [
  'ApiKeyIssued',
  'ApiKeyRenamed',
  'ApiKeyPermissionsChanged',
  'ApiKeyDisabled',
  'ApiKeyEnabled',
  'ApiKeyDeleted',
];
export const API_KEY_EVENT_SCHEMA_VERSION = 1;

/** Events after which a credential check made earlier may be wrong: caches must forget the key. */
export const API_KEY_REVOKING_EVENTS: readonly ApiKeyEventType[] = ['ApiKeyPermissionsChanged', 'ApiKeyDisabled', 'ApiKeyDeleted'];

/** A stored event as a key event, or undefined when its type is not one (other identity streams share the log). */
export function decodeApiKeyEvent(type: string, data: Record<string, unknown>): ApiKeyEvent | undefined {
  return (API_KEY_EVENT_TYPES as readonly string[]).includes(type) ? ({ type, data } as unknown as ApiKeyEvent) : undefined;
}
