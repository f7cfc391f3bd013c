import type { JsonSchema } from '../assets/asset-kind';

const stringMap: JsonSchema = { type: 'object', additionalProperties: { type: 'string' } };

/**
 * The visitor context of a dry run (`/logicscripts/evaluate`, a condition's `evaluate/`), as the
 * API document shows it; the services check it with `@funnel/visitor-context`.
 */
export const VISITOR_CONTEXT_SCHEMA: JsonSchema = {
  type: 'object',
  properties: {
    visitor: { type: 'object', description: 'visitor attributes by variable name (country, deviceType ...) and utcOffsetHours' },
    trackingFields: stringMap,
    dataBuffer: stringMap,
    visitorTags: { type: 'array', items: { type: 'string' } },
    time: { type: 'string', description: 'ISO 8601 date-time with a zone; the current time when absent' },
    routeKeys: { type: 'array', items: { type: 'string' }, description: 'keys the node accepts; any other routes to the fallback' },
  },
};

/** One diagnostic of the routing-script validator. */
export const DIAGNOSTIC_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['line', 'column', 'code', 'message'],
  properties: { line: { type: 'integer' }, column: { type: 'integer' }, code: { type: 'string' }, message: { type: 'string' } },
};

/** What `/logicscripts/validate` answers. */
export const SCRIPT_VALIDATION_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['valid', 'routeKeys', 'errors', 'warnings'],
  properties: {
    valid: { type: 'boolean' },
    routeKeys: { type: 'array', items: { type: 'string' } },
    errors: { type: 'array', items: DIAGNOSTIC_SCHEMA },
    warnings: { type: 'array', items: DIAGNOSTIC_SCHEMA },
  },
  additionalProperties: false,
};

/** What `/logicscripts/evaluate` answers: the validation result and the route key chosen. */
export const SCRIPT_EVALUATION_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['valid', 'routeKeys', 'errors', 'warnings', 'routeKey', 'fallback', 'reason', 'reasonCode'],
  properties: {
    ...(SCRIPT_VALIDATION_SCHEMA.properties as object),
    routeKey: { type: 'string' },
    fallback: { type: 'boolean', description: 'the fallback key was chosen because the script could not decide' },
    reason: { type: 'string' },
    reasonCode: { type: 'string' },
  },
  additionalProperties: false,
};
