import { buildRedirectUrl, compileOfferQuery, compileUrlTemplate } from './redirect-url';
import type { TokenContext } from './tokens';

const context = (overrides: Partial<TokenContext> = {}): TokenContext => ({
  hitId: 'HIT000000001',
  visitorId: 'VIS000000001',
  idNode: 'NODE00000001',
  idFunnel: 'FUN000000001',
  idFunnelGroup: 'GRP000000001',
  idTrafficSource: 'TS0000000001',
  idPage: 'PAGE00000001',
  cost: '0.25',
  urlBuffer: { sub: 'a b', gclid: 'g&1' },
  trackingFields: { campaign: 'Spring Sale', c3: 'z/3' },
  slotsByName: new Map([['utm_campaign', 'campaign']]),
  attributes: { country: 'DE', deviceType: 'mobile' },
  additionalTokens: new Map([['lp', 'v=2']]),
  ...overrides,
});

const build = (url: string, ctx = context(), options = {}) => buildRedirectUrl(compileUrlTemplate(url), ctx, options);

describe('redirect URLs', () => {
  it('replace each token with its URL-encoded value and add vid', () => {
    expect(
      build('https://lp.example.com/a?h={hit}&v={visitor}&n={current-node-id}&f={funnel-id}&g={funnel-group-id}&t={traffic-source-id}&p={page-id}&c={cost}'),
    ).toBe(
      'https://lp.example.com/a?h=HIT000000001&v=VIS000000001&n=NODE00000001&f=FUN000000001&g=GRP000000001&t=TS0000000001&p=PAGE00000001&c=0.25&vid=VIS000000001',
    );
  });

  it('read the URL buffer, tracking-field slots and names, visitor attributes and node tokens', () => {
    expect(build('https://x.example/?d={data-sub}&c={campaign}&c3={c3}&c4={c4}&n={trackingField.utm_campaign}&geo={country}&dev={device-type}&lp={lp}')).toBe(
      'https://x.example/?d=a%20b&c=Spring%20Sale&c3=z%2F3&c4=&n=Spring%20Sale&geo=DE&dev=mobile&lp=v%3D2&vid=VIS000000001',
    );
  });

  it('leave unknown tokens as written', () => {
    expect(build('https://x.example/?a={nope}&b={trackingField.unknown}&c={data-}')).toBe(
      'https://x.example/?a={nope}&b={trackingField.unknown}&c={data-}&vid=VIS000000001',
    );
  });

  it('replace a vid the URL already has, and keep the fragment last', () => {
    expect(build('https://x.example/p?vid=old&a=1#top')).toBe('https://x.example/p?a=1&vid=VIS000000001#top');
    expect(build('https://x.example/p?vid={visitor}')).toBe('https://x.example/p?vid=VIS000000001');
    expect(build('https://x.example/p')).toBe('https://x.example/p?vid=VIS000000001');
  });

  it("append the offer source's params (tokens replaced) with its separator", () => {
    const offer = compileOfferQuery({ sub1: '{hit}', 'sub 2': 'x y', sub3: '{campaign}' }, '?');
    expect(build('https://o.example/go', context(), { offer })).toBe(
      'https://o.example/go?sub1=HIT000000001&sub%202=x%20y&sub3=Spring%20Sale&vid=VIS000000001',
    );
    expect(build('https://o.example/go?o=1', context(), { offer })).toBe(
      'https://o.example/go?o=1&sub1=HIT000000001&sub%202=x%20y&sub3=Spring%20Sale&vid=VIS000000001',
    );
    const ampersand = compileOfferQuery({ s: '{hit}' }, '&');
    expect(build('https://o.example/click/123', context(), { offer: ampersand })).toBe('https://o.example/click/123&s=HIT000000001&vid=VIS000000001');
  });

  it("pass the visitor's URL params on without overriding the page's own or the offer's", () => {
    const offer = compileOfferQuery({ gclid: 'mine' }, '?');
    expect(build('https://x.example/?sub=page', context(), { passOn: { sub: 'visitor', extra: '1', vid: 'forged' } })).toBe(
      'https://x.example/?sub=page&extra=1&vid=VIS000000001',
    );
    expect(build('https://x.example/', context(), { offer, passOn: { gclid: 'visitor', k: 'v' } })).toBe('https://x.example/?gclid=mine&k=v&vid=VIS000000001');
  });
});
