import type { AdPlatform } from '@funnel/integrations-domain';
import type { ProviderExtraSetting, ProviderSettings } from './provider-settings';
import { META_DEFAULTS, MetaAdPlatform } from './meta/meta-ad-platform';
import { TIKTOK_DEFAULTS, TikTokAdPlatform } from './tiktok/tiktok-ad-platform';
import { GOOGLE_DEFAULTS, GOOGLE_EXTRAS, GoogleAdPlatform } from './google/google-ad-platform';
import { MICROSOFT_DEFAULTS, MICROSOFT_EXTRAS, MicrosoftAdPlatform } from './microsoft/microsoft-ad-platform';

/**
 * Every provider the service has an adapter for: its name (the `<PROVIDER>` of its
 * `INTEGRATION_<PROVIDER>_*` settings), its documented addresses, and how its adapter is made.
 * A new provider is one more entry.
 */
export interface ProviderEntry {
  provider: string;
  defaults: { authUrl: string; tokenUrl: string; apiUrl: string };
  /** Settings beyond the OAuth client and the three addresses (a second API, a developer token). */
  extras?: readonly ProviderExtraSetting[];
  create(settings: ProviderSettings): AdPlatform;
}

export const PROVIDER_CATALOG: readonly ProviderEntry[] = [
  { provider: 'meta', defaults: META_DEFAULTS, create: (settings) => new MetaAdPlatform(settings) },
  { provider: 'tiktok', defaults: TIKTOK_DEFAULTS, create: (settings) => new TikTokAdPlatform(settings) },
  { provider: 'google', defaults: GOOGLE_DEFAULTS, extras: GOOGLE_EXTRAS, create: (settings) => new GoogleAdPlatform(settings) },
  { provider: 'microsoft', defaults: MICROSOFT_DEFAULTS, extras: MICROSOFT_EXTRAS, create: (settings) => new MicrosoftAdPlatform(settings) },
];
