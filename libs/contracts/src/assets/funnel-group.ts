import { IsIn, IsObject, IsOptional, IsString, Length, Matches } from 'class-validator';
import { AssetKindDescriptor } from './asset-kind';
import { DECIMAL_OR_EMPTY, DECIMAL_OR_EMPTY_MESSAGE, IsStringMap } from './common-fields';
import { IsAssetId } from './id-validators';
import { ASSET_STATUSES, AssetStatus, NAME_MAX, NAME_MIN } from './requests';

/**
 * FunnelGroup (legacy: Campaign): holds funnels. `trackingUrlParams` are appended to the tracking
 * URLs of all its funnels unless a funnel overrides them; `defaultCost` is decimal text or "".
 * Not category-managed.
 */
export class FunnelGroupDto {
  @IsString() @IsAssetId() idFunnelGroup!: string;
  @IsString() @Length(NAME_MIN, NAME_MAX) funnelGroupName!: string;
  @IsOptional() @IsStringMap() trackingUrlParams: Record<string, string> = {};
  @IsOptional() @IsString() @Matches(DECIMAL_OR_EMPTY, { message: DECIMAL_OR_EMPTY_MESSAGE }) defaultCost = '';
  @IsOptional() @IsIn(ASSET_STATUSES) status?: AssetStatus;
  @IsOptional() @IsObject() meta?: Record<string, unknown>;
}

/** The legacy names of a funnel group's fields (Campaign, CampaignInfo), on every `/campaign/*` route. */
export const CAMPAIGN_FIELD_NAMES: Readonly<Record<string, string>> = {
  idFunnelGroup: 'idCampaign',
  idFunnelGroups: 'idCampaigns',
  funnelGroupName: 'campaignName',
};

export const FUNNEL_GROUP_KIND: AssetKindDescriptor = {
  kind: 'funnelgroup',
  eventPrefix: 'FunnelGroup',
  idField: 'idFunnelGroup',
  idsParam: 'idFunnelGroups',
  nameField: 'funnelGroupName',
  recordDto: FunnelGroupDto,
  paths: ['/funnelgroup'],
  operations: ['list', 'findById', 'findByIds', 'findByStatus', 'create', 'update', 'duplicate', 'delete', 'archive', 'unarchive'],
  list: { statusRequired: true, defaultStatus: 'all', filters: [] },
  findByStatusFilters: [],
  isParent: true,
  slimFields: ['funnelGroupName'],
  slimChildren: { kind: 'funnel', field: 'idFunnelGroup', as: 'funnels' },
  saveAnswersRecord: true,
  views: [
    {
      paths: ['/campaign'],
      fieldNames: CAMPAIGN_FIELD_NAMES,
      operations: ['list', 'findById', 'findByIds', 'findByStatus', 'create', 'update', 'duplicate', 'delete', 'archive'],
      noAnswer: ['create', 'update'],
      answersOnOwnPaths: ['findByStatus'],
    },
  ],
};
