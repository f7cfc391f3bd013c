import { Type } from 'class-transformer';
import { ArrayMaxSize, ArrayUnique, IsArray, IsBoolean, IsIn, IsObject, IsOptional, IsString, Length, MaxLength, ValidateNested } from 'class-validator';
import { AssetKindDescriptor, COMMON_ASSET_OPERATIONS } from './asset-kind';
import { PlacedAssetDto } from './common-fields';
import { IsAssetId } from './id-validators';
import { NAME_MAX, NAME_MIN } from './requests';

/** `custom` (default) or one of the automation platforms a config may be meant for. */
export const WEBHOOK_TARGET_TYPES = ['custom', 'zapier', 'make', 'n8n', 'pabbly', 'integrately', 'pipedream', 'ifttt'] as const;
export type WebhookTargetType = (typeof WEBHOOK_TARGET_TYPES)[number];
export const WEBHOOK_DESCRIPTION_MAX = 4096;
export const WEBHOOK_URL_MAX = 4096;
export const WEBHOOK_BASIC_AUTH_USERNAME_MAX = 256;
export const WEBHOOK_BASIC_AUTH_PASSWORD_MAX = 1024;

/**
 * What a config delivers: `node_execution` (a visitor passed a webhook node naming it),
 * `conversion_triggered` (reporting applied a conversion) and `custom_event_triggered` (reporting
 * applied a custom event). Conversions and custom events reach a config when a webhook node of the
 * hit's funnel names it, or for every funnel of the account when its `allFunnels` is true.
 */
export const WEBHOOK_TRIGGERS = ['node_execution', 'conversion_triggered', 'custom_event_triggered'] as const;
export type WebhookTrigger = (typeof WEBHOOK_TRIGGERS)[number];
/** The triggers of a config that names none (also of configs saved before triggers existed). */
export const DEFAULT_WEBHOOK_TRIGGERS: readonly WebhookTrigger[] = ['node_execution'];

/** A config's triggers as stored: its own, or the default for one saved before triggers existed. */
export function webhookTriggersOf(record: object): WebhookTrigger[] {
  const triggers = (record as { triggers?: unknown }).triggers;
  const given = Array.isArray(triggers) ? triggers.filter((t): t is WebhookTrigger => (WEBHOOK_TRIGGERS as readonly unknown[]).includes(t)) : undefined;
  return given ?? [...DEFAULT_WEBHOOK_TRIGGERS];
}

/** 409 of `test/`: the config's delivery switch is off. */
export const WEBHOOK_DISABLED = 'WEBHOOK.DISABLED';
/** 409 of `test/`: the config has no URL to deliver to. */
export const WEBHOOK_NO_URL = 'WEBHOOK.NO_URL';

/**
 * Basic authentication of deliveries. `password` is write-only: reads show `********` (and
 * `hasBasicAuthPassword`); sending `********` or leaving it out keeps it, `null` or `""` removes it.
 */
export class WebhookBasicAuthDto {
  @IsString() @Length(1, WEBHOOK_BASIC_AUTH_USERNAME_MAX) username!: string;
  @IsOptional() @IsString() @MaxLength(WEBHOOK_BASIC_AUTH_PASSWORD_MAX) password?: string | null;
}

/**
 * WebhookConfig (write model). `url` and `headers` are checked by the domain's webhook-config rules.
 * `signingSecret` is not a field clients write: the service generates it on create and it has
 * routes of its own (`secret/`, `secret/rotate/`); a value sent in is dropped.
 */
export class WebhookConfigDto extends PlacedAssetDto {
  @IsString() @IsAssetId() idWebhookConfig!: string;
  @IsString() @Length(NAME_MIN, NAME_MAX) webhookConfigName!: string;
  @IsOptional() @IsString() @MaxLength(WEBHOOK_DESCRIPTION_MAX) description = '';
  @IsOptional() @IsBoolean() enabled = true;
  @IsOptional() @IsIn(WEBHOOK_TARGET_TYPES) targetType: WebhookTargetType = 'custom';
  @IsOptional() @IsString() @Length(1, WEBHOOK_URL_MAX) url?: string;
  @IsOptional() @IsObject() headers: Record<string, string> = {};
  @IsOptional() @ValidateNested() @Type(() => WebhookBasicAuthDto) basicAuth?: WebhookBasicAuthDto;
  /** The events the config delivers (WEBHOOK_TRIGGERS, each at most once; default `["node_execution"]`; `[]` delivers nothing). */
  @IsOptional() @IsArray() @ArrayMaxSize(WEBHOOK_TRIGGERS.length) @ArrayUnique() @IsIn(WEBHOOK_TRIGGERS, { each: true }) triggers: WebhookTrigger[] = [
    ...DEFAULT_WEBHOOK_TRIGGERS,
  ];
  /**
   * `conversion_triggered` and `custom_event_triggered` of every funnel of the account (default
   * false: only of funnels with a webhook node naming the config). `node_execution` always comes
   * from webhook nodes.
   */
  @IsOptional() @IsBoolean() allFunnels = false;
}

const SIGNING_SECRET_ANSWER = {
  type: 'object',
  required: ['signingSecret'],
  additionalProperties: false,
  properties: { signingSecret: { type: 'string' } },
};

export const WEBHOOK_CONFIG_KIND: AssetKindDescriptor = {
  kind: 'webhookconfig',
  eventPrefix: 'WebhookConfig',
  idField: 'idWebhookConfig',
  idsParam: 'idWebhookConfigs',
  nameField: 'webhookConfigName',
  recordDto: WebhookConfigDto,
  paths: ['/webhookconfig'],
  // The common pattern every category-managed family offers (the spec's table names all but find/byStatus and find/byCategory), plus the kind's actions.
  operations: [...COMMON_ASSET_OPERATIONS, 'secret', 'rotateSecret', 'test'],
  categoryType: 'webhookconfig',
  list: { statusRequired: true, defaultStatus: 'all', filters: [{ param: 'idCategory', field: 'idCategory', required: false }] },
  findByStatusFilters: [],
  isParent: false,
  derivedFields: ['categoryName'],
  // WebhookConfigInfo: id, name, status, targetType, enabled, idCategory, categoryName (never the URL, headers or secrets).
  slimFields: ['webhookConfigName', 'targetType', 'enabled'],
  secretFields: [
    { path: 'basicAuth.password', flag: 'hasBasicAuthPassword' },
    { path: 'signingSecret', flag: 'hasSigningSecret', hidden: true },
  ],
  docs: {
    operations: {
      secret: { answer: SIGNING_SECRET_ANSWER },
      rotateSecret: { answer: SIGNING_SECRET_ANSWER },
      test: {
        answer: {
          type: 'object',
          required: ['delivered', 'httpStatus', 'responseTimeMs', 'error'],
          additionalProperties: false,
          properties: {
            delivered: { type: 'boolean' },
            httpStatus: { type: ['integer', 'null'] },
            responseTimeMs: { type: 'number', minimum: 0 },
            error: { type: ['string', 'null'] },
          },
        },
      },
    },
  },
};
