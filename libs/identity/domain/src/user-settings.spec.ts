import { ServiceError, USER_SETTINGS_MAX_BYTES } from '@funnel/contracts';
import { UserSettingsCommand, UserSettingsEvent, checkUserSettings, decideUserSettings, evolveUserSettings, initialUserSettingsState } from './user-settings';

const who = { accountId: 'ACCOUNT00001', userId: 'USER00000001' };
/** An object whose JSON text is exactly `bytes` bytes: `{"v":"…"}` is 8 bytes plus the string. */
const ofSize = (bytes: number, fill = 'x') => ({ v: fill.repeat((bytes - 8) / Buffer.byteLength(fill)) });

function failureOf(run: () => unknown): ServiceError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ServiceError);
    return error as ServiceError;
  }
  throw new Error('expected a failure');
}

/** given(events).when(command).then(events) */
const given = (events: UserSettingsEvent[]) => ({
  when: (command: UserSettingsCommand) => ({
    then: (expected: UserSettingsEvent[]) =>
      expect(decideUserSettings(command, events.reduce(evolveUserSettings, initialUserSettingsState()))).toEqual(expected),
  }),
});

describe('user settings rule', () => {
  it('accepts any JSON object and returns its JSON text', () => {
    expect(checkUserSettings({})).toBe('{}');
    expect(checkUserSettings({ theme: 'dark', columns: [1, 2], nested: { a: null } })).toBe('{"theme":"dark","columns":[1,2],"nested":{"a":null}}');
  });

  it.each([
    ['an array', []],
    ['a string', 'settings'],
    ['a number', 42],
    ['a boolean', true],
    ['null', null],
    ['nothing', undefined],
  ])('refuses %s with 400 REQUEST.VALIDATION_FAILED', (_what, value) => {
    const error = failureOf(() => checkUserSettings(value));
    expect(error).toMatchObject({ status: 400, code: 'REQUEST.VALIDATION_FAILED' });
  });

  it('accepts exactly the limit and refuses one byte more with 413 SETTINGS.TOO_LARGE', () => {
    expect(USER_SETTINGS_MAX_BYTES).toBe(65536);
    expect(Buffer.byteLength(checkUserSettings(ofSize(USER_SETTINGS_MAX_BYTES)))).toBe(USER_SETTINGS_MAX_BYTES);
    const error = failureOf(() => checkUserSettings(ofSize(USER_SETTINGS_MAX_BYTES + 1)));
    expect(error).toMatchObject({
      status: 413,
      code: 'SETTINGS.TOO_LARGE',
      details: [
        { field: '', code: 'maxBytes', message: `settings are ${USER_SETTINGS_MAX_BYTES + 1} bytes as JSON; at most ${USER_SETTINGS_MAX_BYTES} are allowed` },
      ],
    });
  });

  it('counts UTF-8 bytes, not characters', () => {
    // 'é' is 2 bytes: (65536 - 8) / 2 of them fill the limit exactly, one more character is over.
    const atLimit = ofSize(USER_SETTINGS_MAX_BYTES, 'é');
    expect(() => checkUserSettings(atLimit)).not.toThrow();
    expect(failureOf(() => checkUserSettings({ v: `${atLimit.v}é` })).status).toBe(413);
    expect(failureOf(() => checkUserSettings({ v: 'é'.repeat(USER_SETTINGS_MAX_BYTES / 2) })).status).toBe(413);
  });

  it('measures the canonical JSON text (escapes count as written by JSON.stringify)', () => {
    // A newline is 2 bytes once escaped as \n.
    expect(failureOf(() => checkUserSettings({ v: '\n'.repeat((USER_SETTINGS_MAX_BYTES - 8) / 2 + 1) })).status).toBe(413);
    expect(() => checkUserSettings({ v: '\n'.repeat((USER_SETTINGS_MAX_BYTES - 8) / 2) })).not.toThrow();
  });
});

describe('user settings decider', () => {
  const saved = (settings: Record<string, unknown>): UserSettingsEvent => ({ type: 'UserSettingsSaved', data: { ...who, settings } });
  const deleted: UserSettingsEvent = { type: 'UserSettingsDeleted', data: who };

  it('a save records the whole object', () =>
    given([])
      .when({ type: 'SaveUserSettings', ...who, settings: { a: 1 } })
      .then([saved({ a: 1 })]));
  it('a save replaces what was saved', () =>
    given([saved({ a: 1 })])
      .when({ type: 'SaveUserSettings', ...who, settings: { b: 2 } })
      .then([saved({ b: 2 })]));
  it('a delete of saved settings records it', () =>
    given([saved({ a: 1 })])
      .when({ type: 'DeleteUserSettings', ...who })
      .then([deleted]));
  it('a delete with nothing saved records nothing', () =>
    given([])
      .when({ type: 'DeleteUserSettings', ...who })
      .then([]));
  it('a repeated delete records nothing', () =>
    given([saved({ a: 1 }), deleted])
      .when({ type: 'DeleteUserSettings', ...who })
      .then([]));
  it('a refused save records nothing', () => {
    expect(() => decideUserSettings({ type: 'SaveUserSettings', ...who, settings: [1] }, initialUserSettingsState())).toThrow(ServiceError);
  });
  it("the event holds a copy of what was checked, not the caller's object", () => {
    const settings = { a: { b: 1 } };
    const [event] = decideUserSettings({ type: 'SaveUserSettings', ...who, settings }, initialUserSettingsState());
    settings.a.b = 2;
    expect(event).toEqual(saved({ a: { b: 1 } }));
  });
});
