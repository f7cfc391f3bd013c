export * from './integrations-feature.module';
export * from './integrations.tokens';
export * from './integrations/integrations.service';
export * from './providers/provider-settings';
export * from './providers/meta/meta-ad-platform';
export * from './providers/catalog';
export * from './oauth/oauth-client';
