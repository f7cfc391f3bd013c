// The visitor-context model shared by logic scripts and conditions: what is known about one visitor and
// how routing reads it.
//
//   VisitorContext.of({ visitor, trackingFields, dataBuffer, visitorTags, now }) -> the reads:
//     visitorString, visitorUtcOffsetHours, trackingField, dataBufferValue, hasVisitorTag, now
//   VARIABLES / readVariable(context, name) -> the language's variables (country ... utcOffsetHours)
//   validateDryRunInput(input) -> problems; visitorContextOf(input, now?) -> the context of a valid input
export { VisitorContext } from './visitor-context';
export type { VisitorAttributes, VisitorData } from './visitor-context';
export { VARIABLES, VARIABLES_BY_NAME, STRING_VARIABLE_NAMES, INTEGER_VARIABLE_NAMES, TIME_VARIABLE_NAMES, readVariable } from './variables';
export type { VisitorVariable } from './variables';
export { DRY_RUN_LIMITS, dryRunProblems, validateDryRunInput, parseIsoDateTime, dryRunInstant, visitorContextOf } from './dry-run-input';
export type { DryRunProblem } from './dry-run-input';
export type { DryRunInput } from './dry-run-input';
export {
  ROUTE_KEY_PATTERN,
  FIELD_NAME_PATTERN,
  FALLBACK_ROUTE_KEY,
  MIN_UTC_OFFSET_HOURS,
  MAX_UTC_OFFSET_HOURS,
  isRouteKey,
  isFieldName,
  isUtcOffsetHours,
} from './rules';
export { DAY_NAMES, hourOf, minuteOf, weekdayOf, minuteOfDay, localWeekday, clockMinutes, inClockRange, civilDateOf } from './time';
export type { CivilDate } from './time';
