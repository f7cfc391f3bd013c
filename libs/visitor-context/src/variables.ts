// The predeclared visitor variables of the routing-script language, one entry each: the script checker
// takes their types from here, the compiler and conditions their values, the catalog their documentation.
import { VISITOR_INTEGER_VARIABLES, VISITOR_STRING_VARIABLES, type VisitorIntegerVariable, type VisitorStringVariable } from '@funnel/contracts';
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

/** What a variable means, an example value and how it is read, given its name. */
type Definition = (name: string) => Pick<VisitorVariable, 'meaning' | 'example' | 'read' | 'attribute'>;

function visitorAttribute(meaning: string, example: string): Definition {
  return (name) => {
    // Reads the attribute inline rather than through context.visitorString: one call less per read.
    const read = (context: VisitorContext): string => {
      const value = context.visitor[name];
      return typeof value === 'string' ? value : '';
    };
    return { meaning, example, read, attribute: name };
  };
}

const computed =
  (meaning: string, example: string, read: VisitorVariable['read']): Definition =>
  () => ({ meaning, example, read });

// Keyed by the names @funnel/contracts lists (the API document's condition attributes): a name
// without a definition here, or one that is not listed there, does not compile.
const STRING_VARIABLES: Readonly<Record<VisitorStringVariable, Definition>> = {
  country: visitorAttribute('country of the visitor as an uppercase ISO 3166-1 alpha-2 code', 'US'),
  city: visitorAttribute('city of the visitor', 'Berlin'),
  region: visitorAttribute('region or state of the visitor', 'California'),
  continent: visitorAttribute('continent of the visitor, full name', 'North America'),
  timezone: visitorAttribute('time zone of the visitor in display form (use utcOffsetHours for time helpers)', 'GMT+7'),
  deviceType: visitorAttribute('kind of device', 'mobile'),
  brand: visitorAttribute('device brand', 'Apple'),
  model: visitorAttribute('device model', 'iPhone'),
  os: visitorAttribute('operating system', 'iOS'),
  osVersion: visitorAttribute('operating system version', '17.4'),
  browser: visitorAttribute('browser name', 'Chrome'),
  browserVersion: visitorAttribute('browser version', '124.0'),
  mainLanguage: visitorAttribute('main language of the visitor', 'en'),
  browserLanguage: visitorAttribute('language the browser asks for', 'en-US'),
  ip: visitorAttribute('IP address of the visitor', '203.0.113.7'),
  isp: visitorAttribute('internet service provider', 'Comcast'),
  connectionType: visitorAttribute('kind of network connection', 'broadband'),
  mobileCarrier: visitorAttribute('mobile carrier', 'Verizon'),
  userAgent: visitorAttribute('User-Agent header of the visitor', 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X)'),
  referrer: computed(
    'referring URL of this request; falls back to initialReferrer when empty',
    'https://www.google.com/',
    (context) => context.visitorString('referrer') || context.visitorString('initialReferrer'),
  ),
  initialReferrer: visitorAttribute('referring URL of the first request of the visit', 'https://www.google.com/'),
  currentURL: visitorAttribute('URL of the current request', 'https://track.example.com/click?sub1=abc'),
  trackingDomain: visitorAttribute('tracking domain that received the request', 'track.example.com'),
  trafficSourceID: visitorAttribute('id of the traffic source; the value organic marks organically tracked traffic', 'organic'),
};

const INTEGER_VARIABLES: Readonly<Record<VisitorIntegerVariable, Definition>> = {
  hour: computed('hour of the day in UTC, 0..23', '14', (context) => hourOf(context.now())),
  minute: computed('minute of the hour in UTC, 0..59', '30', (context) => minuteOf(context.now())),
  weekday: computed('day of the week in UTC, Sunday is 0, Saturday 6', '1', (context) => weekdayOf(context.now())),
  dayOfMonth: computed('day of the month in UTC, 1..31', '15', (context) => civilDateOf(context.now()).day),
  month: computed('month in UTC, January is 1', '6', (context) => civilDateOf(context.now()).month),
  year: computed('year in UTC', '2025', (context) => civilDateOf(context.now()).year),
  utcOffsetHours: computed('whole-hour UTC offset of the visitor (0 when unknown); pass it to the time helpers for visitor-local time', '-5', (context) =>
    context.visitorUtcOffsetHours(),
  ),
};

/** Every variable, strings first, each in @funnel/contracts' catalog order. */
export const VARIABLES: readonly VisitorVariable[] = [
  ...VISITOR_STRING_VARIABLES.map((name): VisitorVariable => ({ name, type: 'string', ...STRING_VARIABLES[name](name) })),
  ...VISITOR_INTEGER_VARIABLES.map((name): VisitorVariable => ({ name, type: 'int', ...INTEGER_VARIABLES[name](name) })),
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
