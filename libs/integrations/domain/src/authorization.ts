import { IntegrationErrorCodes, ServiceError } from '@funnel/contracts';
import type { EncryptedSecret } from '@funnel/assets-domain';

/**
 * An OAuth authorization in flight: started by a user of an account (a new connection, or the
 * reauthorization of an integration), completed once, by the same user of the same account, before
 * it expires. One stream per `state`, so the single use is an append at the revision the start left.
 */
export interface AuthorizationStarted {
  type: 'AuthorizationStarted';
  data: {
    state: string;
    accountId: string;
    userId: string;
    provider: string;
    /** The integration it connects (a new id) or reauthorizes. */
    idIntegration: string;
    purpose: 'connect' | 'reauthorize';
    integrationName: string;
    redirectUri: string;
    /** The PKCE verifier, encrypted; null when the provider takes no PKCE. */
    codeVerifier: EncryptedSecret | null;
    startedAt: string;
    expiresAt: string;
  };
}
export interface AuthorizationUsed {
  type: 'AuthorizationUsed';
  data: { state: string; usedAt: string };
}
export type AuthorizationEvent = AuthorizationStarted | AuthorizationUsed;

export const AUTHORIZATION_EVENT_TYPES: readonly AuthorizationEvent['type'][] = ['AuthorizationStarted', 'AuthorizationUsed'];

export function asAuthorizationEvent(type: string, data: Record<string, unknown>): AuthorizationEvent | undefined {
  return (AUTHORIZATION_EVENT_TYPES as readonly string[]).includes(type) ? ({ type, data } as unknown as AuthorizationEvent) : undefined;
}

export const AuthorizationStreams = {
  authorization: (state: string) => `integrationauth-${state}`,
};

export interface AuthorizationState {
  started?: AuthorizationStarted['data'];
  used: boolean;
}

export const initialAuthorizationState = (): AuthorizationState => ({ used: false });

export type AuthorizationCommand =
  { type: 'StartAuthorization'; authorization: AuthorizationStarted['data'] } | { type: 'UseAuthorization'; accountId: string; userId: string; at: string };

/** The one answer to every state that cannot be completed: it says nothing of whose it is. */
export function invalidState(): ServiceError {
  return ServiceError.badRequest(IntegrationErrorCodes.INVALID_STATE, 'state is unknown, used, expired, or not yours: start the authorization again', [
    { field: 'state', code: 'isValidState', message: 'state is unknown, used, expired, or not yours' },
  ]);
}

export function decideAuthorization(command: AuthorizationCommand, state: AuthorizationState): AuthorizationEvent[] {
  switch (command.type) {
    case 'StartAuthorization':
      if (state.started) throw ServiceError.conflict(IntegrationErrorCodes.CONFLICT, 'this state is taken');
      return [{ type: 'AuthorizationStarted', data: command.authorization }];
    case 'UseAuthorization': {
      const started = state.started;
      if (!started || state.used) throw invalidState();
      if (started.accountId !== command.accountId || started.userId !== command.userId) throw invalidState();
      if (Date.parse(command.at) >= Date.parse(started.expiresAt)) throw invalidState();
      return [{ type: 'AuthorizationUsed', data: { state: started.state, usedAt: command.at } }];
    }
    default: {
      const unknown: never = command;
      throw new Error(`unknown command ${(unknown as { type: string }).type}`);
    }
  }
}

export function evolveAuthorization(state: AuthorizationState, event: AuthorizationEvent): AuthorizationState {
  switch (event.type) {
    case 'AuthorizationStarted':
      return { started: event.data, used: false };
    case 'AuthorizationUsed':
      return { ...state, used: true };
    default: {
      const unknown: never = event;
      throw new Error(`unknown event ${(unknown as { type: string }).type}`);
    }
  }
}
