import { integrationStartFiles } from './integrations-config';
import { join } from 'node:path';
import { EVENT_STORE_FILE } from '@funnel/eventstore';
import { READ_STATE_FILE } from '@funnel/readstore';
import { edgeRoutesOptionsFrom } from '@funnel/edge-feature';
import { loadConfig } from '@funnel/platform';
import { assetSecretsFileFrom, authOptionsFrom, bootstrapAdminFrom, edgeOptionsFrom, natsAccessFrom } from './config';
import { assetEventsOptionsFrom } from './asset-events';
import { REPORTING_FILE, checkReportingConfig } from './reporting-config';
import { assetsServiceConfig, billingServiceConfig, gatewayConfig, identityServiceConfig, reportingServiceConfig, scriptsServiceConfig } from './services';
import { trackingEdgeConfig } from './tracking-edge';
import type { StoreSettings } from './stores';

/** A file an app writes at start, as its configuration places it. */
export interface StartFile {
  /** The variable that places it (DATA_DIR for the embedded stores' files). */
  variable: string;
  path: string;
  /**
   * `data`: written for as long as the app runs, so it needs a writable place that outlives the pod;
   * `key`: created when absent, else only read, so a file mounted from a Secret serves as well.
   */
  kind: 'data' | 'key';
}

/**
 * The embedded event log when EVENTSTORE_URL is not set; the embedded read store's state file (its
 * persistent collections; the projected read models are in memory) when MONGO_URL is not set.
 */
function storeFiles(config: StoreSettings): StartFile[] {
  return [
    ...(config.EVENTSTORE_URL ? [] : [{ variable: 'DATA_DIR', path: join(config.DATA_DIR, EVENT_STORE_FILE), kind: 'data' as const }]),
    ...(config.MONGO_URL ? [] : [{ variable: 'DATA_DIR', path: join(config.DATA_DIR, READ_STATE_FILE), kind: 'data' as const }]),
  ];
}

/**
 * What each distributed-mode app writes at start, from its environment: its configuration is loaded
 * and checked as its start does (a bad setting throws the same ConfigError), then the files come
 * from the same functions its start uses to place them. The deploy manifests' test checks that
 * every one of them has a writable and persistent volume, or a Secret, in each overlay.
 */
export const APP_START_FILES: Record<string, (env: NodeJS.ProcessEnv) => StartFile[]> = {
  gateway: (env) => {
    const config = loadConfig(gatewayConfig, env);
    edgeOptionsFrom(config);
    natsAccessFrom(config);
    return [];
  },
  'assets-service': (env) => {
    const config = loadConfig(assetsServiceConfig, env);
    natsAccessFrom(config);
    assetEventsOptionsFrom(config);
    return [...storeFiles(config), { variable: 'ASSET_SECRETS_FILE', path: assetSecretsFileFrom(config), kind: 'key' }];
  },
  'identity-service': (env) => {
    const config = loadConfig(identityServiceConfig, env);
    natsAccessFrom(config);
    bootstrapAdminFrom(config);
    const keysFile = authOptionsFrom(config).keysFile;
    return [...storeFiles(config), ...(keysFile ? [{ variable: 'IDENTITY_KEYS_FILE', path: keysFile, kind: 'key' as const }] : [])];
  },
  'scripts-service': (env) => (natsAccessFrom(loadConfig(scriptsServiceConfig, env)), []),
  'billing-service': (env) => {
    const config = loadConfig(billingServiceConfig, env);
    natsAccessFrom(config);
    return storeFiles(config);
  },
  'reporting-service': (env) => {
    const config = loadConfig(reportingServiceConfig, env);
    checkReportingConfig(config);
    natsAccessFrom(config);
    const hits: StartFile[] = config.CLICKHOUSE_URL ? [] : [{ variable: 'DATA_DIR', path: join(config.DATA_DIR, REPORTING_FILE), kind: 'data' }];
    return [...storeFiles(config), ...hits, ...integrationStartFiles(config)];
  },
  // Sessions in the JetStream bucket EDGE_SESSIONS, hits to the stream HITS: it writes no file.
  'tracking-edge': (env) => {
    const config = loadConfig(trackingEdgeConfig, env);
    natsAccessFrom(config);
    edgeRoutesOptionsFrom(config);
    return [];
  },
};
