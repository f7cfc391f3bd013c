import { WebhookConfigDto, generateAssetId, validateBody } from '@funnel/contracts';
import { isSigningSecret } from '@funnel/platform';
import type { AssetRecord } from '../asset-events';
import type { EncryptedSecret } from '../secret-fields';
import { KIND_RULES } from './index';
import { checkDeliveryHeaders, isDeliveryUrl } from './webhook-config';

const rules = KIND_RULES.webhookconfig;
const config = (fields: Record<string, unknown> = {}) =>
  ({ idWebhookConfig: generateAssetId(), webhookConfigName: 'Orders', status: 'active', idCategory: '', headers: {}, ...fields }) as AssetRecord;
const codesOf = (problems: { field: string; code: string }[]) => problems.map((p) => `${p.field}:${p.code}`);
const stored: EncryptedSecret = { $secret: 'aes-256-gcm', keyId: 'k', iv: 'aXY=', data: 'ZGF0YQ==', tag: 'dGFn' };

describe('webhook config rules', () => {
  it.each([
    ['https://hooks.zapier.com/hooks/catch/1/abc/', true],
    ['http://127.0.0.1:8080/hook', true],
    ['https://[::1]/hook', true],
    ['ftp://example.com/hook', false],
    ['/relative', false],
    ['https://user:pw@example.com/hook', false],
    ['https://exa mple.com', false],
  ])('%s is a delivery URL: %s', (url, ok) => {
    expect(isDeliveryUrl(url)).toBe(ok);
  });

  it('refuses a URL over 4096 characters', () => {
    expect(isDeliveryUrl(`https://example.com/${'p'.repeat(4096)}`)).toBe(false);
  });

  it('given a URL, headers and basic auth that follow the rules, when checked, then nothing is wrong', () => {
    const record = config({
      url: 'https://example.com/hook',
      headers: { 'X-Api-Key': 'k'.repeat(1024), Accept: '', 'X-Tab': 'a\tb' },
      basicAuth: { username: 'u' },
    });
    expect(rules.check!(record)).toEqual([]);
  });

  it('given a bad URL and a username with a colon, then each is named', () => {
    expect(codesOf(rules.check!(config({ url: 'mailto:a@example.com', basicAuth: { username: 'a:b' } })))).toEqual(['url:isUrl', 'basicAuth.username:pattern']);
  });

  it('given bad or long header names, reserved ones, a repeat, a long, broken or non-text value, then each is named with the code the middleware headers use, without echoing values', () => {
    const headers = {
      'Bad Name': 'x',
      'Webhook-Signature': 'v1,forged',
      'content-type': 'text/plain',
      Host: 'evil.example',
      'X-Twice': 'a',
      'x-twice': 'b',
      'X-Long': 'v'.repeat(1025),
      'X-Split': 'secret-value\r\nInjected: 1',
      'X-Number': 42,
      'X-Emoji': 'v😀',
      ['X-' + 'n'.repeat(255)]: 'v',
    };
    const problems = checkDeliveryHeaders(headers, 'headers', false);
    expect(codesOf(problems)).toEqual([
      'headers.Bad Name:headerName',
      'headers.Webhook-Signature:reserved',
      'headers.content-type:reserved',
      'headers.Host:reserved',
      'headers.x-twice:unique',
      'headers.X-Long:maxLength',
      'headers.X-Split:headerValue',
      'headers.X-Number:isString',
      'headers.X-Emoji:headerValue',
      `headers.X-${'n'.repeat(62)}…:headerName`,
    ]);
    expect(JSON.stringify(problems)).not.toContain('secret-value');
  });

  it('given more than 50 headers, then the count is the problem', () => {
    const headers = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`X-H${i}`, 'v']));
    expect(codesOf(checkDeliveryHeaders(headers, 'headers', false))).toEqual(['headers:maxEntries']);
  });

  it('given basic auth, then an Authorization header is a conflict; without it, Authorization is an ordinary header', () => {
    expect(codesOf(rules.check!(config({ headers: { Authorization: 'Bearer t' }, basicAuth: { username: 'u' } })))).toEqual(['headers.Authorization:conflict']);
    expect(rules.check!(config({ headers: { Authorization: 'Bearer t' } }))).toEqual([]);
  });

  it('given a new config (create or duplicate), when normalized, then it gets a signing secret of its own', () => {
    const first = rules.normalize!(config(), null);
    const second = rules.normalize!(config(), null);
    expect(isSigningSecret(first.signingSecret as string)).toBe(true);
    expect(first.signingSecret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from((first.signingSecret as string).slice(6), 'base64')).toHaveLength(32);
    expect(second.signingSecret).not.toBe(first.signingSecret);
  });

  it('given an update of a config with a stored secret, when normalized, then no secret is set (the stored one is kept)', () => {
    const update = rules.normalize!(config(), config({ signingSecret: stored }));
    expect(update).not.toHaveProperty('signingSecret');
  });
});

describe('WebhookConfig DTO', () => {
  const body = (fields: Record<string, unknown> = {}) => ({ idWebhookConfig: generateAssetId(), webhookConfigName: 'Orders', ...fields });

  it('given only the required fields, then the documented defaults apply', () => {
    expect({ ...validateBody(WebhookConfigDto, body()) }).toMatchObject({ enabled: true, targetType: 'custom', headers: {}, description: '' });
  });

  it('drops a signing secret and the read-only flags a client sends', () => {
    const dto = validateBody(WebhookConfigDto, body({ signingSecret: 'whsec_mine', hasSigningSecret: true, hasBasicAuthPassword: true }));
    expect(dto).not.toHaveProperty('signingSecret');
    expect(dto).not.toHaveProperty('hasSigningSecret');
  });

  it.each(['custom', 'zapier', 'make', 'n8n', 'pabbly', 'integrately', 'pipedream', 'ifttt'])('accepts targetType %s', (targetType) => {
    expect(validateBody(WebhookConfigDto, body({ targetType })).targetType).toBe(targetType);
  });

  it.each([
    ['an unknown targetType', { targetType: 'slack' }, 'targetType'],
    ['enabled as text', { enabled: 'yes' }, 'enabled'],
    ['headers as a list', { headers: ['X-A'] }, 'headers'],
    ['basic auth without a username', { basicAuth: { password: 'p' } }, 'basicAuth.username'],
    ['a password that is not text', { basicAuth: { username: 'u', password: 42 } }, 'basicAuth.password'],
    ['a 257-character name', { webhookConfigName: 'n'.repeat(257) }, 'webhookConfigName'],
  ])('refuses %s', (_what, fields, field) => {
    expect(() => validateBody(WebhookConfigDto, body(fields))).toThrow(expect.objectContaining({ details: [expect.objectContaining({ field })] }));
  });

  it.each(['********', '', null, 'a real password'])('accepts the basic-auth password %p (placeholder, removal or a value)', (password) => {
    expect(() => validateBody(WebhookConfigDto, body({ basicAuth: { username: 'u', password } }))).not.toThrow();
  });
});
