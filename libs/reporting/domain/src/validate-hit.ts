import { FUNNEL_NODE_TYPES, decimalText, isValidAssetId } from '@funnel/contracts';
import { isISO31661Alpha2, isISO8601 } from 'class-validator';
import ipaddr from 'ipaddr.js';
import { MONEY_TEXT, normalizeDecimal } from './decimal';
import { HIT_MIDDLEWARE_DEFAULT_REASONS, HIT_VISITOR_FIELDS, type Hit, type HitConversion, type HitMiddlewareCall, type HitVisitor } from './hit';

/** A problem with one field of an ingested hit. */
export interface FieldError {
  field: string;
  message: string;
}

export type ParseResult<T> = { ok: true; value: T } | { ok: false; errors: FieldError[] };

/** The `idTrafficSource` of organically tracked traffic (no traffic source). */
export const ORGANIC_TRAFFIC_SOURCE = 'organic';
/** Tracking-field slots of a hit: those of traffic sources. */
export const HIT_TRACKING_SLOTS: readonly string[] = ['campaign', 'external', ...Array.from({ length: 20 }, (_, i) => `c${i + 1}`)];
export const TRACKING_VALUE_MAX = 256;
export const TRANSACTION_ID_MAX = 256;
/** Longest visitor attribute kept (user agents and referrers are cut by the edge, not refused). */
export const VISITOR_VALUE_MAX = 2048;
export const VISITOR_TAGS_MAX = 256;
/** Node types a hit may name (the funnel model's), or "" when unknown. */
export const HIT_NODE_TYPES: readonly string[] = FUNNEL_NODE_TYPES;
export const CUSTOM_EVENT_NUMBERS: readonly number[] = Array.from({ length: 10 }, (_, i) => i + 1);

const HIT_FIELDS = new Set([
  'hitId',
  'visitorId',
  'accountId',
  'idFunnel',
  'idFunnelGroup',
  'idTrafficSource',
  'idNode',
  'idPage',
  'countryCode',
  'ip',
  'trackingFields',
  'time',
  'isEntrance',
  'cost',
  'conversions',
  'customEvents',
  'postbackCalled',
  'nodeType',
  'idOfferSource',
  'action',
  'previousHitId',
  'visitor',
  'visitorTags',
  'clicks',
  'middleware',
]);

// Lookups of the rules above (a hit is checked field by field at ingest rates, so no array scans).
const TRACKING_SLOT_SET: ReadonlySet<string> = new Set(HIT_TRACKING_SLOTS);
const VISITOR_FIELD_SET: ReadonlySet<string> = new Set(HIT_VISITOR_FIELDS);
const NODE_TYPE_SET: ReadonlySet<string> = new Set(HIT_NODE_TYPES);
const NO_VISITOR: Readonly<HitVisitor> = Object.fromEntries(HIT_VISITOR_FIELDS.map((field) => [field, ''])) as HitVisitor;

/**
 * Shortcuts for the forms the edge writes, each a subset of its full rule with the same answer:
 * `2026-01-10T12:00:00.000Z` (UTC, as toISOString writes it, years 1000..9999: its own instant when
 * it reads back the same; the full rule reads years below 100 otherwise), canonical money text (`0`, `12.5`), a dotted IPv4 address without leading zeros.
 */
const UTC_ISO_TIME = /^[1-9]\d{3}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const CANONICAL_MONEY = /^(?:0|[1-9]\d{0,11})(?:\.\d{0,5}[1-9])?$/;
const IPV4_OCTET = '(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)';
const DOTTED_IPV4 = new RegExp(`^${IPV4_OCTET}(?:\\.${IPV4_OCTET}){3}$`);

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** The number written by the digits of `text` from `at` to `end` (UTC_ISO_TIME matched: digits only). */
function digitsAt(text: string, at: number, end: number): number {
  let n = 0;
  for (let i = at; i < end; i++) n = n * 10 + text.charCodeAt(i) - 48;
  return n;
}

/**
 * Whether `value` is a UTC time as toISOString writes it (UTC_ISO_TIME) naming a real instant: what
 * Date.parse then toISOString give back unchanged, checked field by field (no Date made).
 */
function isUtcIsoTime(value: string): boolean {
  if (value.length !== 24 || !UTC_ISO_TIME.test(value)) return false;
  const year = digitsAt(value, 0, 4);
  const month = digitsAt(value, 5, 7);
  const day = digitsAt(value, 8, 10);
  if (month < 1 || month > 12 || day < 1 || digitsAt(value, 11, 13) > 23 || digitsAt(value, 14, 16) > 59 || digitsAt(value, 17, 19) > 59) return false;
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return day <= (month === 2 && leap ? 29 : DAYS_IN_MONTH[month - 1]);
}

/** Whether `value` is an IPv4 or IPv6 address (ipaddr.js's rule). */
export function isIpAddress(value: string): boolean {
  return DOTTED_IPV4.test(value) || ipaddr.isValid(value);
}

/** ISO 8601 date-time with a time zone (`Z` or an offset), read to its instant. Undefined when it is not one. */
export function parseIsoTime(value: unknown): string | undefined {
  if (typeof value === 'string' && isUtcIsoTime(value)) return value;
  if (typeof value !== 'string' || !isISO8601(value, { strict: true }) || !/T.*(Z|[+-]\d\d:?\d\d)$/.test(value)) return undefined;
  const ms = Date.parse(value);
  return Number.isFinite(ms) ? new Date(ms).toISOString() : undefined;
}

export function isCountryCode(value: unknown): value is string {
  return typeof value === 'string' && /^[A-Z]{2}$/.test(value) && isISO31661Alpha2(value);
}

/**
 * Money as ingest takes it, as the update routes' `payout` does: a JSON number (`12.5`) or decimal
 * text (`"12.50"`), >= 0 with at most 6 decimals (and 12 integer digits). Canonical text, or
 * undefined when it is not one.
 */
export function moneyText(value: unknown): string | undefined {
  if (typeof value === 'string' && CANONICAL_MONEY.test(value)) return value;
  const text = decimalText(value);
  return text !== undefined && MONEY_TEXT.test(text) ? normalizeDecimal(text) : undefined;
}

const MONEY_RULE = 'must be a decimal >= 0 with up to 6 decimals (a JSON number or text)';

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Checks and normalizes a hit for ingest (`reporting.hits.ingest`, `hits:import`): ids in the asset-id
 * format (`idTrafficSource` may be `organic`, `idPage` may be ""), `countryCode` ISO 3166-1 alpha-2 or
 * "", `ip` an IPv4/IPv6 address or "" (anonymized), `time` ISO 8601 with a zone (stored as UTC),
 * `cost` and payouts decimals >= 0 (6 decimals at most; a JSON number or text, stored as canonical text), custom event counts whole numbers >= 0
 * keyed 1..10, tracking fields keyed by slot (`campaign`, `external`, `c1`..`c20`). `cost`,
 * `conversions`, `customEvents`, `postbackCalled` and `trackingFields` may be left out.
 */
export function parseHit(input: unknown): ParseResult<Hit> {
  const value = isPlainObject(input) ? commonHit(input, undefined) : undefined;
  return value ? { ok: true, value } : checkHit(input);
}

/**
 * parseHit's answers for a batch (ingest's), read in one synchronous pass. The edge's hits of one
 * request share one visitor object and one tracking-fields object: a hit whose raw visitor (or
 * tracking fields) is the very object the previous valid one had gets the same parsed one, checked
 * and copied once. No code runs between the hits of the pass (but a getter of the inputs), so the
 * raw object cannot change in between; the parsed hits then share that part, which nothing changes
 * (the hit stores only read it).
 */
export function parseHits(inputs: readonly unknown[]): ParseResult<Hit>[] {
  const shared: SharedParts = { rawVisitor: undefined, visitor: NO_VISITOR, rawFields: undefined, trackingFields: {} };
  return inputs.map((input) => {
    const value = isPlainObject(input) ? commonHit(input, shared) : undefined;
    return value ? { ok: true, value } : checkHit(input);
  });
}

/** The raw visitor and tracking fields of the last hit parseHits took, each valid, with what they were read as. */
interface SharedParts {
  rawVisitor: unknown;
  visitor: HitVisitor;
  rawFields: unknown;
  trackingFields: Record<string, string>;
}

/** Asset ids by field, checked alike (`idTrafficSource` may also be "organic", `idPage` ""). */
const isHitAssetId = (value: unknown): value is string => typeof value === 'string' && isValidAssetId(value);
/**
 * The check of one id field that remembers the last valid id it saw: the hits of a batch repeat their
 * ids (one account, funnel, node ...; a walk's hits one visitor, each naming the one before it as
 * `previousHitId`), and a comparison with the last one costs less than reading 12 characters.
 */
class IdField {
  /** A valid id (so that "" or any invalid value never equals it). */
  private last = '000000000000';

  isValid(value: unknown): value is string {
    if (value === this.last) return true;
    if (!isHitAssetId(value)) return false;
    this.last = value;
    return true;
  }
}
/** `hitId` and `previousHitId` share one (the previous hit's id, checked first, is the last hitId seen). */
const HIT_IDS = new IdField();
const VISITOR_IDS = new IdField();
const ACCOUNT_IDS = new IdField();
const FUNNEL_IDS = new IdField();
const FUNNEL_GROUP_IDS = new IdField();
const TRAFFIC_SOURCE_IDS = new IdField();
const NODE_IDS = new IdField();
const PAGE_IDS = new IdField();
const OFFER_SOURCE_IDS = new IdField();
/** Country codes seen valid (a few hundred at most: the codes of ISO 3166-1). */
const validCountryCodes = new Set<string>();
/** The hit fields in the order the edge writes them (and HIT_FIELDS lists them). */
const HIT_FIELD_ORDER: readonly string[] = [...HIT_FIELDS];

/**
 * Whether every one of `keys` is a hit field. Keys in HIT_FIELD_ORDER (as the edge writes them, some
 * left out) are matched in one walk down that list, by identity (property names are interned, so
 * each comparison is one pointer's); keys in another order are looked up.
 */
function allHitFields(keys: readonly string[]): boolean {
  let at = 0;
  for (const key of keys) {
    while (at < HIT_FIELD_ORDER.length && HIT_FIELD_ORDER[at] !== key) at++;
    if (at === HIT_FIELD_ORDER.length) return keys.every((other) => HIT_FIELDS.has(other));
    at++;
  }
  return true;
}

const isVisitorValue = (value: unknown): value is string => typeof value === 'string' && value.length <= VISITOR_VALUE_MAX;

/**
 * The visitor `raw` gives, read as checkHit reads it (its own enumerable attributes over all ""), or
 * undefined when it is not valid. The edge writes every attribute, in HIT_VISITOR_FIELDS' order: that
 * form (its keys, own and enumerable, are exactly those) is read by name into one literal, a fixed
 * shape with no lookup or store by key (the type makes the literal name every attribute); other
 * forms attribute by attribute.
 */
function readVisitor(raw: Record<string, unknown>): HitVisitor | undefined {
  const keys = Object.keys(raw);
  let same = keys.length === HIT_VISITOR_FIELDS.length;
  for (let i = 0; same && i < keys.length; i++) same = keys[i] === HIT_VISITOR_FIELDS[i];
  if (!same) {
    const visitor: HitVisitor = { ...NO_VISITOR };
    for (const field of keys) {
      const value = raw[field];
      if (!VISITOR_FIELD_SET.has(field) || !isVisitorValue(value)) return undefined;
      visitor[field as keyof HitVisitor] = value;
    }
    return visitor;
  }
  const {
    deviceType,
    brand,
    model,
    os,
    osVersion,
    browser,
    browserVersion,
    mainLanguage,
    browserLanguage,
    city,
    region,
    continent,
    timezone,
    isp,
    connectionType,
    mobileCarrier,
    referrer,
    userAgent,
  } = raw;
  if (
    !isVisitorValue(deviceType) ||
    !isVisitorValue(brand) ||
    !isVisitorValue(model) ||
    !isVisitorValue(os) ||
    !isVisitorValue(osVersion) ||
    !isVisitorValue(browser) ||
    !isVisitorValue(browserVersion) ||
    !isVisitorValue(mainLanguage) ||
    !isVisitorValue(browserLanguage) ||
    !isVisitorValue(city) ||
    !isVisitorValue(region) ||
    !isVisitorValue(continent) ||
    !isVisitorValue(timezone) ||
    !isVisitorValue(isp) ||
    !isVisitorValue(connectionType) ||
    !isVisitorValue(mobileCarrier) ||
    !isVisitorValue(referrer) ||
    !isVisitorValue(userAgent)
  )
    return undefined;
  return {
    deviceType,
    brand,
    model,
    os,
    osVersion,
    browser,
    browserVersion,
    mainLanguage,
    browserLanguage,
    city,
    region,
    continent,
    timezone,
    isp,
    connectionType,
    mobileCarrier,
    referrer,
    userAgent,
  };
}

/**
 * The hit `input` is when it is valid and in the form the edge sends (no conversions, no custom
 * events, visitor tags in ascending order), read as `checkHit` reads it; undefined otherwise (invalid,
 * or valid in another form): then `checkHit` answers. A straight pass with no closures and no
 * intermediate objects but the key lists: ingest reads every hit here. The keys checked are those
 * checkHit checks, the own enumerable ones (Object.keys); values are read as it reads them, by name.
 */
function commonHit(input: Record<string, unknown>, shared: SharedParts | undefined): Hit | undefined {
  if (!allHitFields(Object.keys(input))) return undefined;
  const { hitId, visitorId, accountId, idFunnel, idFunnelGroup, idTrafficSource, idNode, idPage } = input;
  const previousHitId = input['previousHitId'] ?? '';
  if (
    !(previousHitId === '' || HIT_IDS.isValid(previousHitId)) ||
    !HIT_IDS.isValid(hitId) ||
    !VISITOR_IDS.isValid(visitorId) ||
    !ACCOUNT_IDS.isValid(accountId) ||
    !FUNNEL_IDS.isValid(idFunnel) ||
    !FUNNEL_GROUP_IDS.isValid(idFunnelGroup) ||
    !(idTrafficSource === ORGANIC_TRAFFIC_SOURCE || TRAFFIC_SOURCE_IDS.isValid(idTrafficSource)) ||
    !NODE_IDS.isValid(idNode) ||
    !(idPage === '' || PAGE_IDS.isValid(idPage))
  )
    return undefined;
  const countryCode = input['countryCode'] ?? '';
  if (countryCode !== '' && !validCountryCodes.has(countryCode as string)) {
    if (!isCountryCode(countryCode)) return undefined;
    validCountryCodes.add(countryCode);
  }
  const ip = input['ip'] ?? '';
  if (typeof ip !== 'string' || (ip !== '' && !isIpAddress(ip))) return undefined;
  const time = parseIsoTime(input['time']);
  const isEntrance = input['isEntrance'];
  const postbackCalled = input['postbackCalled'] ?? false;
  if (time === undefined || typeof isEntrance !== 'boolean' || typeof postbackCalled !== 'boolean') return undefined;
  const rawCost = input['cost'] ?? '0';
  const cost = rawCost === '0' ? '0' : moneyText(rawCost);
  if (cost === undefined) return undefined;

  const rawFields = input['trackingFields'] ?? {};
  let trackingFields: Record<string, string>;
  if (shared !== undefined && rawFields === shared.rawFields) trackingFields = shared.trackingFields;
  else {
    if (!isPlainObject(rawFields)) return undefined;
    trackingFields = {};
    for (const slot of Object.keys(rawFields)) {
      const value = rawFields[slot];
      if (!TRACKING_SLOT_SET.has(slot) || typeof value !== 'string' || value.length > TRACKING_VALUE_MAX) return undefined;
      trackingFields[slot] = value;
    }
    if (shared !== undefined) {
      shared.rawFields = rawFields;
      shared.trackingFields = trackingFields;
    }
  }
  const rawConversions = input['conversions'] ?? [];
  if (!Array.isArray(rawConversions) || rawConversions.length > 0) return undefined;
  const rawEvents = input['customEvents'] ?? {};
  if (!isPlainObject(rawEvents) || Object.keys(rawEvents).length > 0) return undefined;

  const nodeType = input['nodeType'] ?? '';
  if (typeof nodeType !== 'string' || (nodeType !== '' && !NODE_TYPE_SET.has(nodeType))) return undefined;
  const idOfferSource = input['idOfferSource'] ?? '';
  if (idOfferSource !== '' && !OFFER_SOURCE_IDS.isValid(idOfferSource)) return undefined;
  const action = input['action'] ?? 0;
  if (!Number.isInteger(action) || (action as number) < 0 || (action as number) > 64) return undefined;
  const clicks = input['clicks'] ?? 0;
  if (!Number.isSafeInteger(clicks) || (clicks as number) < 0) return undefined;

  const rawVisitor = input['visitor'] ?? {};
  let visitor: HitVisitor | undefined;
  if (shared !== undefined && rawVisitor === shared.rawVisitor) visitor = shared.visitor;
  else {
    visitor = isPlainObject(rawVisitor) ? readVisitor(rawVisitor) : undefined;
    if (visitor === undefined) return undefined;
    if (shared !== undefined) {
      shared.rawVisitor = rawVisitor;
      shared.visitor = visitor;
    }
  }
  // Tags in ascending order, none repeated, are the set checkHit makes of them (sorted, as `<` compares).
  const rawTags = input['visitorTags'] ?? [];
  if (!Array.isArray(rawTags) || rawTags.length > VISITOR_TAGS_MAX) return undefined;
  const visitorTags: string[] = [];
  for (let i = 0; i < rawTags.length; i++) {
    const tag: unknown = rawTags[i];
    if (!isHitAssetId(tag) || (i > 0 && !(visitorTags[i - 1] < tag))) return undefined;
    visitorTags.push(tag);
  }

  let middleware: HitMiddlewareCall | undefined;
  const rawMiddleware = input['middleware'];
  if (rawMiddleware !== undefined && rawMiddleware !== null) {
    let bad = false;
    middleware = parseHitMiddleware(rawMiddleware, () => (bad = true));
    if (bad || middleware === undefined) return undefined;
  }
  return {
    hitId,
    visitorId,
    accountId,
    idFunnel,
    idFunnelGroup,
    idTrafficSource,
    idNode,
    idPage: idPage as string,
    countryCode: countryCode as string,
    ip,
    trackingFields,
    time,
    isEntrance,
    cost,
    conversions: [],
    customEvents: {},
    postbackCalled,
    nodeType,
    idOfferSource: idOfferSource as string,
    action: action as number,
    previousHitId: previousHitId as string,
    visitor,
    visitorTags,
    clicks: clicks as number,
    ...(middleware === undefined ? {} : { middleware }),
  };
}

/** parseHit's full rules: every field checked, every error listed (parseHit answers as this does, on any input). */
export function checkHit(input: unknown): ParseResult<Hit> {
  const errors: FieldError[] = [];
  const fail = (field: string, message: string) => errors.push({ field, message });
  if (!isPlainObject(input)) return { ok: false, errors: [{ field: '', message: 'a hit must be an object' }] };
  for (const key of Object.keys(input)) if (!HIT_FIELDS.has(key)) fail(key, 'is not a hit field');

  const id = (field: string, allowed: readonly string[] = []): string => {
    const value = input[field];
    if (typeof value === 'string' && (isValidAssetId(value) || allowed.includes(value))) return value;
    fail(
      field,
      `must be an asset id (12 characters of 0-9, A-Z, a-z)${allowed.length ? ` or one of ${allowed.map((a) => JSON.stringify(a)).join(', ')}` : ''}`,
    );
    return '';
  };
  const hitId = id('hitId');
  const visitorId = id('visitorId');
  const accountId = id('accountId');
  const idFunnel = id('idFunnel');
  const idFunnelGroup = id('idFunnelGroup');
  const idTrafficSource = id('idTrafficSource', [ORGANIC_TRAFFIC_SOURCE]);
  const idNode = id('idNode');
  const idPage = id('idPage', ['']);

  const countryCode = input['countryCode'] ?? '';
  if (countryCode !== '' && !isCountryCode(countryCode)) fail('countryCode', 'must be an ISO 3166-1 alpha-2 code in upper case, or ""');
  const ip = input['ip'] ?? '';
  if (typeof ip !== 'string' || (ip !== '' && !isIpAddress(ip))) fail('ip', 'must be an IPv4 or IPv6 address, or ""');

  const time = parseIsoTime(input['time']);
  if (time === undefined) fail('time', 'must be an ISO 8601 date-time with a time zone');
  const isEntrance = input['isEntrance'];
  if (typeof isEntrance !== 'boolean') fail('isEntrance', 'must be a boolean');
  const postbackCalled = input['postbackCalled'] ?? false;
  if (typeof postbackCalled !== 'boolean') fail('postbackCalled', 'must be a boolean');

  const cost = moneyText(input['cost'] ?? '0');
  if (cost === undefined) fail('cost', MONEY_RULE);

  const trackingFields: Record<string, string> = {};
  const rawFields = input['trackingFields'] ?? {};
  if (!isPlainObject(rawFields)) fail('trackingFields', 'must be an object of slot -> value');
  else
    for (const [slot, value] of Object.entries(rawFields)) {
      if (!TRACKING_SLOT_SET.has(slot)) fail(`trackingFields.${slot}`, 'is not a tracking-field slot (campaign, external, c1..c20)');
      else if (typeof value !== 'string' || value.length > TRACKING_VALUE_MAX)
        fail(`trackingFields.${slot}`, `must be a string of at most ${TRACKING_VALUE_MAX} characters`);
      else trackingFields[slot] = value;
    }

  const conversions: HitConversion[] = [];
  const rawConversions = input['conversions'] ?? [];
  if (!Array.isArray(rawConversions)) fail('conversions', 'must be an array');
  else
    rawConversions.forEach((conversion: unknown, index) => {
      const at = `conversions[${index}]`;
      if (!isPlainObject(conversion)) return fail(at, 'must be an object { transactionId, payout, time }');
      const { transactionId = '', payout, time: conversionTime } = conversion;
      if (typeof transactionId !== 'string' || transactionId.length > TRANSACTION_ID_MAX)
        fail(`${at}.transactionId`, `must be a string of at most ${TRANSACTION_ID_MAX} characters`);
      const payoutText = moneyText(payout);
      if (payoutText === undefined) fail(`${at}.payout`, MONEY_RULE);
      const when = parseIsoTime(conversionTime);
      if (when === undefined) fail(`${at}.time`, 'must be an ISO 8601 date-time with a time zone');
      if (conversions.some((other) => other.transactionId === transactionId)) fail(`${at}.transactionId`, 'is repeated');
      if (typeof transactionId === 'string' && payoutText !== undefined && when !== undefined)
        conversions.push({ transactionId, payout: payoutText, time: when });
    });

  const customEvents: Record<string, number> = {};
  const rawEvents = input['customEvents'] ?? {};
  if (!isPlainObject(rawEvents)) fail('customEvents', 'must be an object of event number (1..10) -> count');
  else
    for (const [number, count] of Object.entries(rawEvents)) {
      if (!CUSTOM_EVENT_NUMBERS.includes(Number(number)) || String(Number(number)) !== number) fail(`customEvents.${number}`, 'is not an event number 1..10');
      else if (!Number.isSafeInteger(count) || (count as number) < 0) fail(`customEvents.${number}`, 'must be a whole number >= 0');
      else if ((count as number) > 0) customEvents[number] = count as number;
    }

  const nodeType = input['nodeType'] ?? '';
  if (typeof nodeType !== 'string' || (nodeType !== '' && !NODE_TYPE_SET.has(nodeType)))
    fail('nodeType', `must be a funnel node type (${HIT_NODE_TYPES.join(', ')}) or ""`);
  const idOfferSource = input['idOfferSource'] ?? '';
  if (idOfferSource !== '' && !(typeof idOfferSource === 'string' && isValidAssetId(idOfferSource)))
    fail('idOfferSource', 'must be an asset id (12 characters of 0-9, A-Z, a-z) or ""');
  const action = input['action'] ?? 0;
  if (!Number.isInteger(action) || (action as number) < 0 || (action as number) > 64) fail('action', 'must be a whole number 0..64 (0: no action)');
  const previousHitId = input['previousHitId'] ?? '';
  if (previousHitId !== '' && !(typeof previousHitId === 'string' && isValidAssetId(previousHitId)))
    fail('previousHitId', 'must be an asset id (12 characters of 0-9, A-Z, a-z) or ""');
  const clicks = input['clicks'] ?? 0;
  if (!Number.isSafeInteger(clicks) || (clicks as number) < 0) fail('clicks', 'must be a whole number >= 0');

  const visitor: HitVisitor = { ...NO_VISITOR };
  const rawVisitor = input['visitor'] ?? {};
  if (!isPlainObject(rawVisitor)) fail('visitor', `must be an object of visitor attributes (${HIT_VISITOR_FIELDS.join(', ')})`);
  else
    for (const [field, value] of Object.entries(rawVisitor)) {
      if (!VISITOR_FIELD_SET.has(field)) fail(`visitor.${field}`, `is not a visitor attribute (${HIT_VISITOR_FIELDS.join(', ')})`);
      else if (typeof value !== 'string' || value.length > VISITOR_VALUE_MAX)
        fail(`visitor.${field}`, `must be a string of at most ${VISITOR_VALUE_MAX} characters`);
      else visitor[field as keyof typeof visitor] = value;
    }
  const visitorTags = new Set<string>();
  const rawTags = input['visitorTags'] ?? [];
  if (!Array.isArray(rawTags) || rawTags.length > VISITOR_TAGS_MAX) fail('visitorTags', `must be an array of at most ${VISITOR_TAGS_MAX} visitor tag ids`);
  else
    rawTags.forEach((tag: unknown, index) => {
      if (typeof tag === 'string' && isValidAssetId(tag)) visitorTags.add(tag);
      else fail(`visitorTags[${index}]`, 'must be an asset id (12 characters of 0-9, A-Z, a-z)');
    });

  const middleware = parseHitMiddleware(input['middleware'], fail);

  if (errors.length > 0) return { ok: false, errors };
  return {
    ok: true,
    value: {
      hitId,
      visitorId,
      accountId,
      idFunnel,
      idFunnelGroup,
      idTrafficSource,
      idNode,
      idPage,
      countryCode: countryCode as string,
      ip: ip as string,
      trackingFields,
      time: time!,
      isEntrance: isEntrance as boolean,
      cost: cost!,
      conversions,
      customEvents,
      postbackCalled: postbackCalled as boolean,
      nodeType: nodeType as string,
      idOfferSource: idOfferSource as string,
      action: action as number,
      previousHitId: previousHitId as string,
      visitor,
      visitorTags: visitorTags.size === 0 ? [] : [...visitorTags].sort(),
      clicks: clicks as number,
      ...(middleware === undefined ? {} : { middleware }),
    },
  };
}

/** A hit's middleware call: the config id, the route matched or "", the default's reason or "", the status (0..999) and the latency (ms, whole). */
function parseHitMiddleware(raw: unknown, fail: (field: string, message: string) => void): HitMiddlewareCall | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (!isPlainObject(raw)) {
    fail('middleware', 'must be an object { idMiddlewareConfig, matchedRouteId, defaultReason, status, latencyMs }');
    return undefined;
  }
  const errorsBefore = { count: 0 };
  const bad = (field: string, message: string) => {
    errorsBefore.count += 1;
    fail(`middleware.${field}`, message);
  };
  for (const key of Object.keys(raw))
    if (!['idMiddlewareConfig', 'matchedRouteId', 'defaultReason', 'status', 'latencyMs'].includes(key)) bad(key, 'is not a field of a middleware call');
  const { idMiddlewareConfig, matchedRouteId = '', defaultReason = '', status = 0, latencyMs = 0 } = raw;
  if (typeof idMiddlewareConfig !== 'string' || !isValidAssetId(idMiddlewareConfig)) bad('idMiddlewareConfig', 'must be an asset id');
  if (typeof matchedRouteId !== 'string' || matchedRouteId.length > 64) bad('matchedRouteId', 'must be a route key of at most 64 characters, or ""');
  if (defaultReason !== '' && !(HIT_MIDDLEWARE_DEFAULT_REASONS as readonly unknown[]).includes(defaultReason))
    bad('defaultReason', `must be "" or one of ${HIT_MIDDLEWARE_DEFAULT_REASONS.join(', ')}`);
  if (!Number.isInteger(status) || (status as number) < 0 || (status as number) > 999) bad('status', 'must be an HTTP status, or 0 (no answer)');
  if (!Number.isInteger(latencyMs) || (latencyMs as number) < 0 || (latencyMs as number) > 3_600_000) bad('latencyMs', 'must be a whole number of ms >= 0');
  if (errorsBefore.count > 0) return undefined;
  return {
    idMiddlewareConfig: idMiddlewareConfig as string,
    matchedRouteId: matchedRouteId as string,
    defaultReason: defaultReason as HitMiddlewareCall['defaultReason'],
    status: status as number,
    latencyMs: latencyMs as number,
  };
}
