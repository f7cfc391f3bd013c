import { IsIn, IsObject, IsOptional, IsString, MaxLength } from 'class-validator';
import { IsAssetIdOrEmpty } from './id-validators';
import { ASSET_STATUSES, AssetStatus, NAME_MAX } from './requests';

/**
 * Fields every category-managed kind shares: `status`, the category placement (`categoryName` is
 * derived from the category on reads; a value sent in is ignored) and `meta`, the object reserved
 * for the UI (clients must not keep data there; the UI may overwrite it).
 */
export abstract class PlacedAssetDto {
  @IsOptional() @IsIn(ASSET_STATUSES) status?: AssetStatus;
  @IsOptional() @IsString() @IsAssetIdOrEmpty() idCategory?: string;
  @IsOptional() @IsString() @MaxLength(NAME_MAX) categoryName?: string;
  @IsOptional() @IsObject() meta?: Record<string, unknown>;
}

/** Decimal text: digits with up to 6 decimals (`12`, `0.25`), never negative. */
export const DECIMAL_TEXT = /^\d{1,12}(\.\d{1,6})?$/;
