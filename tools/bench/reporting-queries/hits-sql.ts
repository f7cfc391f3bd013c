// The SQL that generates the bench's hits straight into the warehouse table: one INSERT ... SELECT
// over range(n), every value drawn from a hash of the row, its visit or its visitor, so the same
// assets give the same hits. Rows come out in time order (time grows with the row number).
import { ID_ALPHABET, ID_EPOCH_MS } from '@funnel/contracts';
import { MIDDLEWARE_COLUMNS, TRACKING_SLOTS, VISITOR_COLUMNS, WAREHOUSE_COLUMNS, customEventColumn, trackingColumn } from '@funnel/reporting-feature';

/** The assets the hits name (ids of assets saved in the bench account; nodes as each funnel has them). */
export interface DatasetAssets {
  trafficSources: string[];
  funnelGroups: string[];
  /** Per funnel: its id, its group, and its node ids by type (from the saved funnel). */
  funnels: { idFunnel: string; idFunnelGroup: string; rotator: string; landers: string[]; offers: string[] }[];
  landers: string[];
  offers: { idPage: string; idOfferSource: string }[];
  visitorTags: string[];
}

export interface DatasetShape {
  hits: number;
  /** UTC epoch ms of the first hit; the hits spread evenly over `days` days from there. */
  startMs: number;
  days: number;
  visitors: number;
  countries: readonly string[];
  /** Tracking-field slots the hits fill (20 values each); the other slots stay "" (N/A). */
  filledSlots: readonly string[];
  valuesPerSlot: number;
}

/** The per-row hash, salted per use so the draws are independent (a BIGINT >= 0, so arithmetic stays in BIGINT). */
const h = (key: string, salt: string) => `(hash(${key}, '${salt}') >> 2)::BIGINT`;
/** A uniform draw in [0, 1) from a hash. */
const u = (key: string, salt: string) => `((${h(key, salt)} % 1000000) / 1000000.0)`;
/** A constant list of ids as SQL (ids are [0-9A-Za-z], checked), indexed 0-based by `index`. */
function pick(ids: readonly string[], index: string): string {
  for (const id of ids) if (!/^[0-9A-Za-z]+$/.test(id)) throw new Error(`not an id: ${id}`);
  return `[${ids.map((id) => `'${id}'`).join(', ')}][(${index})::BIGINT + 1]`;
}
/** A constant list of texts as SQL (plain texts of this file, quotes doubled), indexed 0-based. */
const texts = (values: readonly string[], index: string) => `[${values.map((v) => `'${v.replace(/'/g, "''")}'`).join(', ')}][(${index})::BIGINT + 1]`;

/** The base62 digits as an SQL list (a list lookup costs about a quarter of `substr` on the alphabet). */
const DIGITS = `[${[...ID_ALPHABET].map((c) => `'${c}'`).join(', ')}]`;

/** An asset-id-shaped text (12 base62 characters: 7 of `ms` since the id epoch, 5 of `n`), as generateAssetId makes them. */
function idSql(ms: string, n: string): string {
  const digit = (value: string, power: number) => `${DIGITS}[((${value}) // ${62 ** power}) % 62 + 1]`;
  const time = `((${ms}) - ${ID_EPOCH_MS})`;
  return `concat(${[...[6, 5, 4, 3, 2, 1, 0].map((p) => digit(time, p)), ...[4, 3, 2, 1, 0].map((p) => digit(n, p))].join(', ')})`;
}

const DEVICE_TYPES = ['mobile', 'desktop', 'tablet'];
const OSES = ['Android', 'iOS', 'Windows', 'macOS', 'Linux', 'ChromeOS'];
const BROWSERS = ['Chrome', 'Safari', 'Firefox', 'Edge', 'Samsung Internet', 'Opera', 'UC Browser', 'Yandex'];
const CONTINENTS = ['Europe', 'Asia', 'Africa', 'North America', 'South America', 'Oceania', 'Antarctica'];
const CONNECTION_TYPES = ['broadband', 'mobile', 'satellite', 'dialup'];
const LANGUAGES = ['en', 'es', 'de', 'fr', 'pt', 'it', 'ru', 'ja', 'zh', 'ko', 'ar', 'hi', 'tr', 'pl', 'nl', 'sv', 'id', 'th', 'vi', 'uk'];

/**
 * `INSERT INTO hits (...) SELECT ... FROM range(n)`: the hits of one account in blocks of six rows,
 * three visits per block: a bounce (one lander hit, one in ten on a rotator), a lander then its offer
 * (action 1), and a lander, its offer and the next offer (actions 1 and 2). Each action hit names
 * the hit before it; that hit has clicks 1 (as the warehouse counts them). Visit values (traffic
 * source, skewed; one of five funnels per source; lander; tracking fields) hash the visit number.
 * The visitor of a visit is a hash of it too (2.5 visits each, anywhere in the month); visitor
 * values (country, skewed; device, location, ...) hash the visitor number. About 4% of offer hits convert (2% of all hits: payout 1.00-50.00, converted up to 10 h
 * later); entrances cost what their source charges (0.01-0.19). The statements run in order.
 */
export function insertHitsSql(accountId: string, assets: DatasetAssets, shape: DatasetShape): string[] {
  if (!/^[0-9A-Za-z]+$/.test(accountId)) throw new Error(`not an id: ${accountId}`);
  const stepMs = (shape.days * 86_400_000) / shape.hits;
  const funnelCount = assets.funnels.length;
  const landersPerFunnel = Math.min(...assets.funnels.map((f) => f.landers.length));
  const sources = assets.trafficSources.length;
  // Per row: i; the block of six, the position in it, the visit and the position in the visit.
  const visit = `(i // 6) * 3 + [0, 1, 1, 2, 2, 2][i % 6 + 1]`;
  const pos = `[0, 0, 1, 0, 1, 2][i % 6 + 1]`;
  const values: Record<string, string> = {};
  const source = `least(floor(${sources} * pow(${u('visit', 's')}, 2))::INTEGER, ${sources - 1})`;
  const funnel = `((source * 7 + ${h('visit', 'f')} % 5) % ${funnelCount})::INTEGER`;
  const lander = `(${h('visit', 'l')} % ${landersPerFunnel})::INTEGER`;
  // The node index inside the funnel: -1 the rotator, 0..L-1 landers, L.. offers.
  const nodeKind = `CASE WHEN pos = 0 AND i % 6 = 0 AND ${h('visit', 'r')} % 10 = 0 THEN 'rotator' WHEN pos = 0 THEN 'landerGroup' ELSE 'offerGroup' END`;
  const offerIndex = `CASE WHEN pos = 2 THEN (lander + 1) % ${landersPerFunnel} ELSE lander END`;
  const allNodes = assets.funnels.flatMap((f) => [f.rotator, ...f.landers.slice(0, landersPerFunnel), ...f.offers.slice(0, landersPerFunnel)]);
  const perFunnel = 1 + 2 * landersPerFunnel;
  const nodeIndex = `funnel * ${perFunnel} + CASE node_kind WHEN 'rotator' THEN 0 WHEN 'landerGroup' THEN 1 + lander ELSE 1 + ${landersPerFunnel} + offer_index END`;
  const offerPage = `((funnel * ${landersPerFunnel} + offer_index) % ${assets.offers.length})::INTEGER`;
  const landerPage = `((funnel * ${landersPerFunnel} + lander) % ${assets.landers.length})::INTEGER`;
  const converts = `node_kind = 'offerGroup' AND ${h('i', 'conv')} % 100 < 4`;
  const payout = `(1 + (${h('i', 'payout')} % 4900) / 100)::DECIMAL(18, 6)`;
  const convTime = `time_ms + 60000 * (1 + ${h('i', 'ct')} % 600)`;
  const country = `least(floor(${shape.countries.length} * pow(${u('visitor', 'c')}, 3))::INTEGER, ${shape.countries.length - 1})`;

  values.account_id = `'${accountId}'`;
  values.hit_id = idSql('time_ms', 'i');
  // Visitor ids older than every hit (made before the month), in no order of the rows: a visitor's
  // hits are found by its id alone, not by where the file keeps ids near each other.
  values.visitor_id = idSql(`${shape.startMs - 86_400_000} - visitor * 1000`, `${h('visitor', 'id')} % ${62 ** 5}`);
  values.id_funnel = pick(
    assets.funnels.map((f) => f.idFunnel),
    'funnel',
  );
  values.id_funnel_group = pick(
    assets.funnels.map((f) => f.idFunnelGroup),
    'funnel',
  );
  values.id_traffic_source = pick(assets.trafficSources, 'source');
  values.id_node = pick(allNodes, nodeIndex);
  values.id_page = `CASE node_kind WHEN 'rotator' THEN '' WHEN 'landerGroup' THEN ${pick(assets.landers, landerPage)} ELSE ${pick(
    assets.offers.map((o) => o.idPage),
    offerPage,
  )} END`;
  values.node_type = 'node_kind';
  values.id_offer_source = `CASE WHEN node_kind = 'offerGroup' THEN ${pick(
    assets.offers.map((o) => o.idOfferSource),
    offerPage,
  )} ELSE '' END`;
  values.country_code = texts(shape.countries, 'country');
  values.ip = `'10.' || (visitor // 65536) % 256 || '.' || (visitor // 256) % 256 || '.' || visitor % 256`;
  for (const slot of TRACKING_SLOTS) {
    values[trackingColumn(slot)] = shape.filledSlots.includes(slot) ? `'${slot}-' || ${h('visit', `tf${slot}`)} % ${shape.valuesPerSlot}` : `''`;
  }
  values.time_ms = 'time_ms';
  values.is_entrance = 'pos = 0';
  values.action = 'pos';
  values.previous_hit_id = `CASE WHEN pos > 0 THEN ${idSql(`${shape.startMs} + floor((i - 1) * ${stepMs})::BIGINT`, 'i - 1')} ELSE '' END`;
  const visitorValue: Record<keyof typeof VISITOR_COLUMNS, string> = {
    deviceType: texts(DEVICE_TYPES, `${h('visitor', 'dt')} % 3`),
    brand: `'Brand ' || ${h('visitor', 'br')} % 30`,
    model: `'Model ' || ${h('visitor', 'md')} % 200`,
    os: texts(OSES, `${h('visitor', 'os')} % ${OSES.length}`),
    osVersion: `(${h('visitor', 'osv')} % 20)::VARCHAR || '.0'`,
    browser: texts(BROWSERS, `${h('visitor', 'bw')} % ${BROWSERS.length}`),
    browserVersion: `(80 + ${h('visitor', 'bwv')} % 40)::VARCHAR || '.0'`,
    mainLanguage: texts(LANGUAGES, `${h('visitor', 'ml')} % ${LANGUAGES.length}`),
    browserLanguage: texts(LANGUAGES, `${h('visitor', 'ml')} % ${LANGUAGES.length}`) + ` || '-' || country_code`,
    city: `country_code || ' city ' || ${h('visitor', 'city')} % 10`,
    region: `country_code || ' region ' || ${h('visitor', 'city')} % 3`,
    continent: texts(CONTINENTS, `country % ${CONTINENTS.length}`),
    timezone: `'Etc/GMT' || CASE WHEN country % 24 >= 12 THEN '+' ELSE '-' END || country % 12`,
    isp: `'ISP ' || ${h('visitor', 'isp')} % 100`,
    connectionType: texts(CONNECTION_TYPES, `${h('visitor', 'ct')} % ${CONNECTION_TYPES.length}`),
    mobileCarrier: `CASE WHEN ${h('visitor', 'dt')} % 3 = 0 THEN 'Carrier ' || ${h('visitor', 'mc')} % 50 ELSE '' END`,
    referrer: `'https://ref' || ${h('visit', 'ref')} % 50 || '.example/page' || ${h('visit', 'refp')} % 10`,
    userAgent: `'Mozilla/5.0 (bench ' || ${h('visitor', 'ua')} % 300 || ')'`,
  };
  for (const [field, column] of Object.entries(VISITOR_COLUMNS)) values[column] = visitorValue[field as keyof typeof VISITOR_COLUMNS];
  values.visitor_tags = `CASE WHEN ${h('visitor', 'tag')} % 20 = 0 THEN [${pick(assets.visitorTags, `${h('visitor', 'tagn')} % ${assets.visitorTags.length}`)}] ELSE []::VARCHAR[] END`;
  values.cost = `CASE WHEN pos = 0 THEN (0.01 + (source % 10) * 0.02)::DECIMAL(18, 6) ELSE 0::DECIMAL(18, 6) END`;
  values.conversions = `CASE WHEN converts THEN '[{"transactionId":"tx-' || i || '","payout":"' || payout::VARCHAR || '","time":"' || strftime(make_timestamp((${convTime}) * 1000), '%Y-%m-%dT%H:%M:%S.%gZ') || '"}]' ELSE '[]' END`;
  values.conversion_count = 'CASE WHEN converts THEN 1 ELSE 0 END';
  values.revenue = 'CASE WHEN converts THEN payout ELSE 0::DECIMAL(18, 6) END';
  values.conversion_times = `CASE WHEN converts THEN [${convTime}] ELSE []::BIGINT[] END`;
  values.conversion_payouts = `CASE WHEN converts THEN [payout] ELSE []::DECIMAL(18, 6)[] END`;
  for (let n = 1; n <= 10; n++) values[customEventColumn(n)] = '0';
  values[customEventColumn(1)] = `CASE WHEN node_kind = 'landerGroup' AND ${h('i', 'ce1')} % 20 = 0 THEN 1 ELSE 0 END`;
  values[customEventColumn(2)] = `CASE WHEN ${h('i', 'ce2')} % 100 = 0 THEN 1 ELSE 0 END`;
  values.postback_called = 'converts';
  values.clicks = `CASE WHEN i % 6 IN (1, 3, 4) AND i + 1 < ${shape.hits} THEN 1 ELSE 0 END`;
  // No middleware node in the bench funnels: the call columns stay empty, as on every other hit.
  for (const column of MIDDLEWARE_COLUMNS) values[column] = column === 'mw_status' || column === 'mw_latency_ms' ? '0' : `''`;

  const columns = WAREHOUSE_COLUMNS.map((c) => c.name);
  const missing = columns.filter((c) => values[c] === undefined);
  if (missing.length) throw new Error(`the generator has no value for ${missing.join(', ')}`);
  // Each stage names what the next one reads (DuckDB resolves a name per SELECT level).
  // The row numbers come from a table, not from range(): a table scan runs on every core, range() on one.
  const numbers = `CREATE TEMP TABLE hit_numbers AS SELECT range AS i FROM range(${shape.hits})`;
  const insert = `INSERT INTO hits (${columns.join(', ')})
WITH base AS (
  SELECT i, ${visit} AS visit, ${pos} AS pos, ${shape.startMs} + floor(i * ${stepMs})::BIGINT AS time_ms FROM hit_numbers
), visits AS (
  SELECT *, ${h('visit', 'visitor')} % ${shape.visitors} AS visitor, ${source} AS source FROM base
), placed AS (
  SELECT *, ${funnel} AS funnel, ${lander} AS lander, ${nodeKind} AS node_kind, ${country} AS country FROM visits
), rows AS (
  SELECT *, ${offerIndex} AS offer_index, ${converts} AS converts, ${payout} AS payout, ${texts(shape.countries, 'country')} AS country_code FROM placed
)
SELECT ${columns.map((c) => `${values[c]} AS ${c}`).join(',\n  ')}
FROM rows`;
  return [numbers, insert, 'DROP TABLE hit_numbers'];
}

/** `CREATE TABLE IF NOT EXISTS hits (...)` from the warehouse's columns (the store's own DDL when it made the file first). */
export function createHitsTableSql(): string {
  return `CREATE TABLE IF NOT EXISTS hits (${WAREHOUSE_COLUMNS.map((c) => `${c.name} ${c.duckdb}`).join(', ')})`;
}
