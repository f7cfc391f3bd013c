import { IsOptional, IsString, Length, Matches, MaxLength } from 'class-validator';
import { AssetKindDescriptor, COMMON_ASSET_OPERATIONS } from './asset-kind';
import { PlacedAssetDto } from './common-fields';
import { IsAssetId } from './id-validators';
import { NAME_MAX, NAME_MIN } from './requests';

export const LOGIC_SCRIPT_DESCRIPTION_MAX = 4096;

/**
 * LogicScript: a routing script (Go statements) for funnel logic nodes. The code is checked by the
 * routing-script validator in the domain's logic-script rules (its size too: at most 10,240 bytes),
 * which also set `codeHash` and `routeKeys`; values sent for those are ignored.
 */
export class LogicScriptDto extends PlacedAssetDto {
  @IsString() @IsAssetId() idLogicScript!: string;
  @IsString() @Length(NAME_MIN, NAME_MAX) @Matches(/\S/, { message: 'logicScriptName must not be blank' }) logicScriptName!: string;
  @IsOptional() @IsString() @MaxLength(LOGIC_SCRIPT_DESCRIPTION_MAX) description = '';
  @IsString() code!: string;
}

export const LOGIC_SCRIPT_KIND: AssetKindDescriptor = {
  kind: 'logicscript',
  eventPrefix: 'LogicScript',
  idField: 'idLogicScript',
  idsParam: 'idLogicScripts',
  nameField: 'logicScriptName',
  recordDto: LogicScriptDto,
  paths: ['/logicscript'],
  operations: [...COMMON_ASSET_OPERATIONS, 'findByName'],
  categoryType: 'logicscript',
  list: { statusRequired: true, defaultStatus: 'all', filters: [{ param: 'idCategory', field: 'idCategory', required: false }] },
  findByStatusFilters: [],
  isParent: false,
  derivedFields: ['categoryName'],
  slimFields: ['logicScriptName', 'codeHash', 'routeKeys'],
  lookups: { findByName: { param: 'name', field: 'logicScriptName' } },
  duplicateUpdatableFields: ['idCategory', 'categoryName', 'description'],
  docs: {
    fields: {
      codeHash: { type: 'string', description: "SHA-256 hex of the code's UTF-8 bytes (set by the service)" },
      routeKeys: { type: 'array', items: { type: 'string' }, description: 'the route keys the script returns as literals (set by the service)' },
    },
  },
};
