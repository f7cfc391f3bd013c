import { ServiceError } from '@funnel/contracts';
import {
  AuthorizationCommand,
  AuthorizationEvent,
  AuthorizationStarted,
  decideAuthorization,
  evolveAuthorization,
  initialAuthorizationState,
} from './authorization';

const started: AuthorizationStarted = {
  type: 'AuthorizationStarted',
  data: {
    state: 'STATE',
    accountId: 'ACCOUNT0000A',
    userId: 'USER00000001',
    provider: 'meta',
    idIntegration: 'INTEGRATION1',
    purpose: 'connect',
    integrationName: 'Meta',
    redirectUri: 'https://app.example.com/integrations/callback',
    codeVerifier: null,
    startedAt: '2026-01-01T00:00:00.000Z',
    expiresAt: '2026-01-01T00:10:00.000Z',
  },
};
const use = (over: Partial<Extract<AuthorizationCommand, { type: 'UseAuthorization' }>> = {}): AuthorizationCommand => ({
  type: 'UseAuthorization',
  accountId: 'ACCOUNT0000A',
  userId: 'USER00000001',
  at: '2026-01-01T00:09:59.000Z',
  ...over,
});
const stateOf = (...events: AuthorizationEvent[]) => events.reduce(evolveAuthorization, initialAuthorizationState());
const codeOf = (fn: () => unknown): string | undefined => {
  try {
    fn();
  } catch (error) {
    return error instanceof ServiceError ? error.code : 'not a ServiceError';
  }
  return undefined;
};

describe('OAuth authorization (state) decider', () => {
  it('starts once per state', () => {
    expect(decideAuthorization({ type: 'StartAuthorization', authorization: started.data }, stateOf())).toEqual([started]);
    expect(codeOf(() => decideAuthorization({ type: 'StartAuthorization', authorization: started.data }, stateOf(started)))).toBe(
      'INTEGRATION.CONCURRENT_MODIFICATION',
    );
  });

  it('is used once, by the user and account that started it, before it expires', () => {
    const used = decideAuthorization(use(), stateOf(started));
    expect(used).toEqual([{ type: 'AuthorizationUsed', data: { state: 'STATE', usedAt: '2026-01-01T00:09:59.000Z' } }]);
    expect(codeOf(() => decideAuthorization(use(), stateOf(started, ...used)))).toBe('INTEGRATION.INVALID_STATE');
  });

  it.each([
    ['an unknown state', stateOf(), use()],
    ['another account', stateOf(started), use({ accountId: 'ACCOUNT0000B' })],
    ['another user of the account', stateOf(started), use({ userId: 'USER00000002' })],
    ['an expired state (10 minutes)', stateOf(started), use({ at: '2026-01-01T00:10:00.000Z' })],
  ])('refuses %s with the same answer', (_what, state, command) => {
    expect(codeOf(() => decideAuthorization(command, state))).toBe('INTEGRATION.INVALID_STATE');
  });
});
