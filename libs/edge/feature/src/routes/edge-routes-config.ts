// The visitor routes' configuration rules (add them to the tracking edge's and the standalone's spec).
import { ConfigError, INVALID_CONFIG_VALUE, int, string, type Config, type ConfigRule } from '@funnel/platform';
import { normaliseHost } from '@funnel/edge-domain';

/** A host name (no scheme, path or port), lower case; unset without a default. */
export function domainRule(defaultDomain?: string): ConfigRule<string | undefined> {
  return {
    description: `a host name such as edge.example.net (no scheme, port or path), or unset (default ${defaultDomain ?? 'unset'})`,
    read(raw) {
      if (raw === undefined || raw.trim() === '') return defaultDomain;
      const name = normaliseHost(raw);
      return /^[a-z0-9](?:[a-z0-9-]{0,62})(?:\.[a-z0-9](?:[a-z0-9-]{0,62}))*$/.test(name) && raw.trim().toLowerCase().replace(/\.$/, '') === name
        ? name
        : INVALID_CONFIG_VALUE;
    },
  };
}

export const edgeRoutesConfig = {
  /**
   * The shared tracking domain whose links name their account in the path:
   * `https://<EDGE_DEFAULT_DOMAIN>/a/<accountId>/fts/<token>`. Unset: only custom domains serve links.
   */
  EDGE_DEFAULT_DOMAIN: domainRule(),
  /** Answered as `token` by GET /debug/domain-check, so that billing's domain check knows our edge (same value there). */
  EDGE_CHECK_TOKEN: string({ optional: true }),
  /** The longest request target (path and query) served; longer ones are answered 414. */
  EDGE_MAX_URL_BYTES: int({ min: 1024, max: 65_536, default: 8192 }),
  /** Node's maxHeaderSize for the edge's server: larger request headers are answered 431. */
  EDGE_MAX_HEADER_BYTES: int({ min: 4096, max: 65_536, default: 16_384 }),
};

export type EdgeRoutesConfig = Config<typeof edgeRoutesConfig>;

/** The visitor routes' HTTP settings from their configuration. */
export interface EdgeHttpLimits {
  maxUrlBytes: number;
  maxHeaderBytes: number;
}

export function edgeRoutesOptionsFrom(config: EdgeRoutesConfig): { defaultDomain?: string; checkToken?: string; limits: EdgeHttpLimits } {
  if (config.EDGE_CHECK_TOKEN !== undefined && !/^[\x21-\x7e]{1,256}$/.test(config.EDGE_CHECK_TOKEN)) {
    throw new ConfigError('EDGE_CHECK_TOKEN', 'token', 'must be 1..256 printable characters without spaces (value hidden)');
  }
  return {
    defaultDomain: config.EDGE_DEFAULT_DOMAIN,
    checkToken: config.EDGE_CHECK_TOKEN,
    limits: { maxUrlBytes: config.EDGE_MAX_URL_BYTES, maxHeaderBytes: config.EDGE_MAX_HEADER_BYTES },
  };
}
