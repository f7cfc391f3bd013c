import { ServiceError } from '@funnel/contracts';
import type { EncryptedSecret } from '@funnel/assets-domain';
import {
  Grant,
  IntegrationCommand,
  IntegrationEvent,
  asIntegrationEvent,
  decideIntegration,
  evolveIntegration,
  initialIntegrationState,
  integrationViewOf,
} from './integration';

const secret = (data: string): EncryptedSecret => ({ $secret: 'aes-256-gcm', keyId: 'k1', iv: 'iv', data, tag: 'tag' });
const grant: Grant = { tokens: { accessToken: secret('a1'), refreshToken: null }, expiresAt: '2026-03-01T00:00:00.000Z', scopes: ['ads_read'] };
const ACCOUNT = 'ACCOUNT0000A';
const ID = 'INTEGRATION1';
const SOURCE = 'TRAFFICSRC01';
const adAccounts = [
  { id: 'act_1', name: 'Main', currency: 'EUR', timezone: 'Europe/Paris' },
  { id: 'act_2', name: 'Second', currency: 'USD', timezone: 'America/New_York' },
];
const connected: IntegrationEvent = {
  type: 'IntegrationConnected',
  data: {
    idIntegration: ID,
    accountId: ACCOUNT,
    provider: 'meta',
    integrationName: 'Meta, main login',
    ...grant,
    adAccounts,
    connectedAt: '2026-01-01T00:00:00.000Z',
    connectedBy: 'USER00000001',
  },
};
const at = '2026-01-02T00:00:00.000Z';

/** given(events).when(command).then(events | error) */
function given(...events: IntegrationEvent[]) {
  const state = events.reduce(evolveIntegration, initialIntegrationState());
  return {
    when: (command: IntegrationCommand) => ({
      then: (expected: IntegrationEvent[]) => expect(decideIntegration(command, state, ID)).toEqual(expected),
      thenFails: (code: string) => {
        let thrown: unknown;
        try {
          decideIntegration(command, state, ID);
        } catch (error) {
          thrown = error;
        }
        expect(thrown).toBeInstanceOf(ServiceError);
        expect((thrown as ServiceError).code).toBe(code);
      },
    }),
    state,
  };
}

const linkGoal = (link: { idTrafficSource: string; eventName: string | null; clickIdField: string } | null, needsEventName = true): IntegrationCommand => ({
  type: 'LinkConversionGoal',
  adAccountId: 'act_1',
  goal: { id: 'ds_1', name: 'Shop dataset', type: 'dataset' },
  link,
  needsEventName,
  at,
});

describe('integration decider', () => {
  it('connects a new integration, active, with its ad accounts and no links', () => {
    given()
      .when({
        type: 'ConnectIntegration',
        accountId: ACCOUNT,
        idIntegration: ID,
        provider: 'meta',
        integrationName: 'Meta, main login',
        grant,
        adAccounts,
        userId: 'USER00000001',
        at: connected.data.connectedAt as string,
      })
      .then([connected]);
    const { record } = given(connected).state;
    expect(record).toMatchObject({ status: 'active', lastError: null, adAccountLinks: {}, goalLinks: [] });
  });

  it('refuses to connect an id twice, and every other command on a missing integration', () => {
    given(connected)
      .when({ type: 'ConnectIntegration', accountId: ACCOUNT, idIntegration: ID, provider: 'meta', integrationName: 'x', grant, adAccounts, userId: 'u', at })
      .thenFails('INTEGRATION.CONCURRENT_MODIFICATION');
    given().when({ type: 'RenameIntegration', integrationName: 'x', at }).thenFails('INTEGRATION.NOT_FOUND');
    const deleted: IntegrationEvent = { type: 'IntegrationDeleted', data: { idIntegration: ID, accountId: ACCOUNT, deletedAt: at, revoked: true } };
    given(connected, deleted).when({ type: 'LinkAdAccount', adAccountId: 'act_1', idTrafficSource: SOURCE, at }).thenFails('INTEGRATION.NOT_FOUND');
  });

  it('renames, and a rename to the same name is no change', () => {
    given(connected)
      .when({ type: 'RenameIntegration', integrationName: 'Meta EU', at })
      .then([{ type: 'IntegrationRenamed', data: { idIntegration: ID, accountId: ACCOUNT, integrationName: 'Meta EU', renamedAt: at } }]);
    given(connected).when({ type: 'RenameIntegration', integrationName: 'Meta, main login', at }).then([]);
  });

  it('links an ad account it reaches to a traffic source, unlinks it with null; repeating either changes nothing', () => {
    const linked: IntegrationEvent = {
      type: 'AdAccountLinked',
      data: { idIntegration: ID, accountId: ACCOUNT, adAccountId: 'act_1', idTrafficSource: SOURCE, linkedAt: at },
    };
    given(connected).when({ type: 'LinkAdAccount', adAccountId: 'act_1', idTrafficSource: SOURCE, at }).then([linked]);
    given(connected, linked).when({ type: 'LinkAdAccount', adAccountId: 'act_1', idTrafficSource: SOURCE, at }).then([]);
    given(connected, linked)
      .when({ type: 'LinkAdAccount', adAccountId: 'act_1', idTrafficSource: null, at })
      .then([{ type: 'AdAccountUnlinked', data: { idIntegration: ID, accountId: ACCOUNT, adAccountId: 'act_1', unlinkedAt: at } }]);
    given(connected).when({ type: 'LinkAdAccount', adAccountId: 'act_1', idTrafficSource: null, at }).then([]);
    expect(given(connected, linked).state.record?.adAccountLinks).toEqual({ act_1: SOURCE });
  });

  it('refuses to link an ad account the login does not reach', () => {
    given(connected).when({ type: 'LinkAdAccount', adAccountId: 'act_9', idTrafficSource: SOURCE, at }).thenFails('INTEGRATION.AD_ACCOUNT_NOT_FOUND');
  });

  it("links a goal to a traffic source's conversions, requiring an event name where the provider needs one", () => {
    given(connected)
      .when(linkGoal({ idTrafficSource: SOURCE, eventName: null, clickIdField: 'fbclid' }))
      .thenFails('REQUEST.VALIDATION_FAILED');
    given(connected)
      .when(linkGoal({ idTrafficSource: SOURCE, eventName: null, clickIdField: 'gclid' }, false))
      .then([
        {
          type: 'ConversionGoalLinked',
          data: {
            idIntegration: ID,
            accountId: ACCOUNT,
            adAccountId: 'act_1',
            goalId: 'ds_1',
            goalName: 'Shop dataset',
            goalType: 'dataset',
            idTrafficSource: SOURCE,
            eventName: null,
            clickIdField: 'gclid',
            linkedAt: at,
          },
        },
      ]);
    const [linked] = decideIntegration(linkGoal({ idTrafficSource: SOURCE, eventName: 'Purchase', clickIdField: 'fbclid' }), given(connected).state, ID);
    expect(linked.type).toBe('ConversionGoalLinked');
    given(connected, linked)
      .when(linkGoal({ idTrafficSource: SOURCE, eventName: 'Purchase', clickIdField: 'fbclid' }))
      .then([]);
    given(connected, linked)
      .when(linkGoal(null))
      .then([{ type: 'ConversionGoalUnlinked', data: { idIntegration: ID, accountId: ACCOUNT, adAccountId: 'act_1', goalId: 'ds_1', unlinkedAt: at } }]);
    given(connected).when(linkGoal(null)).then([]);
    // Linked again with another event: one link per goal, replaced.
    const [relinked] = decideIntegration(linkGoal({ idTrafficSource: SOURCE, eventName: 'Lead', clickIdField: 'fbclid' }), given(connected, linked).state, ID);
    expect(given(connected, linked, relinked).state.record?.goalLinks).toEqual([expect.objectContaining({ goalId: 'ds_1', eventName: 'Lead' })]);
  });

  it('marks the integration needs_reauth with the reason once; a reauthorization makes it active again and keeps its links', () => {
    const linked: IntegrationEvent = {
      type: 'AdAccountLinked',
      data: { idIntegration: ID, accountId: ACCOUNT, adAccountId: 'act_1', idTrafficSource: SOURCE, linkedAt: at },
    };
    const lost = { type: 'ChangeIntegrationStatus' as const, status: 'needs_reauth' as const, lastError: 'the token has expired', at };
    const [changed] = decideIntegration(lost, given(connected, linked).state, ID);
    expect(changed).toEqual({
      type: 'IntegrationStatusChanged',
      data: { idIntegration: ID, accountId: ACCOUNT, status: 'needs_reauth', lastError: 'the token has expired', changedAt: at },
    });
    given(connected, linked, changed).when(lost).then([]);
    const newGrant: Grant = {
      tokens: { accessToken: secret('a2'), refreshToken: null },
      expiresAt: '2026-05-01T00:00:00.000Z',
      scopes: ['ads_read', 'ads_management'],
    };
    const [reauthorized] = decideIntegration(
      { type: 'ReauthorizeIntegration', grant: newGrant, adAccounts, userId: 'USER00000001', at },
      given(connected, linked, changed).state,
      ID,
    );
    const record = given(connected, linked, changed, reauthorized).state.record!;
    expect(record).toMatchObject({
      status: 'active',
      lastError: null,
      expiresAt: '2026-05-01T00:00:00.000Z',
      scopes: ['ads_read', 'ads_management'],
      adAccountLinks: { act_1: SOURCE },
    });
    expect(record.tokens.accessToken).toEqual(secret('a2'));
  });

  it('records a new list of ad accounts only when it changed, keeping links', () => {
    given(connected).when({ type: 'RecordAdAccounts', adAccounts, at }).then([]);
    const [listed] = decideIntegration({ type: 'RecordAdAccounts', adAccounts: adAccounts.slice(0, 1), at }, given(connected).state, ID);
    expect(given(connected, listed).state.record?.adAccounts).toEqual(adAccounts.slice(0, 1));
  });

  it('deletes; the integration is gone', () => {
    given(connected)
      .when({ type: 'DeleteIntegration', revoked: true, at })
      .then([{ type: 'IntegrationDeleted', data: { idIntegration: ID, accountId: ACCOUNT, deletedAt: at, revoked: true } }]);
    expect(
      given(connected, { type: 'IntegrationDeleted', data: { idIntegration: ID, accountId: ACCOUNT, deletedAt: at, revoked: true } }).state.record,
    ).toBeUndefined();
  });

  it('answers the integration without its tokens', () => {
    const view = integrationViewOf(given(connected).state.record!);
    expect(view).toEqual({
      idIntegration: ID,
      provider: 'meta',
      integrationName: 'Meta, main login',
      status: 'active',
      lastError: null,
      expiresAt: '2026-03-01T00:00:00.000Z',
      scopes: ['ads_read'],
      createdAt: '2026-01-01T00:00:00.000Z',
    });
    expect(JSON.stringify(view)).not.toContain('aes-256-gcm');
  });

  it('decodes only its own event types', () => {
    expect(asIntegrationEvent('IntegrationRenamed', { integrationName: 'x' })?.type).toBe('IntegrationRenamed');
    expect(asIntegrationEvent('CustomDomainRegistered', {})).toBeUndefined();
  });
});
