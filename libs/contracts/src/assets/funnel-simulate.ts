// POST /funnel/simulate/: the request the simulator takes (a class-validator DTO, also the API
// document's schema), the answer's schema and a worked example. The service checks `visitor` with
// `@funnel/visitor-context` (the dry-run visitor context of the evaluate routes) and runs the routing
// engine; see libs/assets/feature/src/actions/funnel-simulate.
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsInt,
  IsObject,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateNested,
  ValidationArguments,
  registerDecorator,
} from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';
import { OpaqueJson } from '../validation';
import { isValidAssetId } from '../ids';
import type { JsonSchema } from './asset-kind';
import { DECIMAL_TEXT } from './common-fields';
import { IsAssetId } from './id-validators';

export const SIMULATE_LIMITS = Object.freeze({
  /** Requests (entrances and actions) walked in one simulation. */
  maxSteps: 20,
  /** Page actions are numbered 1..64. */
  maxAction: 64,
  /** The longest seed text. */
  maxSeedLength: 64,
  /** The longest entrance URL. */
  maxUrlLength: 4096,
  /** The most middleware answers one request gives. */
  maxMiddlewareAnswers: 100,
  /** The longest middleware route id. */
  maxRouteIdLength: 64,
});

/** A middleware node's answer given in the request: the route it takes, or `"call"` its destination for real. */
export const MIDDLEWARE_CALL = 'call';
export type SimulateMiddlewareAnswer = { routeId: string } | typeof MIDDLEWARE_CALL;

/** An entrance: the visitor arrives by the funnel's entrance link of a traffic source (at the root, or at `idNode`). */
export class SimulateEntranceDto {
  @IsString() @IsAssetId() idTrafficSource!: string;
  @IsOptional() @IsString() @IsAssetId() idNode?: string;
  @IsOptional()
  @IsString()
  @MaxLength(SIMULATE_LIMITS.maxUrlLength)
  @Matches(/^https?:\/\/\S+$/i, { message: 'url must be an absolute http(s) URL (the entrance link, whose query joins the visitor parameters)' })
  url?: string;
  @IsOptional()
  @IsString()
  @Matches(DECIMAL_TEXT, { message: 'cost must be decimal text >= 0 with up to 6 decimals' })
  cost?: string;
}

/** One request of the visitor: `{ entrance }` or `{ action: n }` (action n from the page the visitor is on). */
export class SimulateStepDto {
  @IsOptional() @ValidateNested() @Type(() => SimulateEntranceDto) entrance?: SimulateEntranceDto;
  @IsOptional() @IsInt() @Min(1) @Max(SIMULATE_LIMITS.maxAction) action?: number;
}

const isPlainObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The index of the first step that is not exactly one of `{ entrance }` and `{ action }`, or -1. */
function badStepIndex(steps: unknown): number {
  if (!Array.isArray(steps)) return -1;
  return steps.findIndex((step) => !isPlainObject(step) || (step.entrance === undefined) === (step.action === undefined));
}

function EachStepIsOneRequest(): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'oneRequest',
      target: target.constructor,
      propertyName: propertyName as string,
      options: {
        message: ({ value }: ValidationArguments) => `steps[${badStepIndex(value)}] must be either { entrance: { idTrafficSource, ... } } or { action: n }`,
      },
      validator: { validate: (value: unknown) => badStepIndex(value) === -1 },
    });
}

const isSeed = (value: unknown) =>
  (typeof value === 'string' && value.length >= 1 && value.length <= SIMULATE_LIMITS.maxSeedLength) ||
  (typeof value === 'number' && Number.isSafeInteger(value));

function IsSeed(): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'isSeed',
      target: target.constructor,
      propertyName: propertyName as string,
      options: { message: `seed must be text of 1..${SIMULATE_LIMITS.maxSeedLength} characters or a whole number` },
      validator: { validate: isSeed },
    });
}

/** The first problem of a middleware answers object, or undefined. */
export function middlewareAnswersProblem(value: unknown): string | undefined {
  if (!isPlainObject(value)) return 'middleware must be an object of node ids to { routeId } or "call"';
  const entries = Object.entries(value);
  if (entries.length > SIMULATE_LIMITS.maxMiddlewareAnswers) return `middleware has more than ${SIMULATE_LIMITS.maxMiddlewareAnswers} entries`;
  for (const [idNode, answer] of entries) {
    const at = isValidAssetId(idNode) ? `middleware.${idNode}` : 'middleware';
    if (!isValidAssetId(idNode)) return 'middleware keys must be node ids (12 characters of base62)';
    if (answer === MIDDLEWARE_CALL) continue;
    if (!isPlainObject(answer) || Object.keys(answer).some((key) => key !== 'routeId')) return `${at} must be { routeId } or "call"`;
    const routeId = answer.routeId;
    if (typeof routeId !== 'string' || routeId.length < 1 || routeId.length > SIMULATE_LIMITS.maxRouteIdLength)
      return `${at}.routeId must be text of 1..${SIMULATE_LIMITS.maxRouteIdLength} characters`;
  }
  return undefined;
}

function IsMiddlewareAnswers(): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'middlewareAnswers',
      target: target.constructor,
      propertyName: propertyName as string,
      options: { message: ({ value }: ValidationArguments) => middlewareAnswersProblem(value) ?? 'middleware is invalid' },
      validator: { validate: (value: unknown) => middlewareAnswersProblem(value) === undefined },
    });
}

const VISITOR_SCHEMA: JsonSchema = {
  type: 'object',
  description:
    'The visitor, as the dry-run visitor context of /condition/evaluate/ and /logicscripts/evaluate/: `visitor` (attributes by variable name: country, deviceType ..., utcOffsetHours), ' +
    "`trackingFields` (the entrance link's URL parameters, by the traffic source's field names), `dataBuffer` (URL parameters the visitor's session already holds, `{data-<name>}`), " +
    '`visitorTags` (tag ids the visitor already holds), `time` (ISO 8601 with a zone; now when absent; every step is at that time), and `ip` (the client address, optional).',
  required: ['visitor'],
  properties: {
    visitor: { type: 'object', description: 'visitor attributes by variable name and utcOffsetHours' },
    trackingFields: { type: 'object', additionalProperties: { type: 'string' } },
    dataBuffer: { type: 'object', additionalProperties: { type: 'string' } },
    visitorTags: { type: 'array', items: { type: 'string' } },
    time: { type: 'string', description: 'ISO 8601 date-time with a zone' },
    ip: { type: 'string', description: 'IPv4 or IPv6 address' },
  },
};

const MIDDLEWARE_SCHEMA: JsonSchema = {
  type: 'object',
  description:
    'Per middleware node id: the route its server answers (`{ routeId }`), or `"call"` to call the configured destination for real (through the SSRF guard, signed). ' +
    'A middleware node without an entry takes its default route (warning `middlewareNotAnswered`).',
  maxProperties: SIMULATE_LIMITS.maxMiddlewareAnswers,
  additionalProperties: {
    oneOf: [
      { const: MIDDLEWARE_CALL },
      { type: 'object', required: ['routeId'], additionalProperties: false, properties: { routeId: { type: 'string', minLength: 1, maxLength: 64 } } },
    ],
  },
};

/**
 * The body of POST /funnel/simulate/: a stored funnel (`idFunnel`) or an unsaved one (`funnel`, checked
 * as validate/ checks it), the visitor, the requests to walk in turn (the session carried from one to
 * the next), a seed for the random draws (answered when absent, so a walk can be replayed) and the
 * middleware nodes' answers. `visitor` is checked by the service (the dry-run visitor context).
 */
export class SimulateFunnelRequestDto {
  @IsOptional() @IsString() @IsAssetId() idFunnel?: string;
  @IsOptional()
  @IsObject()
  @OpaqueJson()
  @JSONSchema({ type: 'object', description: 'an unsaved funnel record (as POST /funnel/save/ takes it; checked as /funnel/validate/ checks it)' })
  funnel?: Record<string, unknown>;
  @IsObject() @OpaqueJson() @JSONSchema(VISITOR_SCHEMA) visitor!: Record<string, unknown>;
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(SIMULATE_LIMITS.maxSteps)
  @EachStepIsOneRequest()
  @ValidateNested({ each: true })
  @Type(() => SimulateStepDto)
  steps!: SimulateStepDto[];
  @IsOptional() @IsSeed() @JSONSchema({ oneOf: [{ type: 'string', minLength: 1, maxLength: SIMULATE_LIMITS.maxSeedLength }, { type: 'integer' }] }) seed?:
    string | number;
  @IsOptional() @IsMiddlewareAnswers() @OpaqueJson() @JSONSchema(MIDDLEWARE_SCHEMA) middleware?: Record<string, SimulateMiddlewareAnswer>;
}
