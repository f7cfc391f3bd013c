import { Type } from 'class-transformer';
import { ArrayMinSize, IsArray, IsIn, IsObject, IsOptional, IsString, Length, ValidateIf } from 'class-validator';
import { IsAssetId, IsAssetIdOrEmpty } from './id-validators';

/** Asset status filter of list and find/byStatus queries. */
export const STATUS_FILTERS = ['active', 'archived', 'not-deleted', 'all'] as const;
export type StatusFilter = (typeof STATUS_FILTERS)[number];
export const ASSET_STATUSES = ['active', 'archived', 'deleted'] as const;
export type AssetStatus = (typeof ASSET_STATUSES)[number];
export const NAME_MIN = 1;
export const NAME_MAX = 256;

export class StringListDto {
  @IsArray()
  @IsAssetId({ each: true })
  entries!: string[];
}

export class MoveCategoryRequestDto {
  @IsArray()
  @IsAssetId({ each: true })
  entries!: string[];

  @IsString()
  @IsAssetIdOrEmpty()
  idCategory!: string;
}

export class DuplicateRequestDto {
  @IsString()
  @Length(NAME_MIN, NAME_MAX)
  name!: string;

  @IsOptional()
  @IsString()
  @IsAssetIdOrEmpty()
  parentId?: string;

  @IsOptional()
  @IsObject()
  bodyUpdates?: Record<string, unknown>;
}

export const CASCADE_ACTIONS = ['cascade', 'move', 'orphan'] as const;
export type CascadeAction = (typeof CASCADE_ACTIONS)[number];

export class ParentMutationRequestDto {
  @IsArray()
  @ArrayMinSize(1)
  @IsAssetId({ each: true })
  entries!: string[];

  @IsOptional()
  @IsIn(CASCADE_ACTIONS)
  cascadeAction?: CascadeAction;

  @ValidateIf((o: ParentMutationRequestDto) => o.targetParentID !== undefined)
  @IsString()
  @IsAssetId()
  targetParentID?: string;
}

export { Type };
