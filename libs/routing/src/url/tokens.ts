// The tokens of page and external URLs, and what each stands for in one walk.
//
//   {hit}                 the hit id of the node the URL belongs to (the page's hit)
//   {visitor}             the visitor id (the session)
//   {current-node-id}     the lander/offer group (or external URL) node
//   {funnel-id} {funnel-group-id} {traffic-source-id} {page-id}
//   {cost}                the entrance's cost (decimal text)
//   {data-<name>}         the session's URL buffer entry <name> ("" when absent)
//   {campaign} {external} {c1}..{c20}   tracking-field slot values ("" when absent)
//   {trackingField.<name>}              the tracking field whose URL parameter is <name> ("" when absent)
//   {country} {region} {city} {device-type} {os} {browser} {language}   visitor attributes ("" when unknown)
//   {<key>}               a key of the node's additionalTokens: its value
// Any other token is left as written.

/** Where a token's value comes from. */
export type TokenKind =
  'hit' | 'visitor' | 'currentNode' | 'funnel' | 'funnelGroup' | 'trafficSource' | 'page' | 'cost' | 'data' | 'slot' | 'trackingField' | 'attribute' | 'other';

export interface TokenRef {
  /** The token as written, braces included. */
  readonly raw: string;
  readonly kind: TokenKind;
  /** The buffer entry, slot, field name, attribute or (for `other`) the token's text. */
  readonly name: string;
}

/** What one URL's tokens read. */
export interface TokenContext {
  hitId: string;
  visitorId: string;
  idNode: string;
  idFunnel: string;
  idFunnelGroup: string;
  idTrafficSource: string;
  idPage: string;
  cost: string;
  urlBuffer: Readonly<Record<string, string>>;
  /** Slot -> value. */
  trackingFields: Readonly<Record<string, string>>;
  /** The traffic source's tracking fields: URL parameter name -> slot. */
  slotsByName: ReadonlyMap<string, string>;
  attributes: Readonly<Record<string, unknown>>;
  /** The node's additionalTokens: key -> value. */
  additionalTokens: ReadonlyMap<string, string> | undefined;
}

const FIXED: Readonly<Record<string, TokenKind>> = {
  hit: 'hit',
  visitor: 'visitor',
  'current-node-id': 'currentNode',
  'funnel-id': 'funnel',
  'funnel-group-id': 'funnelGroup',
  'traffic-source-id': 'trafficSource',
  'page-id': 'page',
  cost: 'cost',
};

/** Visitor attribute tokens: token -> attribute of @funnel/visitor-context. */
const ATTRIBUTES: Readonly<Record<string, string>> = {
  country: 'country',
  region: 'region',
  city: 'city',
  'device-type': 'deviceType',
  os: 'os',
  browser: 'browser',
  language: 'mainLanguage',
};

const SLOT = /^(campaign|external|c([1-9]|1\d|20))$/;
const DATA_PREFIX = 'data-';
const TRACKING_FIELD_PREFIX = 'trackingField.';
const own = (record: object, key: string) => Object.prototype.hasOwnProperty.call(record, key);

/** The reference of a token's text (without braces). */
export function tokenRef(text: string): TokenRef {
  const raw = `{${text}}`;
  if (own(FIXED, text)) return { raw, kind: FIXED[text], name: text };
  if (own(ATTRIBUTES, text)) return { raw, kind: 'attribute', name: ATTRIBUTES[text] };
  if (text.startsWith(DATA_PREFIX) && text.length > DATA_PREFIX.length) return { raw, kind: 'data', name: text.slice(DATA_PREFIX.length) };
  if (text.startsWith(TRACKING_FIELD_PREFIX) && text.length > TRACKING_FIELD_PREFIX.length) {
    return { raw, kind: 'trackingField', name: text.slice(TRACKING_FIELD_PREFIX.length) };
  }
  if (SLOT.test(text)) return { raw, kind: 'slot', name: text };
  return { raw, kind: 'other', name: text };
}

/** The token's value (not yet URL-encoded); undefined leaves the token as written. */
export function tokenValue(ref: TokenRef, context: TokenContext): string | undefined {
  switch (ref.kind) {
    case 'hit':
      return context.hitId;
    case 'visitor':
      return context.visitorId;
    case 'currentNode':
      return context.idNode;
    case 'funnel':
      return context.idFunnel;
    case 'funnelGroup':
      return context.idFunnelGroup;
    case 'trafficSource':
      return context.idTrafficSource;
    case 'page':
      return context.idPage;
    case 'cost':
      return context.cost;
    case 'data':
      return ownString(context.urlBuffer, ref.name);
    case 'slot':
      return ownString(context.trackingFields, ref.name);
    case 'trackingField': {
      const slot = context.slotsByName.get(ref.name);
      return slot === undefined ? undefined : ownString(context.trackingFields, slot);
    }
    case 'attribute': {
      const value = own(context.attributes, ref.name) ? context.attributes[ref.name] : undefined;
      return typeof value === 'string' ? value : '';
    }
    case 'other':
      return context.additionalTokens?.get(ref.name);
  }
}

function ownString(record: Readonly<Record<string, string>>, key: string): string {
  const value = own(record, key) ? record[key] : undefined;
  return typeof value === 'string' ? value : '';
}
