import { ShortLinkDto, validateBody } from '@funnel/contracts';
import type { AssetRecord } from '../asset-events';
import { KIND_RULES } from './index';

const rules = KIND_RULES.shortlink;
const link = (fields: Record<string, unknown> = {}) => ({
  idShortLink: 'AAAAAAAAAAAA',
  shortLinkName: 'Spring sale',
  slug: 'spring-sale_2',
  destinationUrl: 'https://shop.example.com/sale?utm=sl',
  ...fields,
});
const problemsOf = (body: Record<string, unknown>) => {
  try {
    validateBody(ShortLinkDto, body);
  } catch (error) {
    return (error as { details: { field: string; code: string }[] }).details.map((d) => `${d.field}:${d.code}`);
  }
  return rules.check!({ status: 'active', ...body } as AssetRecord).map((p) => `${p.field}:${p.code}`);
};

describe('short link rules', () => {
  it('given a valid link, then nothing is wrong and redirectType defaults to 302', () => {
    expect(problemsOf(link())).toEqual([]);
    expect(validateBody(ShortLinkDto, link()).redirectType).toBe('302');
  });

  it.each(['301', '302', '307'])('accepts redirectType %s', (redirectType) => expect(problemsOf(link({ redirectType }))).toEqual([]));

  it.each([['303'], ['308'], [302], ['umr']])('refuses redirectType %p', (redirectType) => {
    expect(problemsOf(link({ redirectType }))).toEqual(['redirectType:isIn']);
  });

  it.each(['a', 'A-Z_0-9', 'x'.repeat(64)])('accepts slug %s', (slug) => expect(problemsOf(link({ slug }))).toEqual([]));

  it.each([
    ['an empty slug', ''],
    ['a 65-character slug', 'x'.repeat(65)],
    ['a slash', 'a/b'],
    ['a dot', 'a.b'],
    ['a space', 'a b'],
    ['non-ASCII', 'café'],
  ])('refuses %s', (_what, slug) => expect(problemsOf(link({ slug }))).toEqual(['slug:matches']));

  it('requires a name of 1..256 characters, a slug and a destination', () => {
    expect(problemsOf(link({ shortLinkName: '' }))).toEqual(['shortLinkName:isLength']);
    expect(problemsOf(link({ shortLinkName: 'n'.repeat(257) }))).toEqual(['shortLinkName:isLength']);
    expect(problemsOf(link({ slug: undefined, destinationUrl: undefined }))).toEqual(['slug:required', 'destinationUrl:required']);
  });

  it.each(['http://example.com', 'https://example.com/a/b?c=d#e', 'https://127.0.0.1:8443/x', 'https://[2001:db8::1]/'])(
    'accepts the destination %s',
    (destinationUrl) => expect(problemsOf(link({ destinationUrl }))).toEqual([]),
  );

  it.each([
    ['a relative URL', '/sale'],
    ['another scheme', 'ftp://example.com/file'],
    ['javascript', 'javascript:alert(1)'],
    ['credentials', 'https://user:pass@example.com/'],
    ['a user name', 'https://google.com@evil.example/'],
    ['whitespace', 'https://exa mple.com/'],
    ['a line break', 'https://example.com/\nSet-Cookie: x'],
    ['no URL at all', 'not a url'],
  ])('refuses %s as destination', (_what, destinationUrl) => expect(problemsOf(link({ destinationUrl }))).toEqual(['destinationUrl:isUrl']));

  it('refuses a destination over 4096 characters', () => {
    const long = `https://example.com/${'p'.repeat(4096)}`;
    expect(problemsOf(link({ destinationUrl: long }))).toEqual(['destinationUrl:maxLength']);
    expect(problemsOf(link({ destinationUrl: long.slice(0, 4096) }))).toEqual([]);
  });
});
