import type { AssetRecord } from '../asset-events';
import { KIND_RULES } from './index';
import { isBareHostName, isHttpUrlWithTokens } from './url-rules';

const record = (fields: Record<string, unknown>) => ({ status: 'active', idCategory: '', ...fields }) as AssetRecord;
const codesOf = (problems: { field: string; code: string }[]) => problems.map((p) => `${p.field}:${p.code}`);

describe('url rules', () => {
  it.each([
    ['https://example.com/lp?x={clickid}', 'query', true],
    ['http://example.com', 'query', true],
    ['https://example.com/{path}?x=1', 'query', false],
    ['https://{host}/p', 'anywhere', true],
    ['ftp://example.com', 'anywhere', false],
    ['javascript:alert(1)', 'anywhere', false],
    ['/relative/path', 'anywhere', false],
    ['https://exa mple.com', 'anywhere', false],
    ['https://example.com/?x={unclosed', 'query', false],
  ] as const)('%s with tokens in %s: %s', (url, where, ok) => {
    expect(isHttpUrlWithTokens(url, where)).toBe(ok);
  });

  it.each([
    ['track.example.com', true],
    ['example.io', true],
    ['localhost', false],
    ['https://example.com', false],
    ['example.com:8080', false],
    ['10.0.0.1', false],
    ['-bad.example.com', false],
  ])('%s is a bare host name: %s', (host, ok) => {
    expect(isBareHostName(host)).toBe(ok);
  });
});

describe('traffic source rules', () => {
  const rules = KIND_RULES.trafficsource;
  const source = (fields: Record<string, unknown> = {}) => record({ trackingFieldSlots: {}, postback: { postbackType: 'none', postbackCode: '' }, ...fields });

  it('given slots with valid, unique names, when checked, then nothing is wrong', () => {
    const slots = { campaign: { name: 'campaign_id', value: '{campaign}' }, c1: { name: 'zone', value: '' }, c20: { name: 'sub 20' } };
    expect(rules.check!(source({ trackingFieldSlots: slots }))).toEqual([]);
  });

  it('given an unknown slot, a bad name, a duplicate name, a long value and a bad status, then each is named', () => {
    const slots = {
      c21: { name: 'x' },
      c1: { name: 'bad/name' },
      c2: { name: 'zone' },
      c3: { name: 'zone', value: 'v'.repeat(257), status: 'paused' },
    };
    expect(codesOf(rules.check!(source({ trackingFieldSlots: slots })))).toEqual([
      'trackingFieldSlots.c21:unknownSlot',
      'trackingFieldSlots.c1.name:pattern',
      'trackingFieldSlots.c3.name:unique',
      'trackingFieldSlots.c3.value:maxLength',
      'trackingFieldSlots.c3.status:isIn',
    ]);
  });

  it('given a postback URL type, then its code must be an absolute http(s) URL that may hold tokens', () => {
    expect(rules.check!(source({ postback: { postbackType: 'postbackUrl', postbackCode: 'https://t.example.com/pb?cid={clickid}' } }))).toEqual([]);
    expect(codesOf(rules.check!(source({ postback: { postbackType: 'pixelUrl', postbackCode: 'not a url' } })))).toEqual(['postback.postbackCode:isUrl']);
    expect(rules.check!(source({ postback: { postbackType: 'javascript', postbackCode: 'fire()' } }))).toEqual([]);
  });

  it('given a rename, when normalized, then previousName is the old name; sent previousName and unknown parts are dropped', () => {
    const current = source({ trackingFieldSlots: { c1: { name: 'zone', value: '', previousName: '', status: 'active' } } });
    const renamed = rules.normalize!(source({ trackingFieldSlots: { c1: { name: 'zone_id', previousName: 'forged', extra: 1 } } }), current);
    expect(renamed.trackingFieldSlots).toEqual({ c1: { name: 'zone_id', value: '', previousName: 'zone', status: 'active' } });
    const kept = rules.normalize!(source({ trackingFieldSlots: { c1: { name: 'zone_id', value: '{zone}' } } }), renamed);
    expect(kept.trackingFieldSlots).toEqual({ c1: { name: 'zone_id', value: '{zone}', previousName: 'zone', status: 'active' } });
  });
});

describe('offer source rules', () => {
  const rules = KIND_RULES.offersource;
  const source = (fields: Record<string, unknown> = {}) => record({ queryParams: {}, umrDomainOverride: '', ...fields });

  it('given valid parameters and a bare host name, then nothing is wrong', () => {
    expect(rules.check!(source({ queryParams: { sub1: '{clickid}', aff: '42' }, umrDomainOverride: 'go.example.com' }))).toEqual([]);
  });

  it('given too many parameters, a long name, a non-string value and a URL as domain, then each is named', () => {
    const many = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`p${i}`, 'v']));
    expect(codesOf(rules.check!(source({ queryParams: many })))).toEqual(['queryParams:maxEntries']);
    expect(codesOf(rules.check!(source({ queryParams: { ['k'.repeat(65)]: 'v', n: 5 }, umrDomainOverride: 'https://x.com' })))).toEqual([
      `queryParams.${'k'.repeat(64)}…:keyLength`,
      'queryParams.n:isString',
      'umrDomainOverride:isHostName',
    ]);
  });
});

describe('page rules', () => {
  const rules = KIND_RULES.page;

  it('given an offer with offer parameters, then its offer source is a reference', () => {
    const offer = record({ pageType: 'offer', baseURL: 'https://o.example.com/?s={clickid}', offerParams: { idOfferSource: 'OS0000000001' } });
    expect(rules.check!(offer)).toEqual([]);
    expect(rules.references!(offer)).toEqual([{ field: 'offerParams.idOfferSource', kind: 'offersource', id: 'OS0000000001' }]);
  });

  it('given a lander with offer parameters or a bad base URL, then each is named', () => {
    const lander = record({ pageType: 'lander', baseURL: 'https://l.example.com/{x}', offerParams: { idOfferSource: 'OS0000000001' } });
    expect(codesOf(rules.check!(lander))).toEqual(['baseURL:isUrl', 'offerParams:notAllowed']);
    expect(rules.references!(record({ pageType: 'lander', baseURL: 'https://l.example.com' }))).toEqual([]);
  });
});

describe('page group rules', () => {
  const rules = KIND_RULES.pagegroup;
  const group = record({
    pageType: 'offer',
    pages: [
      { idPage: 'P00000000001', weight: 100 },
      { idPage: 'P00000000002', weight: 0 },
    ],
  });

  it('given pages, then each is a reference to a page of the group type, and the slim record counts them', () => {
    expect(rules.check!(group)).toEqual([]);
    expect(rules.references!(group)).toEqual([
      { field: 'pages[0].idPage', kind: 'page', id: 'P00000000001', where: { pageType: 'offer' } },
      { field: 'pages[1].idPage', kind: 'page', id: 'P00000000002', where: { pageType: 'offer' } },
    ]);
    expect(rules.slim!(group)).toEqual({ pageCount: 2 });
  });

  it('given a page twice, then the repeat is named', () => {
    const repeated = record({
      pageType: 'lander',
      pages: [
        { idPage: 'P00000000001', weight: 1 },
        { idPage: 'P00000000001', weight: 2 },
      ],
    });
    expect(codesOf(rules.check!(repeated))).toEqual(['pages[1].idPage:unique']);
  });
});
