import { CheckDomainResponse, DomainStatus, ServiceError } from '@funnel/contracts';
import {
  CustomDomainCommand,
  CustomDomainEvent,
  EdgeView,
  decideCustomDomain,
  dnsInstructions,
  domainInfoOf,
  domainSummaryOf,
  evolveCustomDomain,
  initialCustomDomainState,
} from './custom-domain';
import { nextDomainStatus } from './domain-status';

describe('domain status transitions', () => {
  const cases: [DomainStatus, boolean, boolean, DomainStatus][] = [
    // current, ownership verified, check found our edge, next
    ['pending', false, false, 'pending'],
    ['pending', true, false, 'pending'],
    ['pending', false, true, 'pending'],
    ['pending', true, true, 'active'],
    ['active', true, true, 'active'],
    ['active', false, true, 'active'],
    ['active', true, false, 'moved'],
    ['active', false, false, 'moved'],
    ['moved', true, false, 'moved'],
    ['moved', false, true, 'moved'],
    ['moved', true, true, 'active'],
    ['deleted', true, true, 'deleted'],
    ['deleted', false, false, 'deleted'],
  ];
  it.each(cases)('%s, ownership verified %s, edge found %s: %s', (current, ownershipVerified, found, next) => {
    expect(nextDomainStatus(current, { ownershipVerified, found })).toBe(next);
  });
});

describe('custom domain decider', () => {
  const at = '2025-01-16T00:00:00.000Z';
  const accountId = 'ACCOUNT0000A';
  const name = { domain: 'shop.example.com', subdomain: 'shop', rootDomain: 'example.com' };
  const edge = (over: Partial<EdgeView> = {}): EdgeView => ({
    edgeId: 'edge-1',
    status: 'pending',
    sslStatus: 'initializing',
    sslTxtName: '',
    sslTxtValue: '',
    ownership: { type: 'txt', name: '_funnel-verify.shop.example.com', value: 'token-1' },
    ownershipVerified: false,
    verificationErrors: [],
    ...over,
  });
  const check = (found: boolean): CheckDomainResponse => ({
    success: true,
    found,
    ssl_valid: found,
    http_status: found ? 200 : 0,
    ssl_error: '',
    response_time_ms: 12,
    error_message: found ? '' : 'no answer from our edge',
    check_timestamp: 1736985600,
    edge_status: '',
    edge_ssl_status: '',
    error_code: '',
  });
  const registered: CustomDomainEvent = {
    type: 'CustomDomainRegistered',
    data: { domainId: 'DOMAIN000001', accountId, ...name, registeredAt: at, edge: edge() },
  };
  const refreshed = (status: DomainStatus, verified: boolean, found: boolean): CustomDomainEvent => ({
    type: 'CustomDomainRefreshed',
    data: {
      domainId: 'DOMAIN000001',
      accountId,
      domain: name.domain,
      refreshedAt: at,
      edge: edge({ ownershipVerified: verified }),
      check: check(found),
      status,
    },
  });
  const deleted: CustomDomainEvent = {
    type: 'CustomDomainDeleted',
    data: { domainId: 'DOMAIN000001', accountId, domain: name.domain, deletedAt: at, edgeId: 'edge-1' },
  };
  const register: CustomDomainCommand = { type: 'RegisterDomain', accountId, domainId: 'DOMAIN000001', name, edge: edge(), at };
  const refresh = (verified: boolean, found: boolean): CustomDomainCommand => ({
    type: 'RecordDomainRefresh',
    accountId,
    edge: edge({ ownershipVerified: verified }),
    check: check(found),
    at,
  });

  const given = (events: CustomDomainEvent[]) => ({
    when: (command: CustomDomainCommand) => {
      const decide = () => decideCustomDomain(command, events.reduce(evolveCustomDomain, initialCustomDomainState()), name.domain);
      return {
        then: (expected: CustomDomainEvent[]) => expect(decide()).toEqual(expected),
        thenFails: (status: number, code: string) => {
          expect(decide).toThrow(ServiceError);
          expect(() => decide()).toThrow(expect.objectContaining({ status, code }));
        },
      };
    },
  });

  it('registers a new domain as pending', () => given([]).when(register).then([registered]));
  it('refuses a second registration in the account (409 DOMAIN_EXISTS)', () => given([registered]).when(register).thenFails(409, 'DOMAIN_EXISTS'));
  it('registers again after a delete', () => given([registered, deleted]).when(register).then([registered]));
  it('a refresh that verifies ownership and finds the edge activates', () =>
    given([registered])
      .when(refresh(true, true))
      .then([refreshed('active', true, true)]));
  it('a refresh without ownership stays pending', () =>
    given([registered])
      .when(refresh(false, true))
      .then([refreshed('pending', false, true)]));
  it('an active domain no longer found is moved', () =>
    given([registered, refreshed('active', true, true)])
      .when(refresh(true, false))
      .then([refreshed('moved', true, false)]));
  it('a moved domain found again is active', () =>
    given([registered, refreshed('active', true, true), refreshed('moved', true, false)])
      .when(refresh(true, true))
      .then([refreshed('active', true, true)]));
  it('refreshing a deleted or unknown domain is 404 NOT_FOUND', () => {
    given([registered, deleted]).when(refresh(true, true)).thenFails(404, 'NOT_FOUND');
    given([]).when(refresh(true, true)).thenFails(404, 'NOT_FOUND');
  });
  it('deletes a registered domain', () =>
    given([registered, refreshed('active', true, true)])
      .when({ type: 'DeleteDomain', accountId, at })
      .then([deleted]));
  it('deleting twice is 404 NOT_FOUND', () => given([registered, deleted]).when({ type: 'DeleteDomain', accountId, at }).thenFails(404, 'NOT_FOUND'));

  it('shows DomainInfo, DomainSummary and the DNS records to add', () => {
    const state = [registered, refreshed('active', true, true)].reduce(evolveCustomDomain, initialCustomDomainState());
    expect(domainInfoOf(state.record!)).toEqual({
      id: 'DOMAIN000001',
      domain: 'shop.example.com',
      owner: accountId,
      created_at: at,
      edge_id: 'edge-1',
      status: 'active',
      ssl: { status: 'initializing', txt_name: '', txt_value: '' },
      ownership_verification: { type: 'txt', name: '_funnel-verify.shop.example.com', value: 'token-1' },
      verification_errors: [],
      parsed: { subdomain: 'shop', root_domain: 'example.com' },
    });
    expect(domainSummaryOf(state.record!)).toEqual({
      id: 'DOMAIN000001',
      domain: 'shop.example.com',
      edge_id: 'edge-1',
      status: 'active',
      ssl_status: 'initializing',
      verification_errors: [],
      created_at: at,
    });
    expect(dnsInstructions(state.record!, 'edge.funnel.example')).toBe(
      'Add a CNAME record shop.example.com -> edge.funnel.example, a TXT record _funnel-verify.shop.example.com = token-1; then refresh the domain to verify it.',
    );
  });
});
