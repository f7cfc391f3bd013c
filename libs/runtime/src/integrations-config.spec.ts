import { loadConfig } from '@funnel/platform';
import { integrationPlatformsFrom, integrationStartFiles, integrationsConfig } from './integrations-config';

const load = (env: NodeJS.ProcessEnv) => ({ ...loadConfig(integrationsConfig, env), DATA_DIR: '/data' });

describe('integrations configuration', () => {
  it('knows every provider of the catalog, unconfigured (and opening no key file) until its client id and secret are set', () => {
    const config = load({});
    const meta = integrationPlatformsFrom(config).get('meta')!;
    expect(meta.configured).toBe(false);
    expect(integrationStartFiles(config)).toEqual([]);
  });

  it('points a provider at other addresses, and opens the key file once one is configured', () => {
    const config = load({
      INTEGRATION_META_CLIENT_ID: 'app',
      INTEGRATION_META_CLIENT_SECRET: 'secret',
      INTEGRATION_META_AUTH_URL: 'http://127.0.0.1:9000/authorize',
    });
    const meta = integrationPlatformsFrom(config).get('meta')!;
    expect(meta.configured).toBe(true);
    expect(meta.authorizationUrl({ state: 's', redirectUri: 'https://app.example.com/cb', codeChallenge: null }).origin).toBe('http://127.0.0.1:9000');
    expect(integrationStartFiles(config)).toEqual([{ variable: 'INTEGRATION_SECRETS_FILE', path: '/data/integration-secrets.json', kind: 'key' }]);
  });

  it('stops at start on a client id without its secret, or a bad address', () => {
    expect(() => integrationPlatformsFrom(load({ INTEGRATION_META_CLIENT_ID: 'app' }))).toThrow(
      'INTEGRATION_META_CLIENT_SECRET is required when INTEGRATION_META_CLIENT_ID is set',
    );
    expect(() => load({ INTEGRATION_META_API_URL: 'not a url' })).toThrow(/INTEGRATION_META_API_URL/);
  });
});
