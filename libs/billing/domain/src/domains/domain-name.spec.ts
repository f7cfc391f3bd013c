import { ServiceError } from '@funnel/contracts';
import { normaliseDomain, parseReservedDomains, serviceDomains } from './domain-name';

const reserved = parseReservedDomains(['funnel.io', ' Edge.Funnel-Cdn.net. ', '']);

function refusal(input: unknown): ServiceError {
  try {
    normaliseDomain(input, reserved);
  } catch (error) {
    expect(error).toBeInstanceOf(ServiceError);
    return error as ServiceError;
  }
  throw new Error(`expected ${JSON.stringify(input)} to be refused`);
}

describe('custom domain normalisation', () => {
  it.each([
    // input, domain, subdomain, root domain
    ['example.com', 'example.com', '', 'example.com'],
    ['shop.example.com', 'shop.example.com', 'shop', 'example.com'],
    ['Shop.Example.COM', 'shop.example.com', 'shop', 'example.com'],
    ['track.example.com.', 'track.example.com', 'track', 'example.com'],
    ['  track.example.com  ', 'track.example.com', 'track', 'example.com'],
    ['a.b.c.example.com', 'a.b.c.example.com', 'a.b.c', 'example.com'],
    ['shop.example.co.uk', 'shop.example.co.uk', 'shop', 'example.co.uk'],
    ['example.co.uk', 'example.co.uk', '', 'example.co.uk'],
    ['go.brand.com.au', 'go.brand.com.au', 'go', 'brand.com.au'],
    ['clicks.my-brand.de', 'clicks.my-brand.de', 'clicks', 'my-brand.de'],
    ['x1.example.io', 'x1.example.io', 'x1', 'example.io'],
    ['123.example.com', '123.example.com', '123', 'example.com'],
    ['münchen.de', 'xn--mnchen-3ya.de', '', 'xn--mnchen-3ya.de'],
    ['Bücher.example.com', 'xn--bcher-kva.example.com', 'xn--bcher-kva', 'example.com'],
    ['xn--mnchen-3ya.de', 'xn--mnchen-3ya.de', '', 'xn--mnchen-3ya.de'],
    ['пример.рф', 'xn--e1afmkfd.xn--p1ai', '', 'xn--e1afmkfd.xn--p1ai'],
    ['ＳＨＯＰ.example.com', 'shop.example.com', 'shop', 'example.com'],
    // A private suffix (github.io) counts as an ordinary name under its ICANN suffix.
    ['user.github.io', 'user.github.io', 'user', 'github.io'],
    [`${'a'.repeat(63)}.example.com`, `${'a'.repeat(63)}.example.com`, 'a'.repeat(63), 'example.com'],
    // 4 labels of 61 characters and `.com`: 61 * 4 + 4 dots + 3 = 251 characters.
    [`${'b'.repeat(61)}.`.repeat(4) + 'com', `${'b'.repeat(61)}.`.repeat(4) + 'com', `${'b'.repeat(61)}.`.repeat(3).slice(0, -1), `${'b'.repeat(61)}.com`],
    ['notfunnel.io', 'notfunnel.io', '', 'notfunnel.io'],
  ])('accepts %j as %s', (input, domain, subdomain, rootDomain) => {
    expect(normaliseDomain(input, reserved)).toEqual({ domain, subdomain, rootDomain });
  });

  it.each([
    ['', 'it is empty'],
    ['   ', 'it is empty'],
    ['com', 'is a public suffix'],
    ['co.uk', 'is a public suffix'],
    ['com.au', 'is a public suffix'],
    ['org.uk', 'is a public suffix'],
    ['127.0.0.1', 'IP addresses'],
    ['10.0.0.1', 'IP addresses'],
    ['[::1]', 'without scheme'],
    ['::ffff:127.0.0.1', 'without scheme'],
    ['1.2.3', 'IP addresses'],
    ['*.example.com', 'wildcards'],
    ['shop.*.example.com', 'wildcards'],
    ['localhost', 'known public suffix'],
    ['shop.localhost', 'known public suffix'],
    ['printer.local', 'known public suffix'],
    ['app.internal', 'known public suffix'],
    ['example.test', 'known public suffix'],
    ['example.invalid', 'known public suffix'],
    ['example.notatld', 'known public suffix'],
    ['https://shop.example.com', 'without scheme'],
    ['shop.example.com/path', 'without scheme'],
    ['shop.example.com:8443', 'without scheme'],
    ['user@example.com', 'without scheme'],
    ['shop example.com', 'without scheme'],
    ['shop..example.com', 'empty label'],
    ['.example.com', 'empty label'],
    ['shop.example.com..', 'empty label'],
    ['-shop.example.com', 'inner hyphens'],
    ['shop-.example.com', 'inner hyphens'],
    ['shop_1.example.com', 'inner hyphens'],
    [`${'a'.repeat(64)}.example.com`, 'longer than 63'],
    [`${'b'.repeat(62)}.`.repeat(4) + 'com', 'longer than 253'],
    ['funnel.io', 'of the service itself'],
    ['track.funnel.io', 'of the service itself'],
    ['edge.funnel-cdn.net', 'of the service itself'],
    ['a.edge.funnel-cdn.net', 'of the service itself'],
    ['xn--.example.com', 'not a valid internationalised'],
  ])('refuses %j (400 INVALID_DOMAIN: %s)', (input, why) => {
    const error = refusal(input);
    expect(error).toMatchObject({ status: 400, code: 'INVALID_DOMAIN' });
    expect(error.message).toContain(why);
    expect(error.details).toEqual([{ field: 'domain', code: 'isCustomDomain', message: error.message }]);
  });

  it.each([[null], [42], [undefined], [{ domain: 'example.com' }]])('refuses a %j that is not a string', (input) => {
    expect(refusal(input)).toMatchObject({ status: 400, code: 'INVALID_DOMAIN' });
  });

  it('keeps the input short in the message', () => {
    expect(refusal(`${'x'.repeat(300)}.com`).message.length).toBeLessThan(200);
  });
});

describe('service domains', () => {
  it('are the reserved list and the registrable domain of the CNAME target', () => {
    expect(serviceDomains(['Funnel.io', ''], 'edge.customers.funnel-cdn.net.')).toEqual(['funnel.io', 'funnel-cdn.net']);
    expect(serviceDomains([], 'edge.example.co.uk')).toEqual(['example.co.uk']);
    expect(serviceDomains(['example.co.uk'], 'edge.example.co.uk')).toEqual(['example.co.uk']);
  });
});
