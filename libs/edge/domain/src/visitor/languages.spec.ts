import { MAX_ACCEPT_LANGUAGE_LENGTH, languagesOf } from './languages';

describe('languagesOf', () => {
  it.each([
    ['en-US,en;q=0.9,de;q=0.8', 'en', 'en-US'],
    ['de', 'de', 'de'],
    ['fr-CH, fr;q=0.9, en;q=0.8, de;q=0.7, *;q=0.5', 'fr', 'fr-CH'],
    ['EN-us', 'en', 'en-US'],
    ['zh-hant-tw,zh;q=0.8', 'zh', 'zh-Hant-TW'],
    ['es-419', 'es', 'es-419'],
    // The highest quality wins, whatever the order; the first of equals.
    ['de;q=0.5, en-GB;q=0.9, fr;q=0.9', 'en', 'en-GB'],
    // A wildcard, a refused language (q=0) and a malformed entry are never the visitor's language.
    ['*, pt-BR', 'pt', 'pt-BR'],
    ['ja;q=0, ko;q=0.1', 'ko', 'ko'],
    ['en_US, it', 'it', 'it'],
    ['ru;q=abc, uk;q=0.2', 'uk', 'uk'],
  ])('reads %p as %s / %s', (header, mainLanguage, browserLanguage) => {
    expect(languagesOf(header)).toEqual({ mainLanguage, browserLanguage });
  });

  it.each([undefined, '', '*', 'en;q=0', ' , ;', '12-34', 'x'.repeat(20)])('is unknown for %p', (header) => {
    expect(languagesOf(header)).toEqual({ mainLanguage: 'unknown', browserLanguage: 'unknown' });
  });

  it('reads only the start of a huge header', () => {
    const huge = `${'xx;q=0.1,'.repeat(10_000)}en`;
    expect(languagesOf(huge)).toEqual({ mainLanguage: 'xx', browserLanguage: 'xx' });
    expect(languagesOf(`${' '.repeat(MAX_ACCEPT_LANGUAGE_LENGTH)}en`)).toEqual({ mainLanguage: 'unknown', browserLanguage: 'unknown' });
  });
});
