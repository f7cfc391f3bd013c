import {
  ClientAddress,
  DeviceAttributes,
  EdgeRoutingVisitor,
  GeoAttributes,
  HeaderValue,
  LanguageAttributes,
  MAX_ACCEPT_LANGUAGE_LENGTH,
  MAX_URL_LENGTH,
  MAX_USER_AGENT_LENGTH,
  NetworkAttributes,
  TimeZoneOffsets,
  UNKNOWN_DEVICE,
  UNKNOWN_GEO,
  UNKNOWN_LANGUAGES,
  UNKNOWN_NETWORK,
  clientAddress,
  currentUrlOf,
  geoAttributes,
  headerText,
  languagesOf,
  mergeNetworkAttributes,
  networkAttributes,
  routingVisitorOf,
  trackingDomainOf,
  urlParamsOf,
  visitorAttributesOf,
} from '@funnel/edge-domain';
import { MmdbDatabases } from './mmdb-databases';
import { RecentUserAgents } from './recent-user-agents';
import { RecentValues } from './recent-values';
import type { VisitorResolverOptions } from './visitor-config';

/**
 * The parts of a visitor's HTTP request the resolver reads: a Fastify request has them all, when its
 * app was made with `trustProxy: trustProxyOption(TRUSTED_PROXIES)` (@funnel/platform), as the
 * gateway's is, so that `ip`, `host` and `protocol` are the client's behind the trusted proxies.
 */
export interface VisitorRequest {
  /** The client address (Fastify's `request.ip`). */
  ip?: string;
  headers: Readonly<Record<string, HeaderValue>>;
  /** The parsed query string (Fastify's `request.query`): the visitor's URL parameters. */
  query?: unknown;
  /** Path and query as requested (`request.url`). */
  url?: string;
  /** `http` or `https` (`request.protocol`). */
  protocol?: string;
  /** The Host, with its port if any (`request.host`). */
  host?: string;
}

/**
 * Turns a visitor's request into the routing engine's visitor: geo from MaxMind-format databases,
 * device, OS and browser from the User-Agent, languages, referrer, current URL and tracking domain,
 * the request's URL parameters and time. Synchronous and bounded per request: every database is in
 * memory, parsed User-Agents and the answers for a database record are remembered, and only the
 * first bytes of a huge header are read. Open it once at start (`VisitorResolver.open`).
 */
export class VisitorResolver {
  private readonly zones = new TimeZoneOffsets();
  /** Geo records are shared objects (maxmind caches decoded records), so their attributes are kept beside them. */
  private readonly geoOfRecord = new WeakMap<object, GeoAttributes>();
  private readonly networkOfRecord = new WeakMap<object, NetworkAttributes>();
  /** Browsers send a few Accept-Language headers over and over. */
  private readonly languages = new RecentValues<LanguageAttributes>(1000, (header) => Object.freeze(languagesOf(header)));

  private constructor(
    private readonly geo: MmdbDatabases,
    private readonly network: MmdbDatabases,
    private readonly userAgents: RecentUserAgents,
  ) {}

  static async open(options: VisitorResolverOptions): Promise<VisitorResolver> {
    const [geo, network] = await Promise.all([
      MmdbDatabases.open('GEOIP_DB', options.geoDatabases),
      MmdbDatabases.open('GEOIP_ISP_DB', options.networkDatabases),
    ]);
    return new VisitorResolver(geo, network, new RecentUserAgents(options.userAgentCacheSize));
  }

  /** The visitor of a request received at `time` (UTC epoch ms). */
  resolve(request: VisitorRequest, time: number = Date.now()): EdgeRoutingVisitor {
    const address = clientAddress(request.ip);
    const geo = address.public ? this.geoOf(address) : UNKNOWN_GEO;
    const userAgent = headerText(request.headers['user-agent'], MAX_USER_AGENT_LENGTH);
    const attributes = visitorAttributesOf({
      address,
      geo,
      zone: this.zones.at(geo.timeZoneName, time),
      network: address.public ? this.networkOf(address) : UNKNOWN_NETWORK,
      device: userAgent === undefined ? UNKNOWN_DEVICE : this.deviceOf(userAgent),
      languages: this.languagesOf(headerText(request.headers['accept-language'], MAX_ACCEPT_LANGUAGE_LENGTH)),
      userAgent,
      referrer: headerText(request.headers['referer'], MAX_URL_LENGTH),
      currentURL: currentUrlOf(request.protocol, request.host, request.url),
      trackingDomain: trackingDomainOf(request.host),
    });
    return routingVisitorOf(attributes, time, urlParamsOf(request.query), address.ip);
  }

  private geoOf(address: ClientAddress): GeoAttributes {
    const record = this.geo.first(address);
    if (record === null) return UNKNOWN_GEO;
    let attributes = this.geoOfRecord.get(record);
    if (attributes === undefined) {
      attributes = Object.freeze(geoAttributes(record));
      this.geoOfRecord.set(record, attributes);
    }
    return attributes;
  }

  private networkOf(address: ClientAddress): NetworkAttributes {
    if (this.network.size === 0) return UNKNOWN_NETWORK;
    const parts = this.network.all(address).map((record) => {
      let attributes = this.networkOfRecord.get(record);
      if (attributes === undefined) {
        attributes = Object.freeze(networkAttributes(record));
        this.networkOfRecord.set(record, attributes);
      }
      return attributes;
    });
    return parts.length === 0 ? UNKNOWN_NETWORK : mergeNetworkAttributes(parts);
  }

  private languagesOf(header: string | undefined): LanguageAttributes {
    return header === undefined ? UNKNOWN_LANGUAGES : this.languages.get(header);
  }

  private deviceOf(userAgent: string): DeviceAttributes {
    return this.userAgents.deviceOf(userAgent);
  }
}
