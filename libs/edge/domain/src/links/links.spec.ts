import type { RoutingSession } from '@funnel/routing';
import { entranceTokenOf, parseActionNumber, parseEntranceToken, linkAccountOf, viewTokensOf } from '..';

const FUNNEL = '0Abc123XyZ01';
const SOURCE = '0Abc123XyZ02';
const NODE = '0Abc123XyZ03';

describe('entrance tokens', () => {
  it('reads a funnel and a traffic source (24 characters), and a node (36)', () => {
    expect(parseEntranceToken(FUNNEL + SOURCE)).toEqual({ ok: true, token: { idFunnel: FUNNEL, idTrafficSource: SOURCE } });
    expect(parseEntranceToken(FUNNEL + SOURCE + NODE)).toEqual({ ok: true, token: { idFunnel: FUNNEL, idTrafficSource: SOURCE, idNode: NODE } });
    expect(entranceTokenOf({ idFunnel: FUNNEL, idTrafficSource: SOURCE, idNode: NODE })).toBe(FUNNEL + SOURCE + NODE);
  });

  it.each([
    ['', 'length'],
    [FUNNEL, 'length'],
    [FUNNEL + SOURCE + 'x', 'length'],
    [FUNNEL + SOURCE + NODE + NODE, 'length'],
    [FUNNEL + SOURCE.slice(0, 11) + '-', 'characters'],
    [FUNNEL + SOURCE.slice(0, 11) + '%', 'characters'],
    ['é'.repeat(24), 'characters'],
  ])('refuses %j (%s)', (text, refusal) => {
    expect(parseEntranceToken(text)).toMatchObject({ ok: false, refusal });
  });

  it('will not build a token from something that is not an asset id', () => {
    expect(() => entranceTokenOf({ idFunnel: 'short', idTrafficSource: SOURCE })).toThrow('not an asset id');
  });
});

describe('action numbers', () => {
  it.each([
    ['1', 1],
    ['9', 9],
    ['64', 64],
  ])('%s is action %d', (text, action) => expect(parseActionNumber(text)).toBe(action));

  it.each(['0', '65', '99', '01', '+1', '-1', '1.0', '1e1', '', '100', ' 1', 'x'])('%j is no action', (text) => {
    expect(parseActionNumber(text)).toBeUndefined();
  });
});

describe('the account of a link', () => {
  const domains: Record<string, string> = { 'track.example.com': 'acc-custom' };
  const input = (host: string | undefined, accountInPath?: string, defaultDomain: string | undefined = 'edge.example.net') => ({
    host,
    accountInPath,
    defaultDomain,
    accountOfDomain: (name: string) => domains[name],
  });

  it("is a custom domain's own account in the short form, whatever the case, port or trailing dot", () => {
    expect(linkAccountOf(input('Track.Example.com.:3001'))).toEqual({ ok: true, accountId: 'acc-custom' });
  });

  it('is never another account on a custom domain', () => {
    expect(linkAccountOf(input('track.example.com', 'acc-other'))).toMatchObject({ ok: false });
  });

  it('is the account in the path on the default domain, and only there', () => {
    expect(linkAccountOf(input('edge.example.net:443', 'acc-1'))).toEqual({ ok: true, accountId: 'acc-1' });
    expect(linkAccountOf(input('edge.example.net'))).toMatchObject({ ok: false, message: expect.stringContaining('/a/<accountId>') });
    expect(linkAccountOf(input('edge.example.net', 'bad.account'))).toMatchObject({ ok: false });
    expect(linkAccountOf(input('edge.example.net', 'x'.repeat(65)))).toMatchObject({ ok: false });
    expect(linkAccountOf(input('other.example.org', 'acc-1'))).toMatchObject({ ok: false });
    expect(linkAccountOf({ ...input('edge.example.net', 'acc-1'), defaultDomain: undefined })).toMatchObject({ ok: false });
    expect(linkAccountOf(input(undefined, 'acc-1'))).toMatchObject({ ok: false });
  });
});

describe('view tokens', () => {
  it("answer the session's node, hit, visitor, tracking fields and URL buffer", () => {
    const session: RoutingSession = {
      visitorId: 'V1',
      startedAt: 0,
      idFunnel: FUNNEL,
      idTrafficSource: SOURCE,
      currentNode: NODE,
      lastHitId: 'H9',
      currentPage: 'P1',
      trackingFields: { campaign: 'spring', c3: 'x' },
      cost: '0.25',
      tags: [],
      sticky: {},
      urlBuffer: { gclid: 'abc' },
    };
    expect(viewTokensOf(session)).toEqual({
      '{hit}': 'H9',
      '{visitor}': 'V1',
      '{current-node-id}': NODE,
      '{funnel-id}': FUNNEL,
      '{traffic-source-id}': SOURCE,
      '{page-id}': 'P1',
      '{cost}': '0.25',
      '{campaign}': 'spring',
      '{c3}': 'x',
      '{data-gclid}': 'abc',
    });
  });
});
