import { IsIn, IsObject, IsOptional, IsString, MaxLength, ValidationArguments, registerDecorator } from 'class-validator';
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

/** Limits of a string-to-string parameter map (a funnel group's or funnel's trackingUrlParams). */
export const STRING_MAP_LIMITS = Object.freeze({ maxEntries: 50, maxKeyLength: 256, maxValueLength: 1024 });

const isStringMap = (value: unknown, maxEntries: number) => {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const entries = Object.entries(value);
  return (
    entries.length <= maxEntries &&
    entries.every(
      ([key, v]) => key.length >= 1 && key.length <= STRING_MAP_LIMITS.maxKeyLength && typeof v === 'string' && v.length <= STRING_MAP_LIMITS.maxValueLength,
    )
  );
};

/** An object of strings: at most `maxEntries` entries, keys 1..256 and values up to 1024 characters. */
export function IsStringMap(maxEntries: number = STRING_MAP_LIMITS.maxEntries): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'isStringMap',
      target: target.constructor,
      propertyName: propertyName as string,
      options: {
        message: ({ property }: ValidationArguments) =>
          `${property} must be an object of at most ${maxEntries} entries, each a name of 1..${STRING_MAP_LIMITS.maxKeyLength} characters with a text value of up to ${STRING_MAP_LIMITS.maxValueLength}`,
      },
      validator: { validate: (value: unknown) => isStringMap(value, maxEntries) },
    });
}

/** Decimal text >= 0 or "" (a default cost). */
export const DECIMAL_OR_EMPTY = new RegExp(`^$|${DECIMAL_TEXT.source}`);
export const DECIMAL_OR_EMPTY_MESSAGE = '$property must be a decimal >= 0 with up to 6 decimals, or ""';
