import { IntegrationErrorCodes, IntegrationStatus, IntegrationView, ServiceError } from '@funnel/contracts';
import type { EncryptedSecret } from '@funnel/assets-domain';
import type { AdAccount } from './ad-platform';

/** An integration's tokens as stored: encrypted (write-only secrets), never in an answer, log or event in clear. */
export interface StoredTokens {
  accessToken: EncryptedSecret;
  refreshToken: EncryptedSecret | null;
}

export interface GoalLink {
  adAccountId: string;
  goalId: string;
  goalName: string;
  goalType: string;
  idTrafficSource: string;
  eventName: string | null;
  clickIdField: string;
}

/** One integration of an account, as its stream tells it. */
export interface IntegrationRecord {
  idIntegration: string;
  accountId: string;
  provider: string;
  integrationName: string;
  status: IntegrationStatus;
  lastError: string | null;
  expiresAt: string | null;
  scopes: string[];
  createdAt: string;
  tokens: StoredTokens;
  adAccounts: AdAccount[];
  /** Ad account id -> the traffic source it is linked to. */
  adAccountLinks: Record<string, string>;
  goalLinks: GoalLink[];
}

/** What a connect, a reauthorization or a refresh hands over (tokens already encrypted). */
export interface Grant {
  tokens: StoredTokens;
  expiresAt: string | null;
  scopes: string[];
}

interface Base {
  idIntegration: string;
  accountId: string;
}
export interface IntegrationConnected {
  type: 'IntegrationConnected';
  data: Base & Grant & { provider: string; integrationName: string; adAccounts: AdAccount[]; connectedAt: string; connectedBy: string };
}
export interface IntegrationReauthorized {
  type: 'IntegrationReauthorized';
  data: Base & Grant & { adAccounts: AdAccount[]; reauthorizedAt: string; reauthorizedBy: string };
}
export interface IntegrationTokensRefreshed {
  type: 'IntegrationTokensRefreshed';
  data: Base & Grant & { refreshedAt: string };
}
export interface IntegrationRenamed {
  type: 'IntegrationRenamed';
  data: Base & { integrationName: string; renamedAt: string };
}
export interface IntegrationStatusChanged {
  type: 'IntegrationStatusChanged';
  data: Base & { status: IntegrationStatus; lastError: string | null; changedAt: string };
}
export interface IntegrationAdAccountsListed {
  type: 'IntegrationAdAccountsListed';
  data: Base & { adAccounts: AdAccount[]; listedAt: string };
}
export interface AdAccountLinked {
  type: 'AdAccountLinked';
  data: Base & { adAccountId: string; idTrafficSource: string; linkedAt: string };
}
export interface AdAccountUnlinked {
  type: 'AdAccountUnlinked';
  data: Base & { adAccountId: string; unlinkedAt: string };
}
export interface ConversionGoalLinked {
  type: 'ConversionGoalLinked';
  data: Base & GoalLink & { linkedAt: string };
}
export interface ConversionGoalUnlinked {
  type: 'ConversionGoalUnlinked';
  data: Base & { adAccountId: string; goalId: string; unlinkedAt: string };
}
export interface IntegrationDeleted {
  type: 'IntegrationDeleted';
  data: Base & { deletedAt: string; revoked: boolean };
}

export type IntegrationEvent =
  | IntegrationConnected
  | IntegrationReauthorized
  | IntegrationTokensRefreshed
  | IntegrationRenamed
  | IntegrationStatusChanged
  | IntegrationAdAccountsListed
  | AdAccountLinked
  | AdAccountUnlinked
  | ConversionGoalLinked
  | ConversionGoalUnlinked
  | IntegrationDeleted;

export const INTEGRATION_EVENT_SCHEMA_VERSION = 1;

/** Stored event type names (explicit strings). */
export const INTEGRATION_EVENT_TYPES: readonly IntegrationEvent['type'][] = [
  'IntegrationConnected',
  'IntegrationReauthorized',
  'IntegrationTokensRefreshed',
  'IntegrationRenamed',
  'IntegrationStatusChanged',
  'IntegrationAdAccountsListed',
  'AdAccountLinked',
  'AdAccountUnlinked',
  'ConversionGoalLinked',
  'ConversionGoalUnlinked',
  'IntegrationDeleted',
];

export function asIntegrationEvent(type: string, data: Record<string, unknown>): IntegrationEvent | undefined {
  return (INTEGRATION_EVENT_TYPES as readonly string[]).includes(type) ? ({ type, data } as unknown as IntegrationEvent) : undefined;
}

/** One stream per integration of an account: `integration-<accountId>.<idIntegration>`. */
export const IntegrationStreams = {
  integration: (accountId: string, idIntegration: string) => `integration-${accountId}.${idIntegration}`,
  prefixes: ['integration-'],
};

export interface IntegrationState {
  record?: IntegrationRecord;
}

export const initialIntegrationState = (): IntegrationState => ({});

export type IntegrationCommand =
  | {
      type: 'ConnectIntegration';
      accountId: string;
      idIntegration: string;
      provider: string;
      integrationName: string;
      grant: Grant;
      adAccounts: AdAccount[];
      userId: string;
      at: string;
    }
  | { type: 'ReauthorizeIntegration'; grant: Grant; adAccounts: AdAccount[]; userId: string; at: string }
  | { type: 'RecordTokenRefresh'; grant: Grant; at: string }
  | { type: 'RenameIntegration'; integrationName: string; at: string }
  | { type: 'ChangeIntegrationStatus'; status: IntegrationStatus; lastError: string | null; at: string }
  | { type: 'RecordAdAccounts'; adAccounts: AdAccount[]; at: string }
  | { type: 'LinkAdAccount'; adAccountId: string; idTrafficSource: string | null; at: string }
  | {
      type: 'LinkConversionGoal';
      adAccountId: string;
      goal: { id: string; name: string; type: string };
      link: { idTrafficSource: string; eventName: string | null; clickIdField: string } | null;
      /** The provider's goals need an event name (its capabilities). */
      needsEventName: boolean;
      at: string;
    }
  | { type: 'DeleteIntegration'; revoked: boolean; at: string };

export function integrationNotFound(idIntegration: string): ServiceError {
  return ServiceError.notFound(IntegrationErrorCodes.NOT_FOUND, `no integration ${idIntegration} in this account`);
}

export function adAccountNotFound(adAccountId: string): ServiceError {
  return ServiceError.notFound(IntegrationErrorCodes.AD_ACCOUNT_NOT_FOUND, `the integration reaches no ad account ${adAccountId}`);
}

/** Decides an integration command on its stream's state. Pure: the time, the tokens and the provider's answers come with the command. */
export function decideIntegration(command: IntegrationCommand, state: IntegrationState, idIntegration: string): IntegrationEvent[] {
  if (command.type === 'ConnectIntegration') {
    if (state.record) throw ServiceError.conflict(IntegrationErrorCodes.CONFLICT, `integration ${idIntegration} exists already`);
    const { accountId, provider, integrationName, grant, adAccounts, userId, at } = command;
    return [
      {
        type: 'IntegrationConnected',
        data: { idIntegration, accountId, provider, integrationName, ...grant, adAccounts, connectedAt: at, connectedBy: userId },
      },
    ];
  }
  const record = state.record;
  if (!record) throw integrationNotFound(idIntegration);
  const base: Base = { idIntegration: record.idIntegration, accountId: record.accountId };
  switch (command.type) {
    case 'ReauthorizeIntegration':
      return [
        {
          type: 'IntegrationReauthorized',
          data: { ...base, ...command.grant, adAccounts: command.adAccounts, reauthorizedAt: command.at, reauthorizedBy: command.userId },
        },
      ];
    case 'RecordTokenRefresh':
      return [{ type: 'IntegrationTokensRefreshed', data: { ...base, ...command.grant, refreshedAt: command.at } }];
    case 'RenameIntegration':
      if (command.integrationName === record.integrationName) return [];
      return [{ type: 'IntegrationRenamed', data: { ...base, integrationName: command.integrationName, renamedAt: command.at } }];
    case 'ChangeIntegrationStatus':
      if (command.status === record.status && command.lastError === record.lastError) return [];
      return [{ type: 'IntegrationStatusChanged', data: { ...base, status: command.status, lastError: command.lastError, changedAt: command.at } }];
    case 'RecordAdAccounts':
      if (JSON.stringify(command.adAccounts) === JSON.stringify(record.adAccounts)) return [];
      return [{ type: 'IntegrationAdAccountsListed', data: { ...base, adAccounts: command.adAccounts, listedAt: command.at } }];
    case 'LinkAdAccount': {
      if (!record.adAccounts.some((account) => account.id === command.adAccountId)) throw adAccountNotFound(command.adAccountId);
      const current = record.adAccountLinks[command.adAccountId] ?? null;
      if (current === command.idTrafficSource) return [];
      return command.idTrafficSource === null
        ? [{ type: 'AdAccountUnlinked', data: { ...base, adAccountId: command.adAccountId, unlinkedAt: command.at } }]
        : [{ type: 'AdAccountLinked', data: { ...base, adAccountId: command.adAccountId, idTrafficSource: command.idTrafficSource, linkedAt: command.at } }];
    }
    case 'LinkConversionGoal': {
      const { adAccountId, goal, link } = command;
      if (!record.adAccounts.some((account) => account.id === adAccountId)) throw adAccountNotFound(adAccountId);
      const current = record.goalLinks.find((l) => l.adAccountId === adAccountId && l.goalId === goal.id);
      if (link === null) return current ? [{ type: 'ConversionGoalUnlinked', data: { ...base, adAccountId, goalId: goal.id, unlinkedAt: command.at } }] : [];
      if (command.needsEventName && !link.eventName)
        throw ServiceError.invalidField('eventName', 'required', 'eventName is required: the provider names each conversion event');
      const next: GoalLink = { adAccountId, goalId: goal.id, goalName: goal.name, goalType: goal.type, ...link };
      if (current && JSON.stringify(current) === JSON.stringify(next)) return [];
      return [{ type: 'ConversionGoalLinked', data: { ...base, ...next, linkedAt: command.at } }];
    }
    case 'DeleteIntegration':
      return [{ type: 'IntegrationDeleted', data: { ...base, deletedAt: command.at, revoked: command.revoked } }];
    default: {
      const unknown: never = command;
      throw new Error(`unknown command ${(unknown as { type: string }).type}`);
    }
  }
}

export function evolveIntegration(state: IntegrationState, event: IntegrationEvent): IntegrationState {
  if (event.type === 'IntegrationConnected') {
    const { idIntegration, accountId, provider, integrationName, tokens, expiresAt, scopes, adAccounts, connectedAt } = event.data;
    return {
      record: {
        idIntegration,
        accountId,
        provider,
        integrationName,
        status: 'active',
        lastError: null,
        expiresAt,
        scopes,
        createdAt: connectedAt,
        tokens,
        adAccounts,
        adAccountLinks: {},
        goalLinks: [],
      },
    };
  }
  const record = state.record;
  if (!record) return state;
  switch (event.type) {
    case 'IntegrationReauthorized': {
      const { tokens, expiresAt, scopes, adAccounts } = event.data;
      return { record: { ...record, tokens, expiresAt, scopes, adAccounts, status: 'active', lastError: null } };
    }
    case 'IntegrationTokensRefreshed': {
      const { tokens, expiresAt, scopes } = event.data;
      return { record: { ...record, tokens, expiresAt, scopes } };
    }
    case 'IntegrationRenamed':
      return { record: { ...record, integrationName: event.data.integrationName } };
    case 'IntegrationStatusChanged':
      return { record: { ...record, status: event.data.status, lastError: event.data.lastError } };
    case 'IntegrationAdAccountsListed':
      return { record: { ...record, adAccounts: event.data.adAccounts } };
    case 'AdAccountLinked':
      return { record: { ...record, adAccountLinks: { ...record.adAccountLinks, [event.data.adAccountId]: event.data.idTrafficSource } } };
    case 'AdAccountUnlinked': {
      const { [event.data.adAccountId]: _dropped, ...rest } = record.adAccountLinks;
      return { record: { ...record, adAccountLinks: rest } };
    }
    case 'ConversionGoalLinked': {
      const { adAccountId, goalId, goalName, goalType, idTrafficSource, eventName, clickIdField } = event.data;
      const others = record.goalLinks.filter((l) => !(l.adAccountId === adAccountId && l.goalId === goalId));
      return { record: { ...record, goalLinks: [...others, { adAccountId, goalId, goalName, goalType, idTrafficSource, eventName, clickIdField }] } };
    }
    case 'ConversionGoalUnlinked': {
      const { adAccountId, goalId } = event.data;
      return { record: { ...record, goalLinks: record.goalLinks.filter((l) => !(l.adAccountId === adAccountId && l.goalId === goalId)) } };
    }
    case 'IntegrationDeleted':
      return {};
    default: {
      const unknown: never = event;
      throw new Error(`unknown event ${(unknown as { type: string }).type}`);
    }
  }
}

/** The integration as answered: no tokens, no links (those are under its ad accounts). */
export function integrationViewOf(record: IntegrationRecord): IntegrationView {
  const { idIntegration, provider, integrationName, status, lastError, expiresAt, scopes, createdAt } = record;
  return { idIntegration, provider, integrationName, status, lastError, expiresAt, scopes: [...scopes], createdAt };
}
