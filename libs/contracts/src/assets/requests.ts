import { Type } from 'class-transformer';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsIn, IsObject, IsOptional, IsString, Length, ValidateIf } from 'class-validator';
import { IsAssetId, IsAssetIdOrEmpty } from './id-validators';

/** Asset status filter of list and find/byStatus queries. */
export const STATUS_FILTERS = ['active', 'archived', 'not-deleted', 'all'] as const;
export type StatusFilter = (typeof STATUS_FILTERS)[number];
export const ASSET_STATUSES = ['active', 'archived', 'deleted'] as const;
export type AssetStatus = (typeof ASSET_STATUSES)[number];
export const NAME_MIN = 1;
export const NAME_MAX = 256;
/** Most ids one bulk request (`entries`) or one `find/byIds` may name. */
export const MAX_BULK_IDS = 1000;

export class StringListDto {
  @IsArray()
  @ArrayMaxSize(MAX_BULK_IDS, { message: `entries may list at most ${MAX_BULK_IDS} ids` })
  @IsAssetId({ each: true })
  entries!: string[];
}

export class MoveCategoryRequestDto {
  @IsArray()
  @ArrayMaxSize(MAX_BULK_IDS, { message: `entries may list at most ${MAX_BULK_IDS} ids` })
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
  @ArrayMaxSize(MAX_BULK_IDS, { message: `entries may list at most ${MAX_BULK_IDS} ids` })
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
