import type { AttributeInfo, AttributeType } from '@funnel/contracts';
import { TRACKING_FIELD_SLOTS } from '@funnel/contracts';
import { HIT_VISITOR_FIELDS, type HitVisitorField } from '@funnel/reporting-domain';

/** Local time buckets (see time/buckets.ts): each is an integer the engine computes from the hit's local time. */
export type TimeUnit = 'date' | 'hhmm' | 'block15' | 'weekday' | 'hour';

/** Hit fields that hold one text value. */
export type HitTextField =
  'hitId' | 'visitorId' | 'idFunnel' | 'idFunnelGroup' | 'idTrafficSource' | 'idNode' | 'idPage' | 'nodeType' | 'idOfferSource' | 'countryCode' | 'ip';

/**
 * Where an attribute's value comes from, in terms of the Hit record (the engines map it to columns).
 * "" (or 0 for `action`, no tag for `tags`) is "no value": the report's N/A.
 */
export type AttributeSource =
  /** A text field; with `whenNodeType`, only on hits of nodes of that type (the page of a lander, of an offer). */
  | { kind: 'field'; field: HitTextField; whenNodeType?: string }
  | { kind: 'visitor'; field: HitVisitorField }
  | { kind: 'tracking'; slot: string }
  /** One row per visitor tag the hit carries (a hit with two tags counts in both rows). */
  | { kind: 'tags' }
  /** The action number (1..64) that led to the hit; 0 (an entrance) is N/A. */
  | { kind: 'action' }
  /** The host of the referrer URL, lower case. */
  | { kind: 'referrerDomain' }
  | { kind: 'time'; unit: TimeUnit };

/** How a grouping cell's raw value is shown. */
export type AttributeNames =
  /** An asset's name, looked up by id among the account's assets of that kind (archived included). */
  | { kind: 'asset'; assetKind: string }
  /** A funnel node's name, found in the node's funnel (`nodes[].nodeName`). */
  | { kind: 'funnelNode' }
  /** A country's English name from its ISO 3166-1 code. */
  | { kind: 'country' }
  /** As is. */
  | { kind: 'text' };

export interface AttributeDefinition extends AttributeInfo {
  source: AttributeSource;
  names: AttributeNames;
  /** Filters match ids exactly (asset attributes) or text case-insensitively with `*` wildcards. */
  match: 'exact' | 'pattern';
}

type Options = Partial<Pick<AttributeDefinition, 'canGroupBy' | 'canFilter' | 'names' | 'match'>>;

function attribute(key: string, label: string, type: AttributeType, source: AttributeSource, options: Options = {}): AttributeDefinition {
  const asset = type === 'asset';
  return {
    key,
    label,
    type,
    canGroupBy: options.canGroupBy ?? true,
    canFilter: options.canFilter ?? type !== 'time',
    source,
    names: options.names ?? { kind: 'text' },
    match: options.match ?? (asset ? 'exact' : 'pattern'),
  };
}

const asset = (assetKind: string): Options => ({ names: { kind: 'asset', assetKind } });

/** Labels of the visitor attributes (`Device: ...`, `Connection: ...`, `Location: ...`). */
const VISITOR_LABELS: Record<HitVisitorField, string> = {
  deviceType: 'Device: Device Type',
  brand: 'Device: Brand',
  model: 'Device: Model',
  os: 'Device: OS',
  osVersion: 'Device: OS Version',
  browser: 'Device: Browser',
  browserVersion: 'Device: Browser Version',
  mainLanguage: 'Device: Browser Main Language',
  browserLanguage: 'Device: Browser Language',
  userAgent: 'Device: User Agent',
  connectionType: 'Connection: Connection Type',
  isp: 'Connection: ISP',
  mobileCarrier: 'Connection: Mobile Carrier',
  referrer: 'Connection: Referrer',
  continent: 'Location: Continent',
  region: 'Location: Region',
  city: 'Location: City',
  timezone: 'Location: Timezone',
};

/** The label of a tracking-field slot when no traffic source names it. */
export const trackingFieldLabel = (slot: string): string => `URL Tracking Field: ${slot}`;

/** Node types whose hits show a page: the lander and offer attributes and view metrics read them. */
export const LANDER_NODE_TYPE = 'landerGroup';
export const OFFER_NODE_TYPE = 'offerGroup';

/**
 * Every attribute, in catalogue order. "Element: Funnel Group" is the reference API's
 * "Element: Campaign" (this service calls campaigns funnel groups); both labels are accepted.
 */
export const ATTRIBUTES: readonly AttributeDefinition[] = [
  attribute('funnelGroup', 'Element: Funnel Group', 'asset', { kind: 'field', field: 'idFunnelGroup' }, asset('funnelgroup')),
  attribute('funnel', 'Element: Funnel', 'asset', { kind: 'field', field: 'idFunnel' }, asset('funnel')),
  attribute('lander', 'Element: Lander', 'asset', { kind: 'field', field: 'idPage', whenNodeType: LANDER_NODE_TYPE }, asset('page')),
  attribute('offer', 'Element: Offer', 'asset', { kind: 'field', field: 'idPage', whenNodeType: OFFER_NODE_TYPE }, asset('page')),
  attribute('node', 'Element: Node', 'asset', { kind: 'field', field: 'idNode' }, { names: { kind: 'funnelNode' } }),
  attribute('nodeType', 'Element: Node Type', 'text', { kind: 'field', field: 'nodeType' }),
  attribute('trafficSource', 'Third Parties: Traffic Source', 'asset', { kind: 'field', field: 'idTrafficSource' }, asset('trafficsource')),
  attribute('offerSource', 'Third Parties: Offer Source', 'asset', { kind: 'field', field: 'idOfferSource' }, asset('offersource')),
  attribute('visitorId', 'Traffic: Visitor ID', 'text', { kind: 'field', field: 'visitorId' }),
  attribute('visitorTag', 'Traffic: Visitor Tag', 'asset', { kind: 'tags' }, asset('visitortag')),
  attribute('hitId', 'Hit: Hit ID', 'text', { kind: 'field', field: 'hitId' }, { canGroupBy: false }),
  attribute('action', 'Click: Action Num', 'number', { kind: 'action' }, { match: 'exact' }),
  ...HIT_VISITOR_FIELDS.filter((field) => VISITOR_LABELS[field].startsWith('Device:')).map((field) =>
    attribute(field, VISITOR_LABELS[field], 'text', { kind: 'visitor', field }),
  ),
  ...HIT_VISITOR_FIELDS.filter((field) => VISITOR_LABELS[field].startsWith('Connection:')).map((field) =>
    attribute(field, VISITOR_LABELS[field], 'text', { kind: 'visitor', field }),
  ),
  attribute('referrerDomain', 'Connection: Referrer Domain', 'text', { kind: 'referrerDomain' }),
  attribute('ip', 'Connection: IP', 'text', { kind: 'field', field: 'ip' }),
  attribute('continent', 'Location: Continent', 'text', { kind: 'visitor', field: 'continent' }),
  attribute('country', 'Location: Country', 'text', { kind: 'field', field: 'countryCode' }, { names: { kind: 'country' } }),
  attribute('countryCode', 'Location: Country Code', 'text', { kind: 'field', field: 'countryCode' }),
  attribute('region', 'Location: Region', 'text', { kind: 'visitor', field: 'region' }),
  attribute('city', 'Location: City', 'text', { kind: 'visitor', field: 'city' }),
  attribute('timezone', 'Location: Timezone', 'text', { kind: 'visitor', field: 'timezone' }),
  attribute('date', 'Time: Date', 'time', { kind: 'time', unit: 'date' }),
  attribute('hhmm', 'Time: HH:MM', 'time', { kind: 'time', unit: 'hhmm' }),
  attribute('block15', 'Time: 15min. Block', 'time', { kind: 'time', unit: 'block15' }),
  attribute('weekPart', 'Time: Week-Parting', 'time', { kind: 'time', unit: 'weekday' }),
  attribute('dayPart', 'Time: Day-Parting', 'time', { kind: 'time', unit: 'hour' }),
  ...TRACKING_FIELD_SLOTS.map((slot) => attribute(slot, trackingFieldLabel(slot), 'text', { kind: 'tracking', slot })),
];

/** Other accepted labels of an attribute (the reference API's names where ours differ). */
export const ATTRIBUTE_ALIASES: Readonly<Record<string, string>> = {
  'Element: Campaign': 'funnelGroup',
  'Element: Node ID': 'node',
  'Element: Node Name': 'node',
  'URL Tracking Field': 'campaign',
};

/** A traffic source's tracking field names (`trackingFieldSlots`: slot -> `{ name }`). */
export type TrackingFieldNames = Readonly<Record<string, { name?: string } | undefined>>;

/**
 * The catalogue as one request sees it: tracking-field attributes labelled with the traffic source's
 * own names for its slots (`URL Tracking Field: <name>`) when the request is limited to one source.
 */
export function attributesFor(trackingNames?: TrackingFieldNames): AttributeDefinition[] {
  return ATTRIBUTES.map((definition) => {
    if (definition.source.kind !== 'tracking' || !trackingNames) return definition;
    const name = trackingNames[definition.source.slot]?.name;
    return name ? { ...definition, label: `URL Tracking Field: ${name}` } : definition;
  });
}

/** What the attributes route lists of an attribute. */
export function attributeInfo({ key, label, type, canGroupBy, canFilter }: AttributeDefinition): AttributeInfo {
  return { key, label, type, canGroupBy, canFilter };
}
