// Continent of each ISO 3166-1 alpha-2 country (and XK, Kosovo), as GeoNames and MaxMind's GeoIP2
// data assign them; for geo databases whose records carry the country but no continent.

const COUNTRIES_BY_CONTINENT: Readonly<Record<string, string>> = {
  Africa:
    'AO BF BI BJ BW CD CF CG CI CM CV DJ DZ EG EH ER ET GA GH GM GN GQ GW KE KM LR LS LY MA MG ML MR MU MW MZ NA NE NG RE RW SC SD SH SL SN SO SS ST SZ TD TG TN TZ UG YT ZA ZM ZW',
  Antarctica: 'AQ BV GS HM TF',
  Asia: 'AE AF AM AZ BD BH BN BT CC CN CX GE HK ID IL IN IO IQ IR JO JP KG KH KP KR KW KZ LA LB LK MM MN MO MV MY NP OM PH PK PS QA SA SG SY TH TJ TL TM TR TW UZ VN YE',
  Europe:
    'AD AL AT AX BA BE BG BY CH CY CZ DE DK EE ES FI FO FR GB GG GI GR HR HU IE IM IS IT JE LI LT LU LV MC MD ME MK MT NL NO PL PT RO RS RU SE SI SJ SK SM UA VA XK',
  'North America': 'AG AI AW BB BL BM BQ BS BZ CA CR CU CW DM DO GD GL GP GT HN HT JM KN KY LC MF MQ MS MX NI PA PM PR SV SX TC TT US VC VG VI',
  Oceania: 'AS AU CK FJ FM GU KI MH MP NC NF NR NU NZ PF PG PN PW SB TK TO TV UM VU WF WS',
  'South America': 'AR BO BR CL CO EC FK GF GY PE PY SR UY VE',
};

/** Continent codes as MaxMind's records carry them. */
export const CONTINENT_NAMES: Readonly<Record<string, string>> = {
  AF: 'Africa',
  AN: 'Antarctica',
  AS: 'Asia',
  EU: 'Europe',
  NA: 'North America',
  OC: 'Oceania',
  SA: 'South America',
};

const CONTINENT_OF_COUNTRY: ReadonlyMap<string, string> = new Map(
  Object.entries(COUNTRIES_BY_CONTINENT).flatMap(([continent, countries]) => countries.split(' ').map((country) => [country, continent] as const)),
);

/** The continent's full name (`Europe`, `North America`, ...) of an upper-case alpha-2 country code; undefined when unknown. */
export function continentOfCountry(country: string): string | undefined {
  return CONTINENT_OF_COUNTRY.get(country);
}

/** Every country code the table knows (for tests). */
export function countriesWithContinent(): string[] {
  return [...CONTINENT_OF_COUNTRY.keys()];
}
