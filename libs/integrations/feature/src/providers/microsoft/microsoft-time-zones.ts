/**
 * Microsoft Advertising's time zones (the `TimeZoneType` value set of the Customer Management
 * service, an ad account's `TimeZone`) as IANA zones. Each value names places and, in Microsoft's
 * documentation, an offset ("(GMT+01:00) Brussels, Copenhagen, Madrid, Paris"); the zone is the one
 * of the places named, with their daylight saving rules. Where the places no longer share a zone
 * (Almaty moved to +05:00 in 2024, Novosibirsk is +07:00), the zone is one that keeps the
 * documented offset. The Reporting service spells four values differently (`ReportTimeZone`):
 * those spellings are here too.
 */
const MICROSOFT_TIME_ZONES: Readonly<Record<string, string>> = {
  // (GMT-12:00) International Date Line West
  InternationalDateLineWest: 'Etc/GMT+12',
  // (GMT-11:00) Midway Island, Samoa
  MidwayIslandAndSamoa: 'Pacific/Pago_Pago',
  MidwayIslandandSamoa: 'Pacific/Pago_Pago',
  // (GMT-10:00) Hawaii
  Hawaii: 'Pacific/Honolulu',
  // (GMT-09:00) Alaska
  Alaska: 'America/Anchorage',
  // (GMT-08:00) Pacific Time (US & Canada); Tijuana
  PacificTimeUSCanadaTijuana: 'America/Los_Angeles',
  // (GMT-07:00) Arizona
  Arizona: 'America/Phoenix',
  // (GMT-07:00) Chihuahua, La Paz, Mazatlan
  ChihuahuaLaPazMazatlan: 'America/Mazatlan',
  // (GMT-07:00) Mountain Time (US & Canada)
  MountainTimeUSCanada: 'America/Denver',
  // (GMT-06:00) Central America
  CentralAmerica: 'America/Guatemala',
  // (GMT-06:00) Central Time (US & Canada)
  CentralTimeUSCanada: 'America/Chicago',
  // (GMT-06:00) Guadalajara, Mexico City, Monterrey
  GuadalajaraMexicoCityMonterrey: 'America/Mexico_City',
  // (GMT-06:00) Saskatchewan
  Saskatchewan: 'America/Regina',
  // (GMT-05:00) Bogota, Lima, Quito
  BogotaLimaQuito: 'America/Bogota',
  // (GMT-05:00) Eastern Time (US & Canada)
  EasternTimeUSCanada: 'America/New_York',
  // (GMT-05:00) Indiana (East)
  IndianaEast: 'America/Indiana/Indianapolis',
  // (GMT-04:00) Atlantic Time (Canada)
  AtlanticTimeCanada: 'America/Halifax',
  // (GMT-04:00) Caracas, La Paz
  CaracasLaPaz: 'America/Caracas',
  // (GMT-04:00) Santiago
  Santiago: 'America/Santiago',
  // (GMT-03:30) Newfoundland
  Newfoundland: 'America/St_Johns',
  // (GMT-03:00) Brasilia
  Brasilia: 'America/Sao_Paulo',
  // (GMT-03:00) Buenos Aires, Georgetown
  BuenosAiresGeorgetown: 'America/Argentina/Buenos_Aires',
  // (GMT-03:00) Greenland (Nuuk has kept -02:00 since 2023)
  Greenland: 'America/Nuuk',
  // (GMT-02:00) Mid-Atlantic
  MidAtlantic: 'Atlantic/South_Georgia',
  // (GMT-01:00) Azores
  Azores: 'Atlantic/Azores',
  // (GMT-01:00) Cape Verde Is.
  CapeVerdeIsland: 'Atlantic/Cape_Verde',
  // (GMT) Casablanca, Monrovia
  CasablancaMonrovia: 'Africa/Monrovia',
  // (GMT) Greenwich Mean Time: Dublin, Edinburgh, Lisbon, London
  GreenwichMeanTimeDublinEdinburghLisbonLondon: 'Europe/London',
  // (GMT+01:00) Amsterdam, Berlin, Bern, Rome, Stockholm, Vienna
  AmsterdamBerlinBernRomeStockholmVienna: 'Europe/Berlin',
  // (GMT+01:00) Belgrade, Bratislava, Budapest, Ljubljana, Prague
  BelgradeBratislavaBudapestLjubljanaPrague: 'Europe/Budapest',
  // (GMT+01:00) Brussels, Copenhagen, Madrid, Paris
  BrusselsCopenhagenMadridParis: 'Europe/Paris',
  // (GMT+01:00) Sarajevo, Skopje, Warsaw, Zagreb
  SarajevoSkopjeWarsawZagreb: 'Europe/Warsaw',
  // (GMT+01:00) West Central Africa
  WestCentralAfrica: 'Africa/Lagos',
  // (GMT+02:00) Athens, Istanbul, Minsk
  AthensBuckarestIstanbul: 'Europe/Athens',
  AthensIslandanbulMinsk: 'Europe/Athens',
  // (GMT+02:00) Bucharest
  Bucharest: 'Europe/Bucharest',
  // (GMT+02:00) Cairo
  Cairo: 'Africa/Cairo',
  // (GMT+02:00) Harare, Pretoria
  HararePretoria: 'Africa/Johannesburg',
  // (GMT+02:00) Helsinki, Kyiv, Riga, Sofia, Tallinn, Vilnius
  HelsinkiKyivRigaSofiaTallinnVilnius: 'Europe/Helsinki',
  // (GMT+02:00) Jerusalem
  Jerusalem: 'Asia/Jerusalem',
  // (GMT+03:00) Baghdad
  Baghdad: 'Asia/Baghdad',
  // (GMT+03:00) Kuwait, Riyadh
  KuwaitRiyadh: 'Asia/Riyadh',
  // (GMT+03:00) Moscow, St. Petersburg, Volgograd
  MoscowStPetersburgVolgograd: 'Europe/Moscow',
  // (GMT+03:00) Nairobi
  Nairobi: 'Africa/Nairobi',
  // (GMT+03:30) Tehran
  Tehran: 'Asia/Tehran',
  // (GMT+04:00) Abu Dhabi, Muscat
  AbuDhabiMuscat: 'Asia/Dubai',
  // (GMT+04:00) Baku, Tbilisi, Yerevan
  BakuTbilisiYerevan: 'Asia/Baku',
  // (GMT+04:30) Kabul
  Kabul: 'Asia/Kabul',
  // (GMT+05:00) Ekaterinburg
  Ekaterinburg: 'Asia/Yekaterinburg',
  // (GMT+05:00) Islamabad, Karachi, Tashkent
  IslamabadKarachiTashkent: 'Asia/Karachi',
  IslandamabadKarachiTashkent: 'Asia/Karachi',
  // (GMT+05:30) Chennai, Kolkata, Mumbai, New Delhi
  ChennaiKolkataMumbaiNewDelhi: 'Asia/Kolkata',
  // (GMT+05:45) Kathmandu
  Kathmandu: 'Asia/Kathmandu',
  // (GMT+06:00) Almaty, Novosibirsk: neither is +06:00 any longer; Omsk is.
  AlmatyNovosibirsk: 'Asia/Omsk',
  // (GMT+06:00) Astana, Dhaka
  AstanaDhaka: 'Asia/Dhaka',
  // (GMT+06:00) Sri Jayawardenepura (Sri Lanka has kept +05:30 since 2006)
  SriJayawardenepura: 'Asia/Colombo',
  // (GMT+06:30) Rangoon
  Rangoon: 'Asia/Yangon',
  // (GMT+07:00) Bangkok, Hanoi, Jakarta
  BangkokHanoiJakarta: 'Asia/Bangkok',
  // (GMT+07:00) Krasnoyarsk
  Krasnoyarsk: 'Asia/Krasnoyarsk',
  // (GMT+08:00) Beijing, Chongqing, Hong Kong, Urumqi
  BeijingChongqingHongKongUrumqi: 'Asia/Shanghai',
  // (GMT+08:00) Irkutsk, Ulaan Bataar
  IrkutskUlaanBataar: 'Asia/Irkutsk',
  // (GMT+08:00) Kuala Lumpur, Singapore
  KualaLumpurSingapore: 'Asia/Singapore',
  // (GMT+08:00) Perth
  Perth: 'Australia/Perth',
  // (GMT+08:00) Taipei
  Taipei: 'Asia/Taipei',
  // (GMT+09:00) Osaka, Sapporo, Tokyo
  OsakaSapporoTokyo: 'Asia/Tokyo',
  // (GMT+09:00) Seoul
  Seoul: 'Asia/Seoul',
  // (GMT+09:00) Yakutsk
  Yakutsk: 'Asia/Yakutsk',
  // (GMT+09:30) Adelaide
  Adelaide: 'Australia/Adelaide',
  // (GMT+09:30) Darwin
  Darwin: 'Australia/Darwin',
  // (GMT+10:00) Brisbane
  Brisbane: 'Australia/Brisbane',
  // (GMT+10:00) Canberra, Melbourne, Sydney
  CanberraMelbourneSydney: 'Australia/Sydney',
  // (GMT+10:00) Guam, Port Moresby
  GuamPortMoresby: 'Pacific/Port_Moresby',
  // (GMT+10:00) Hobart
  Hobart: 'Australia/Hobart',
  // (GMT+10:00) Vladivostok
  Vladivostok: 'Asia/Vladivostok',
  // (GMT+11:00) Magadan, Solomon Is., New Caledonia
  SolomonIslandNewCaledonia: 'Pacific/Guadalcanal',
  MagadanSolomonIslandNewCaledonia: 'Pacific/Guadalcanal',
  // (GMT+12:00) Auckland, Wellington
  AucklandWellington: 'Pacific/Auckland',
  // (GMT+12:00) Fiji, Kamchatka, Marshall Is.
  FijiKamchatkaMarshallIsland: 'Pacific/Fiji',
  // (GMT+13:00) Nuku'alofa
  Nukualofa: 'Pacific/Tongatapu',
};

/** The IANA zone of a Microsoft `TimeZone` value, or null for a value not in the documented set. */
export function ianaZoneOf(microsoftTimeZone: unknown): string | null {
  return typeof microsoftTimeZone === 'string' && Object.hasOwn(MICROSOFT_TIME_ZONES, microsoftTimeZone) ? MICROSOFT_TIME_ZONES[microsoftTimeZone] : null;
}

/** Every documented value (the Customer Management spellings and the Reporting ones). */
export const MICROSOFT_TIME_ZONE_NAMES: readonly string[] = Object.keys(MICROSOFT_TIME_ZONES);
