import { Type } from 'class-transformer';
import {
  Allow,
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsObject,
  IsOptional,
  IsString,
  Length,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';
import { AssetKindDescriptor, COMMON_ASSET_OPERATIONS } from './asset-kind';
import { PlacedAssetDto } from './common-fields';
import { IsAssetId } from './id-validators';
import { NAME_MAX, NAME_MIN } from './requests';
import { IsSecretInput } from './secret-value';

export const MIDDLEWARE_SCHEMA_VERSION = 1;
export const MIDDLEWARE_ROUTES_MAX = 64;
export const MIDDLEWARE_PRIORITY_MAX = 255;
export const MIDDLEWARE_DESTINATION_TYPES = ['http'] as const;
export const MIDDLEWARE_METHODS = ['POST', 'GET'] as const;
export const MIDDLEWARE_URL_MAX = 4096;
export const MIDDLEWARE_TIMEOUT_MIN_MS = 1;
export const MIDDLEWARE_TIMEOUT_MAX_MS = 10_000;
export const MIDDLEWARE_DEFAULT_TIMEOUT_MS = 5000;
export const MIDDLEWARE_DESCRIPTION_MAX = 4096;
export const HMAC_SECRET_MIN = 16;
export const HMAC_SECRET_MAX = 256;
export const BASIC_AUTH_FIELD_MAX = 256;

/** How a route's rule compares the answer's value with its own (see MiddlewareRouteRuleDto). */
export const MIDDLEWARE_RULE_OPERATORS = ['is', 'isNot', 'contains', 'exists', 'gt', 'lt'] as const;
export type MiddlewareRuleOperator = (typeof MIDDLEWARE_RULE_OPERATORS)[number];
/** The answer's HTTP status as a rule field. */
export const MIDDLEWARE_STATUS_FIELD = 'status_code';
/** The answer's JSON body as a rule field: `body_json` itself, or `body_json.<path>` (dot-separated keys; a number picks an array item). */
export const MIDDLEWARE_BODY_FIELD = 'body_json';
export const MIDDLEWARE_RULES_MAX = 16;
export const MIDDLEWARE_RULE_FIELD_MAX = 256;
export const MIDDLEWARE_RULE_VALUE_MAX = 1024;

/**
 * One rule of a route, tested on the middleware server's answer: `field` is `status_code` or
 * `body_json[.<path>]`, `operator` one of MIDDLEWARE_RULE_OPERATORS, `value` a string, number or
 * boolean (none for `exists`). Checked by the domain's middleware rules.
 */
export class MiddlewareRouteRuleDto {
  @IsString() @MaxLength(MIDDLEWARE_RULE_FIELD_MAX) field!: string;
  @IsIn(MIDDLEWARE_RULE_OPERATORS) operator!: MiddlewareRuleOperator;
  /** A string (at most 1,024 characters), a number or a boolean; checked by the domain's rules. */
  @Allow() value?: string | number | boolean;
}

/**
 * One route: its key (the label a funnel connection names), its priority, whether it is the default,
 * and the rules an answer must all meet for it (none: the answer names it, `{ "route": "<idRoute>" }`).
 * Checked by the domain's middleware rules.
 */
export class MiddlewareRouteDto {
  @IsString() @MaxLength(64) idRoute!: string;
  @IsOptional() @IsInt() @Min(0) @Max(MIDDLEWARE_PRIORITY_MAX) priority?: number;
  @IsOptional() @IsBoolean() isDefault?: boolean;
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(MIDDLEWARE_RULES_MAX)
  @ValidateNested({ each: true })
  @Type(() => MiddlewareRouteRuleDto)
  rules?: MiddlewareRouteRuleDto[];
}

/** Basic auth of a destination; the password is write-only. A user-id cannot hold a colon (RFC 7617). */
export class BasicAuthDto {
  @IsString()
  @Length(1, BASIC_AUTH_FIELD_MAX)
  @Matches(/^[^:\p{Cc}]+$/u, { message: 'username must not hold a colon or control characters' })
  username!: string;
  @IsSecretInput(1, BASIC_AUTH_FIELD_MAX) password?: string | null;
}

/** Where a middleware node sends the visitor's context. `url` and `headers` are checked by the domain's middleware rules. */
export class MiddlewareDestinationDto {
  @IsOptional() @IsIn(MIDDLEWARE_DESTINATION_TYPES) type: (typeof MIDDLEWARE_DESTINATION_TYPES)[number] = 'http';
  @IsOptional() @IsIn(MIDDLEWARE_METHODS) method: (typeof MIDDLEWARE_METHODS)[number] = 'POST';
  @IsString() @MaxLength(MIDDLEWARE_URL_MAX) url!: string;
  @IsOptional() @IsInt() @Min(MIDDLEWARE_TIMEOUT_MIN_MS) @Max(MIDDLEWARE_TIMEOUT_MAX_MS) timeoutMs = MIDDLEWARE_DEFAULT_TIMEOUT_MS;
  @IsOptional() @IsObject() headers: Record<string, string> = {};
  @IsOptional() @ValidateNested() @Type(() => BasicAuthDto) basicAuth?: BasicAuthDto | null;
  @IsSecretInput(HMAC_SECRET_MIN, HMAC_SECRET_MAX) hmacSecret?: string | null;
}

/** MiddlewareConfig. `schemaVersion` is set by the service; the default route is added when missing. */
export class MiddlewareConfigDto extends PlacedAssetDto {
  @IsString() @IsAssetId() idMiddlewareConfig!: string;
  @IsString() @Length(NAME_MIN, NAME_MAX) middlewareConfigName!: string;
  @IsOptional() @IsString() @MaxLength(MIDDLEWARE_DESCRIPTION_MAX) description = '';
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(MIDDLEWARE_ROUTES_MAX)
  @ValidateNested({ each: true })
  @Type(() => MiddlewareRouteDto)
  routes: MiddlewareRouteDto[] = [];
  @ValidateNested() @Type(() => MiddlewareDestinationDto) destination!: MiddlewareDestinationDto;
}

export const MIDDLEWARE_CONFIG_KIND: AssetKindDescriptor = {
  kind: 'middlewareconfig',
  eventPrefix: 'MiddlewareConfig',
  idField: 'idMiddlewareConfig',
  idsParam: 'idMiddlewareConfigs',
  nameField: 'middlewareConfigName',
  recordDto: MiddlewareConfigDto,
  paths: ['/middlewareconfig'],
  operations: [...COMMON_ASSET_OPERATIONS],
  categoryType: 'middlewareconfig',
  list: { statusRequired: false, defaultStatus: 'not-deleted', filters: [{ param: 'idCategory', field: 'idCategory', required: false }] },
  findByStatusFilters: [],
  isParent: false,
  derivedFields: ['categoryName', 'schemaVersion'],
  slimFields: ['middlewareConfigName'],
  docs: {
    fields: { schemaVersion: { type: 'integer', description: 'set by the service' } },
    slim: {
      destinationType: { type: 'string', enum: [...MIDDLEWARE_DESTINATION_TYPES] },
      destinationMethod: { type: 'string', enum: [...MIDDLEWARE_METHODS] },
    },
  },
  secretFields: [
    { path: 'destination.basicAuth.password', flag: 'hasBasicAuthPassword' },
    { path: 'destination.hmacSecret', flag: 'hasHmacSecret' },
  ],
};
