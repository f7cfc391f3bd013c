import type { RoutingVisitor } from '@funnel/routing';
import type { VisitorAttributes } from '@funnel/visitor-context';
import type { ClientAddress } from './client-address';
import type { GeoAttributes } from './geo/geo-record';
import type { ZoneAttributes } from './geo/time-zone';
import type { LanguageAttributes } from './languages';
import type { NetworkAttributes } from './network';
import type { DeviceAttributes } from './user-agent';
import { UNKNOWN } from './unknown';

/**
 * The visitor attributes the edge resolves from a request, named as @funnel/visitor-context names the
 * routing variables (and HIT_VISITOR_FIELDS the hit's visitor). Not resolved here: `initialReferrer`
 * (the session's first referrer) and `trafficSourceID` (the link's), which the visitor routes add.
 */
export interface EdgeVisitorAttributes extends VisitorAttributes, DeviceAttributes, LanguageAttributes, NetworkAttributes {
  country: string;
  city: string;
  region: string;
  continent: string;
  /** `GMT+7`, `GMT-5`, `GMT+5:30`, `GMT+0` at the request's time. */
  timezone: string;
  /** Whole hours of the visitor's UTC offset at the request's time; absent when the time zone is unknown (reads as 0). */
  utcOffsetHours?: number;
  /** The client address; `unknown` when the request has none that is an address. */
  ip: string;
  /** The User-Agent header (first 512 characters); `unknown` without one. */
  userAgent: string;
  /** The Referer header (first 2048 characters); "" without one, so that routing falls back to initialReferrer. */
  referrer: string;
  currentURL: string;
  trackingDomain: string;
  /** The link's traffic source (an entrance's token, an action's session): set by the visitor routes. */
  trafficSourceID?: string;
  /** The visit's first referrer (an entrance's own Referer): set by the visitor routes on an entrance. */
  initialReferrer?: string;
}

/** What the edge found out about one request. */
export interface ResolvedVisitorParts {
  address: ClientAddress;
  geo: GeoAttributes;
  zone: ZoneAttributes;
  network: NetworkAttributes;
  device: DeviceAttributes;
  languages: LanguageAttributes;
  userAgent: string | undefined;
  referrer: string | undefined;
  currentURL: string;
  trackingDomain: string;
}

/** The attributes of one request from what was resolved. */
export function visitorAttributesOf(parts: ResolvedVisitorParts): EdgeVisitorAttributes {
  const { geo, zone, network, device, languages } = parts;
  const attributes: EdgeVisitorAttributes = {
    country: geo.country,
    city: geo.city,
    region: geo.region,
    continent: geo.continent,
    timezone: zone.timezone,
    deviceType: device.deviceType,
    brand: device.brand,
    model: device.model,
    os: device.os,
    osVersion: device.osVersion,
    browser: device.browser,
    browserVersion: device.browserVersion,
    mainLanguage: languages.mainLanguage,
    browserLanguage: languages.browserLanguage,
    ip: parts.address.ip || UNKNOWN,
    isp: network.isp,
    connectionType: network.connectionType,
    mobileCarrier: network.mobileCarrier,
    userAgent: parts.userAgent ?? UNKNOWN,
    referrer: parts.referrer ?? '',
    currentURL: parts.currentURL,
    trackingDomain: parts.trackingDomain,
  };
  if (zone.utcOffsetHours !== undefined) attributes.utcOffsetHours = zone.utcOffsetHours;
  return attributes;
}

/** The engine's visitor: the attributes, the request's time (UTC epoch ms), its URL parameters and the client address ("" when none). */
export interface EdgeRoutingVisitor extends RoutingVisitor {
  attributes: EdgeVisitorAttributes;
  params: Record<string, string>;
  ip: string;
}

export function routingVisitorOf(attributes: EdgeVisitorAttributes, time: number, params: Record<string, string>, ip: string): EdgeRoutingVisitor {
  return { attributes, time, params, ip };
}
