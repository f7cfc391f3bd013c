import { ArrayMaxSize, ArrayNotEmpty, IsArray, IsBoolean, IsIn, IsOptional, IsString, Length, Matches } from 'class-validator';
import { PERMISSIONS } from './permissions';

/** An API key's id: 24 hexadecimal characters. */
export const API_KEY_ID_PATTERN = /^[0-9a-f]{24}$/;

const PERMISSION_RULE = { each: true, message: `each permission must be one of: ${PERMISSIONS.join(', ')}` };
const NAME_RULE = { message: 'name must not be blank' };
const ID_RULE = { message: 'an API key id is 24 hexadecimal characters (the id of a key list entry)' };

/** POST /v1/apikeys/generate/ */
export class GenerateApiKeyDto {
  @IsString()
  @Length(1, 256)
  @Matches(/\S/, NAME_RULE)
  name!: string;

  @IsArray()
  @ArrayMaxSize(64)
  @IsString({ each: true })
  @IsIn(PERMISSIONS, PERMISSION_RULE)
  permissions!: string[];
}

/** PUT /v1/apikeys/update/: whatever is given changes; what is left out stays. */
export class UpdateApiKeyDto {
  @IsString()
  @Matches(API_KEY_ID_PATTERN, ID_RULE)
  id!: string;

  @IsOptional()
  @IsString()
  @Length(1, 256)
  @Matches(/\S/, NAME_RULE)
  name?: string;

  @IsOptional()
  @IsArray()
  @ArrayMaxSize(64)
  @IsString({ each: true })
  @IsIn(PERMISSIONS, PERMISSION_RULE)
  permissions?: string[];

  @IsOptional()
  @IsBoolean()
  enabled?: boolean;
}

/** DELETE /v1/apikeys/delete/ */
export class DeleteApiKeysDto {
  @IsArray()
  @ArrayNotEmpty()
  @ArrayMaxSize(1000)
  @IsString({ each: true })
  @Matches(API_KEY_ID_PATTERN, { ...ID_RULE, each: true })
  entries!: string[];
}
