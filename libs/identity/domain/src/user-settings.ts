import { ErrorCodes, ServiceError, USER_SETTINGS_MAX_BYTES } from '@funnel/contracts';

/**
 * User settings: one JSON object per user, owned by the user's account. The whole object is
 * replaced on every save; a delete leaves "nothing saved" (a read answers `{}`).
 */
export type UserSettings = Record<string, unknown>;

/** Stored event type names (explicit strings, never derived from class names). */
export interface UserSettingsSaved {
  type: 'UserSettingsSaved';
  data: { accountId: string; userId: string; settings: UserSettings };
}
export interface UserSettingsDeleted {
  type: 'UserSettingsDeleted';
  data: { accountId: string; userId: string };
}
export type UserSettingsEvent = UserSettingsSaved | UserSettingsDeleted;

export const USER_SETTINGS_EVENT_SCHEMA_VERSION = 1;

/** One stream per user: `usersettings-<userId>`. */
export const UserSettingsStreams = {
  settings: (userId: string) => `usersettings-${userId}`,
  prefixes: ['usersettings-'],
};

/** Whether the user has settings saved (what a delete decides on). */
export interface UserSettingsState {
  saved: boolean;
}

export const initialUserSettingsState = (): UserSettingsState => ({ saved: false });

export type UserSettingsCommand =
  { type: 'SaveUserSettings'; accountId: string; userId: string; settings: unknown } | { type: 'DeleteUserSettings'; accountId: string; userId: string };

/** The UTF-8 size of the settings' JSON text, which is what the limit counts. */
export function userSettingsSize(json: string): number {
  return Buffer.byteLength(json, 'utf8');
}

/**
 * Checks a settings value: a JSON object (not an array, string, number, null or nothing) whose
 * JSON text is at most USER_SETTINGS_MAX_BYTES UTF-8 bytes. Returns that JSON text. The size is
 * measured on the value's canonical serialization (JSON.stringify of what was parsed), so
 * insignificant whitespace a client sent does not count.
 */
export function checkUserSettings(value: unknown): string {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw ServiceError.badRequest(ErrorCodes.VALIDATION, 'settings must be a JSON object', [
      { field: '', code: 'isObject', message: 'settings must be a JSON object' },
    ]);
  }
  const json = JSON.stringify(value);
  const size = userSettingsSize(json);
  if (size > USER_SETTINGS_MAX_BYTES) {
    const message = `settings are ${size} bytes as JSON; at most ${USER_SETTINGS_MAX_BYTES} are allowed`;
    throw new ServiceError(413, ErrorCodes.SETTINGS_TOO_LARGE, message, [{ field: '', code: 'maxBytes', message }]);
  }
  return json;
}

/**
 * Decides the events of a settings command. Pure. A save always records the new object (it
 * replaces whatever was there); a delete records a fact only when settings are saved, so
 * repeating it changes nothing.
 */
export function decideUserSettings(command: UserSettingsCommand, state: UserSettingsState): UserSettingsEvent[] {
  switch (command.type) {
    case 'SaveUserSettings': {
      const json = checkUserSettings(command.settings);
      // A copy from the checked text: the event holds exactly what was measured.
      const settings = JSON.parse(json) as UserSettings;
      return [{ type: 'UserSettingsSaved', data: { accountId: command.accountId, userId: command.userId, settings } }];
    }
    case 'DeleteUserSettings':
      return state.saved ? [{ type: 'UserSettingsDeleted', data: { accountId: command.accountId, userId: command.userId } }] : [];
    default: {
      const unknown: never = command;
      throw new Error(`unknown command ${(unknown as { type: string }).type}`);
    }
  }
}

export function evolveUserSettings(_state: UserSettingsState, event: UserSettingsEvent): UserSettingsState {
  switch (event.type) {
    case 'UserSettingsSaved':
      return { saved: true };
    case 'UserSettingsDeleted':
      return { saved: false };
    default: {
      const unknown: never = event;
      throw new Error(`unknown event ${(unknown as { type: string }).type}`);
    }
  }
}

/** Narrows a stored event to a settings event (other types in the stream are ignored). */
export function asUserSettingsEvent(type: string, data: Record<string, unknown>): UserSettingsEvent | undefined {
  return type === 'UserSettingsSaved' || type === 'UserSettingsDeleted' ? ({ type, data } as UserSettingsEvent) : undefined;
}
