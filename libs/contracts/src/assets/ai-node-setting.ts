import { IsIn, IsInt, IsObject, IsOptional, IsString, Length, Max, Min } from 'class-validator';
import { AssetKindDescriptor } from './asset-kind';
import { IsAssetId, IsAssetIdOrEmpty } from './id-validators';
import { ASSET_STATUSES, AssetStatus, NAME_MAX, NAME_MIN } from './requests';

export const AI_SEGMENTS = ['default', 'trafficSource'] as const;
export const AI_ROUTING_GOALS = ['bestNextNode', 'bestNextPage', 'bestNextNodeToPage'] as const;
export const AI_EVENT_TYPES = ['conversions', ...Array.from({ length: 7 }, (_, i) => `customEvent${i + 1}`)] as const;
export const AI_MODELS = ['conversionRate', 'revenuePerView'] as const;
/** Hours of data the node looks back on (a year at most), and how often it recalculates (a month at most). */
export const AI_LOOKBACK_WINDOW_MAX = 8760;
export const AI_UPDATE_FREQUENCY_MAX = 720;

/**
 * AINodeSetting: how an AI node of a funnel picks its next node or page. `funnelId` must be a valid
 * id but need not name a saved funnel (the funnel may be saved after its settings); the shape of
 * `calculationParams` is checked by the domain's AI node setting rules. Not category-managed:
 * `idCategory` is kept as given (an id or ""), as the spec lists it, without a category check.
 */
export class AINodeSettingDto {
  @IsString() @IsAssetId() idAINodeSetting!: string;
  @IsOptional() @IsString() @Length(NAME_MIN, NAME_MAX) aiNodeSettingName?: string;
  @IsString() @IsAssetId() funnelId!: string;
  @IsOptional() @IsString() @IsAssetIdOrEmpty() nodeId?: string;
  @IsIn(AI_SEGMENTS) segmentBy!: (typeof AI_SEGMENTS)[number];
  @IsIn(AI_ROUTING_GOALS) routingGoal!: (typeof AI_ROUTING_GOALS)[number];
  @IsInt() @Min(1) @Max(AI_LOOKBACK_WINDOW_MAX) lookbackWindow!: number;
  @IsInt() @Min(1) @Max(AI_UPDATE_FREQUENCY_MAX) updateFrequency!: number;
  @IsOptional() @IsIn(AI_EVENT_TYPES) eventType?: string;
  @IsOptional() @IsIn(AI_MODELS) model?: (typeof AI_MODELS)[number];
  @IsOptional() @IsObject() calculationParams?: Record<string, unknown>;
  @IsOptional() @IsString() @IsAssetIdOrEmpty() idCategory?: string;
  @IsOptional() @IsIn(ASSET_STATUSES) status?: AssetStatus;
}

export const AI_NODE_SETTING_KIND: AssetKindDescriptor = {
  kind: 'ainodesetting',
  eventPrefix: 'AINodeSetting',
  idField: 'idAINodeSetting',
  idsParam: 'idAINodeSettings',
  nameField: 'aiNodeSettingName',
  recordDto: AINodeSettingDto,
  paths: ['/ainodesetting'],
  operations: ['findById', 'findByIds', 'create', 'update', 'delete'],
  list: { statusRequired: true, defaultStatus: 'all', filters: [] },
  findByStatusFilters: [],
  isParent: false,
  upsert: true,
};
