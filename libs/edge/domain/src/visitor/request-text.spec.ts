import { MAX_PARAMS, MAX_URL_LENGTH, currentUrlOf, headerText, trackingDomainOf, urlParamsOf } from './request-text';

describe('headerText', () => {
  it('takes the first value of a repeated header, cut at the limit', () => {
    expect(headerText(['a', 'b'], 10)).toBe('a');
    expect(headerText('abcdef', 3)).toBe('abc');
    expect(headerText(undefined, 3)).toBeUndefined();
    expect(headerText('', 3)).toBeUndefined();
  });
});

describe('trackingDomainOf', () => {
  it.each([
    ['Track.Example.com', 'track.example.com'],
    ['track.example.com:8443', 'track.example.com'],
    ['track.example.com.', 'track.example.com'],
    ['127.0.0.1:3001', '127.0.0.1'],
    ['[::1]:3001', '[::1]'],
  ])('reads the host %s as %s', (host, domain) => {
    expect(trackingDomainOf(host)).toBe(domain);
  });

  it.each([undefined, '', 'exa mple.com', 'a/b', '-x.com', `${'a'.repeat(300)}.com`])('is unknown for %p', (host) => {
    expect(trackingDomainOf(host)).toBe('unknown');
  });
});

describe('currentUrlOf', () => {
  it('joins protocol, host and the path with its query', () => {
    expect(currentUrlOf('https', 'track.example.com', '/fts/abc?c1=x')).toBe('https://track.example.com/fts/abc?c1=x');
    expect(currentUrlOf(undefined, 'track.example.com:3001', '/action/1')).toBe('http://track.example.com:3001/action/1');
  });

  it('cuts a huge URL and is unknown without a host', () => {
    expect(currentUrlOf('http', 'a.com', `/x?${'y'.repeat(10_000)}`)).toHaveLength(MAX_URL_LENGTH);
    expect(currentUrlOf('http', undefined, '/x')).toBe('unknown');
  });
});

describe('urlParamsOf', () => {
  it('keeps string values, the last of a repeated name', () => {
    expect(urlParamsOf({ c1: 'a', c2: ['x', 'y'], n: 3, o: { a: 1 } })).toEqual({ c1: 'a', c2: 'y' });
  });

  it('treats __proto__ as a parameter like any other', () => {
    const query = JSON.parse('{"__proto__":"polluted","c1":"a"}');
    const params = urlParamsOf(query);
    expect(Object.getPrototypeOf(params)).toBe(Object.prototype);
    expect(Object.keys(params)).toEqual(['__proto__', 'c1']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('reads at most MAX_PARAMS names, skips huge names and cuts huge values', () => {
    const many = Object.fromEntries(Array.from({ length: 1000 }, (_, i) => [`p${i}`, 'v']));
    expect(Object.keys(urlParamsOf(many))).toHaveLength(MAX_PARAMS);
    expect(urlParamsOf({ ['n'.repeat(200)]: 'v', ok: 'w'.repeat(10_000) })).toEqual({ ok: 'w'.repeat(MAX_URL_LENGTH) });
  });

  it('is empty for no query', () => {
    expect(urlParamsOf(undefined)).toEqual({});
    expect(urlParamsOf('c1=a')).toEqual({});
  });
});
