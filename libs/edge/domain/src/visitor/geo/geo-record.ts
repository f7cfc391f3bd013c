// A geo database record -> the visitor's location attributes. Two record shapes are read:
// - MaxMind GeoIP2 / GeoLite2 City and Country: { country: { iso_code }, registered_country, city: { names: { en } },
//   subdivisions: [{ names: { en } }], continent: { code, names: { en } }, location: { time_zone } };
// - the flat records of ip-location-db's *-city-mmdb files (the default data): { country_code, state1,
//   state2, city, postcode, latitude, longitude, timezone }.
import { UNKNOWN, knownOr } from '../unknown';
import { CONTINENT_NAMES, continentOfCountry } from './continents';

/** Where a visitor is, as far as the database knows. */
export interface GeoAttributes {
  /** ISO 3166-1 alpha-2, upper case. */
  country: string;
  city: string;
  /** The first-level subdivision (state, region). */
  region: string;
  /** Full name: `Europe`, `North America`, ... (derived from the country when the record has none). */
  continent: string;
  /** The IANA time zone (`Europe/Berlin`), "" when the record has none: see TimeZoneOffsets for the attributes. */
  timeZoneName: string;
}

export const UNKNOWN_GEO: GeoAttributes = Object.freeze({ country: UNKNOWN, city: UNKNOWN, region: UNKNOWN, continent: UNKNOWN, timeZoneName: '' });

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const field = (record: unknown, name: string): unknown => (isObject(record) ? record[name] : undefined);
const englishName = (record: unknown): unknown => field(field(record, 'names'), 'en');

function countryCode(value: unknown): string | undefined {
  return typeof value === 'string' && /^[A-Za-z]{2}$/.test(value) ? value.toUpperCase() : undefined;
}

/** The location attributes of a geo record; every part the record lacks is `unknown` (a null record: all of them). */
export function geoAttributes(record: unknown): GeoAttributes {
  if (!isObject(record)) return UNKNOWN_GEO;
  const country =
    countryCode(field(record, 'country_code')) ??
    countryCode(field(record.country, 'iso_code')) ??
    countryCode(field(record.registered_country, 'iso_code')) ??
    UNKNOWN;
  const subdivisions = record.subdivisions;
  const continentCode = field(record.continent, 'code');
  const continent =
    knownOr(englishName(record.continent), '') ||
    (typeof continentCode === 'string' ? (CONTINENT_NAMES[continentCode] ?? '') : '') ||
    continentOfCountry(country) ||
    UNKNOWN;
  const zone = field(record.location, 'time_zone') ?? record.timezone;
  return {
    country,
    city: knownOr(typeof record.city === 'string' ? record.city : englishName(record.city)),
    region: knownOr(typeof record.state1 === 'string' ? record.state1 : englishName(Array.isArray(subdivisions) ? subdivisions[0] : undefined)),
    continent,
    timeZoneName: typeof zone === 'string' ? zone : '',
  };
}
