import { countriesWithContinent, continentOfCountry } from './continents';
import { UNKNOWN_GEO, geoAttributes } from './geo-record';

describe('geoAttributes', () => {
  it('reads the flat records of the default (ip-location-db) data, deriving the continent from the country', () => {
    const record = { city: 'Bracknell', country_code: 'GB', state1: 'England', state2: 'Bracknell Forest', postcode: 'RG12', timezone: 'Europe/London' };
    expect(geoAttributes(record)).toEqual({ country: 'GB', city: 'Bracknell', region: 'England', continent: 'Europe', timeZoneName: 'Europe/London' });
  });

  it('holds unknown where a flat record has empty fields', () => {
    expect(geoAttributes({ city: '', country_code: 'us', state1: '', timezone: 'America/Chicago' })).toEqual({
      country: 'US',
      city: 'unknown',
      region: 'unknown',
      continent: 'North America',
      timeZoneName: 'America/Chicago',
    });
  });

  it('reads MaxMind GeoIP2 City records (English names, first subdivision, the continent they carry)', () => {
    const record = {
      city: { geoname_id: 2643743, names: { en: 'London', de: 'London' } },
      continent: { code: 'EU', names: { en: 'Europe' } },
      country: { iso_code: 'GB', names: { en: 'United Kingdom' } },
      location: { latitude: 51.5, longitude: -0.1, time_zone: 'Europe/London' },
      subdivisions: [
        { iso_code: 'ENG', names: { en: 'England' } },
        { iso_code: 'WSM', names: { en: 'Westminster' } },
      ],
    };
    expect(geoAttributes(record)).toEqual({ country: 'GB', city: 'London', region: 'England', continent: 'Europe', timeZoneName: 'Europe/London' });
  });

  it('falls back to the registered country and the continent code of a MaxMind Country record', () => {
    expect(geoAttributes({ continent: { code: 'AS' }, registered_country: { iso_code: 'JP' } })).toEqual({
      country: 'JP',
      city: 'unknown',
      region: 'unknown',
      continent: 'Asia',
      timeZoneName: '',
    });
  });

  it.each([null, undefined, 'DE', [], 42])('is unknown for a missing or malformed record (%p)', (record) => {
    expect(geoAttributes(record)).toEqual(UNKNOWN_GEO);
    expect(UNKNOWN_GEO).toEqual({ country: 'unknown', city: 'unknown', region: 'unknown', continent: 'unknown', timeZoneName: '' });
  });

  it('refuses a country code that is not two letters', () => {
    expect(geoAttributes({ country_code: 'DEU' }).country).toBe('unknown');
    expect(geoAttributes({ country_code: 'DEU' }).continent).toBe('unknown');
  });
});

describe('continentOfCountry', () => {
  it.each([
    ['US', 'North America'],
    ['MX', 'North America'],
    ['BR', 'South America'],
    ['DE', 'Europe'],
    ['RU', 'Europe'],
    ['TR', 'Asia'],
    ['IN', 'Asia'],
    ['EG', 'Africa'],
    ['AU', 'Oceania'],
    ['AQ', 'Antarctica'],
    ['XK', 'Europe'],
  ])('puts %s in %s', (country, continent) => {
    expect(continentOfCountry(country)).toBe(continent);
  });

  it('knows every region Intl names with an ISO 3166-1 code in use', () => {
    const names = new Intl.DisplayNames('en', { type: 'region' });
    const table = new Set(countriesWithContinent());
    // Codes Intl still names that are withdrawn, reserved or not countries (UN, EU, ...).
    const notCountries = new Set('AC AN BU CP CQ CS DD DG DY EA EU EZ FX HV IC NH QO RH SU TA TP UK UN VD XA XB YD YU ZR ZZ'.split(' '));
    const letters = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
    const regions = [...letters].flatMap((a) => [...letters].map((b) => a + b)).filter((code) => names.of(code) !== code && !notCountries.has(code));
    expect(regions.filter((code) => !table.has(code))).toEqual([]);
    expect([...table].filter((code) => names.of(code) === code)).toEqual([]);
  });
});
