// The literal rules of route keys and field names, shared by logic scripts, conditions, funnel
// connections and the dry-run validator (through @funnel/visitor-context) and by the API document.

/** A route key: what a script or a condition route answers and what a connection's `onRouteKeys` lists. */
export const ROUTE_KEY_PATTERN = /^[a-z0-9_]{1,64}$/;

/** Names passed to trackingField and dataBuffer. */
export const FIELD_NAME_PATTERN = /^[A-Za-z0-9_ -]{1,64}$/;

/** The key every funnel logic node connects; the runtime routes here whenever nothing else decides. */
export const FALLBACK_ROUTE_KEY = 'default';

/** Where the API document keeps its named schemas: a `$ref` to a schema a kind declares (AssetKindDocs.schemas). */
export const SCHEMA_REF_PREFIX = '#/components/schemas/';

export const schemaRef = (name: string) => ({ $ref: `${SCHEMA_REF_PREFIX}${name}` });

/**
 * The predeclared visitor variables of the routing-script language by type, in catalog order (what
 * each means and how it is read is @funnel/visitor-context's, keyed by these names): a condition
 * rule's attribute is one of them or a special attribute.
 */
export const VISITOR_STRING_VARIABLES = [
  'country',
  'city',
  'region',
  'continent',
  'timezone',
  'deviceType',
  'brand',
  'model',
  'os',
  'osVersion',
  'browser',
  'browserVersion',
  'mainLanguage',
  'browserLanguage',
  'ip',
  'isp',
  'connectionType',
  'mobileCarrier',
  'userAgent',
  'referrer',
  'initialReferrer',
  'currentURL',
  'trackingDomain',
  'trafficSourceID',
] as const;
export const VISITOR_INTEGER_VARIABLES = ['hour', 'minute', 'weekday', 'dayOfMonth', 'month', 'year', 'utcOffsetHours'] as const;
export type VisitorStringVariable = (typeof VISITOR_STRING_VARIABLES)[number];
export type VisitorIntegerVariable = (typeof VISITOR_INTEGER_VARIABLES)[number];
