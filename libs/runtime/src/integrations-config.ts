import { AssetSecretBox } from '@funnel/assets-feature';
import type { EncryptedSecret, SecretCipher } from '@funnel/assets-domain';
import { AdPlatformRegistry } from '@funnel/integrations-domain';
import { IntegrationsFeatureOptions, PROVIDER_CATALOG, type ProviderSettings } from '@funnel/integrations-feature';
import { Config, ConfigError, ConfigSpec, duration, string, url } from '@funnel/platform';
import { dataDirFile } from './data-dir';

/** `INTEGRATION_<PROVIDER>_*` for every provider of the catalog: the OAuth client and the provider's addresses. */
function providerConfig(): ConfigSpec {
  const spec: ConfigSpec = {};
  for (const { provider, defaults, extras = [] } of PROVIDER_CATALOG) {
    const name = `INTEGRATION_${provider.toUpperCase()}`;
    spec[`${name}_CLIENT_ID`] = string({ optional: true });
    spec[`${name}_CLIENT_SECRET`] = string({ optional: true });
    spec[`${name}_AUTH_URL`] = url({ default: defaults.authUrl, protocols: ['https', 'http'] });
    spec[`${name}_TOKEN_URL`] = url({ default: defaults.tokenUrl, protocols: ['https', 'http'] });
    spec[`${name}_API_URL`] = url({ default: defaults.apiUrl, protocols: ['https', 'http'] });
    for (const extra of extras) {
      const protocols = ['https', 'http'];
      const key = `${name}_${extra.env}`;
      if (extra.kind === 'url') spec[key] = extra.default !== undefined ? url({ default: extra.default, protocols }) : url({ optional: true, protocols });
      else spec[key] = extra.default !== undefined ? string({ default: extra.default }) : string({ optional: true });
    }
  }
  return spec;
}

export const integrationsConfig = {
  /** Where providers send users back after they authorize (registered with each provider's app); no provider can be connected without it. */
  INTEGRATION_REDIRECT_URI: url({ optional: true, protocols: ['https', 'http'] }),
  /** Default `<DATA_DIR>/integration-secrets.json` (0600), opened once a provider is configured: it encrypts the integrations' tokens. */
  INTEGRATION_SECRETS_FILE: string({ optional: true }),
  /** Bound of one provider call. */
  INTEGRATION_PROVIDER_TIMEOUT: duration({ default: '10s', min: '1s', max: '60s' }),
  ...providerConfig(),
};

type IntegrationsConfig = Config<typeof integrationsConfig> & { DATA_DIR: string } & Record<string, unknown>;

/** The provider adapters, each with its settings; a provider with a client id needs its secret too. */
export function integrationPlatformsFrom(config: IntegrationsConfig): AdPlatformRegistry {
  return new AdPlatformRegistry(
    PROVIDER_CATALOG.map(({ provider, create, extras = [] }) => {
      const name = `INTEGRATION_${provider.toUpperCase()}`;
      const settings: ProviderSettings = {
        clientId: config[`${name}_CLIENT_ID`] as string | undefined,
        clientSecret: config[`${name}_CLIENT_SECRET`] as string | undefined,
        authUrl: config[`${name}_AUTH_URL`] as string,
        tokenUrl: config[`${name}_TOKEN_URL`] as string,
        apiUrl: config[`${name}_API_URL`] as string,
        timeoutMs: config.INTEGRATION_PROVIDER_TIMEOUT,
        extra: Object.fromEntries(extras.map((extra) => [extra.key, config[`${name}_${extra.env}`] as string | undefined])),
      };
      if (settings.clientId !== undefined && settings.clientSecret === undefined) {
        throw new ConfigError(`${name}_CLIENT_SECRET`, 'set', `is required when ${name}_CLIENT_ID is set`);
      }
      return create(settings);
    }),
  );
}

export function integrationSecretsFileFrom(config: { INTEGRATION_SECRETS_FILE?: string; DATA_DIR: string }): string {
  return config.INTEGRATION_SECRETS_FILE ?? dataDirFile(config.DATA_DIR, 'integration-secrets.json');
}

/** No provider configured: nothing can be connected, so nothing is encrypted and no key file is made. */
const NO_SECRETS: SecretCipher = {
  encrypt(): EncryptedSecret {
    throw new Error('no integration provider is configured');
  },
  decrypt(): string {
    throw new Error('no integration provider is configured');
  },
};

/** The integrations module's options but the stores and the assets client. */
export function integrationsOptionsFrom(config: IntegrationsConfig): Omit<IntegrationsFeatureOptions, 'eventStore' | 'readStore' | 'assets'> {
  const platforms = integrationPlatformsFrom(config);
  const configured = platforms.all().some((platform) => platform.configured);
  return {
    platforms,
    secrets: configured ? AssetSecretBox.openOrCreate(integrationSecretsFileFrom(config)) : NO_SECRETS,
    settings: { redirectUri: config.INTEGRATION_REDIRECT_URI },
  };
}

/** The key file a process with this configuration opens (none while no provider is configured). */
export function integrationStartFiles(config: IntegrationsConfig): { variable: string; path: string; kind: 'key' }[] {
  return integrationPlatformsFrom(config)
    .all()
    .some((platform) => platform.configured)
    ? [{ variable: 'INTEGRATION_SECRETS_FILE', path: integrationSecretsFileFrom(config), kind: 'key' }]
    : [];
}
