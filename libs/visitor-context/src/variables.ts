// The predeclared visitor variables of the routing-script language, one entry each: the script checker
// takes their types from here, the compiler and conditions their values, the catalog their documentation.
import * as time from './time';
import { VisitorContext } from './visitor-context';

// Bound once: compiled imports read another module's exports through getters, which every read of a
// time variable would otherwise pay for.
const { civilDateOf, hourOf, minuteOf, weekdayOf } = time;

export interface VisitorVariable {
  name: string;
  type: 'string' | 'int';
  meaning: string;
  example: string;
  read: (context: VisitorContext) => string | number;
  /** Set when the variable is the visitor attribute of that name as is, so compiled code may read it inline. */
  attribute?: string;
}

function visitorAttribute(name: string, meaning: string, example: string): VisitorVariable {
  // Reads the attribute inline rather than through context.visitorString: one call less per read.
  const read = (context: VisitorContext): string => {
    const value = context.visitor[name];
    return typeof value === 'string' ? value : '';
  };
  return { name, type: 'string', meaning, example, read, attribute: name };
}

export const VARIABLES: readonly VisitorVariable[] = [
  visitorAttribute('country', 'country of the visitor as an uppercase ISO 3166-1 alpha-2 code', 'US'),
  visitorAttribute('city', 'city of the visitor', 'Berlin'),
  visitorAttribute('region', 'region or state of the visitor', 'California'),
  visitorAttribute('continent', 'continent of the visitor, full name', 'North America'),
  visitorAttribute('timezone', 'time zone of the visitor in display form (use utcOffsetHours for time helpers)', 'GMT+7'),
  visitorAttribute('deviceType', 'kind of device', 'mobile'),
  visitorAttribute('brand', 'device brand', 'Apple'),
  visitorAttribute('model', 'device model', 'iPhone'),
  visitorAttribute('os', 'operating system', 'iOS'),
  visitorAttribute('osVersion', 'operating system version', '17.4'),
  visitorAttribute('browser', 'browser name', 'Chrome'),
  visitorAttribute('browserVersion', 'browser version', '124.0'),
  visitorAttribute('mainLanguage', 'main language of the visitor', 'en'),
  visitorAttribute('browserLanguage', 'language the browser asks for', 'en-US'),
  visitorAttribute('ip', 'IP address of the visitor', '203.0.113.7'),
  visitorAttribute('isp', 'internet service provider', 'Comcast'),
  visitorAttribute('connectionType', 'kind of network connection', 'broadband'),
  visitorAttribute('mobileCarrier', 'mobile carrier', 'Verizon'),
  visitorAttribute('userAgent', 'User-Agent header of the visitor', 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X)'),
  {
    name: 'referrer',
    type: 'string',
    meaning: 'referring URL of this request; falls back to initialReferrer when empty',
    example: 'https://www.google.com/',
    read: (context) => context.visitorString('referrer') || context.visitorString('initialReferrer'),
  },
  visitorAttribute('initialReferrer', 'referring URL of the first request of the visit', 'https://www.google.com/'),
  visitorAttribute('currentURL', 'URL of the current request', 'https://track.example.com/click?sub1=abc'),
  visitorAttribute('trackingDomain', 'tracking domain that received the request', 'track.example.com'),
  visitorAttribute('trafficSourceID', 'id of the traffic source; the value organic marks organically tracked traffic', 'organic'),
  { name: 'hour', type: 'int', meaning: 'hour of the day in UTC, 0..23', example: '14', read: (context) => hourOf(context.now()) },
  { name: 'minute', type: 'int', meaning: 'minute of the hour in UTC, 0..59', example: '30', read: (context) => minuteOf(context.now()) },
  { name: 'weekday', type: 'int', meaning: 'day of the week in UTC, Sunday is 0, Saturday 6', example: '1', read: (context) => weekdayOf(context.now()) },
  { name: 'dayOfMonth', type: 'int', meaning: 'day of the month in UTC, 1..31', example: '15', read: (context) => civilDateOf(context.now()).day },
  { name: 'month', type: 'int', meaning: 'month in UTC, January is 1', example: '6', read: (context) => civilDateOf(context.now()).month },
  { name: 'year', type: 'int', meaning: 'year in UTC', example: '2025', read: (context) => civilDateOf(context.now()).year },
  {
    name: 'utcOffsetHours',
    type: 'int',
    meaning: 'whole-hour UTC offset of the visitor (0 when unknown); pass it to the time helpers for visitor-local time',
    example: '-5',
    read: (context) => context.visitorUtcOffsetHours(),
  },
];

export const VARIABLES_BY_NAME: ReadonlyMap<string, VisitorVariable> = new Map(VARIABLES.map((v) => [v.name, v]));

/** The string variables (country ... trafficSourceID), in catalog order. */
export const STRING_VARIABLE_NAMES: readonly string[] = VARIABLES.filter((v) => v.type === 'string').map((v) => v.name);

/** The integer variables (hour ... utcOffsetHours), in catalog order. */
export const INTEGER_VARIABLE_NAMES: readonly string[] = VARIABLES.filter((v) => v.type === 'int').map((v) => v.name);

/** The integer variables derived from the instant (every integer one but utcOffsetHours, which comes with the visitor). */
export const TIME_VARIABLE_NAMES: readonly string[] = INTEGER_VARIABLE_NAMES.filter((name) => name !== 'utcOffsetHours');

/** The value of a variable for one visitor, as a script reads it; undefined for a name that is no variable. */
export function readVariable(context: VisitorContext, name: string): string | number | undefined {
  return VARIABLES_BY_NAME.get(name)?.read(context);
}
