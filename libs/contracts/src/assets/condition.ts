import { VISITOR_CONTEXT_SCHEMA } from '../scripts/docs';
import { IsArray, IsOptional, IsString, Length } from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';
import { AssetKindDescriptor, COMMON_ASSET_OPERATIONS } from './asset-kind';
import { CONDITION_ROUTES_SCHEMA, CONDITION_ROUTE_SCHEMAS } from './condition-routes';
import { PlacedAssetDto } from './common-fields';
import { IsAssetId, IsAssetIdOrEmpty } from './id-validators';
import { NAME_MAX, NAME_MIN } from './requests';

/**
 * Condition: routes tried in order, each with rule groups (OR) of rules (AND); the first route that
 * matches wins, else `default`. The shape of `routes` is checked by the domain's condition rules,
 * whose rule tables (./condition-routes) the API document's route schema is built from.
 */
export class ConditionDto extends PlacedAssetDto {
  @IsString() @IsAssetId() idCondition!: string;
  @IsString() @Length(NAME_MIN, NAME_MAX) conditionName!: string;
  @IsOptional() @IsString() @IsAssetIdOrEmpty() restrictToFunnelId = '';
  @IsArray() @JSONSchema(CONDITION_ROUTES_SCHEMA) routes!: unknown[];
}

export const CONDITION_KIND: AssetKindDescriptor = {
  kind: 'condition',
  eventPrefix: 'Condition',
  idField: 'idCondition',
  idsParam: 'idConditions',
  nameField: 'conditionName',
  recordDto: ConditionDto,
  paths: ['/condition'],
  operations: [...COMMON_ASSET_OPERATIONS, 'evaluate'],
  categoryType: 'condition',
  scopeField: 'restrictToFunnelId',
  list: { statusRequired: true, defaultStatus: 'all', filters: [{ param: 'idCategory', field: 'idCategory', required: false }] },
  findByStatusFilters: [],
  isParent: false,
  derivedFields: ['categoryName'],
  immutableFields: ['restrictToFunnelId'],
  slimFields: ['conditionName', 'restrictToFunnelId'],
  docs: {
    schemas: CONDITION_ROUTE_SCHEMAS,
    slim: { routeKeys: { type: 'array', items: { type: 'string' }, description: 'the route ids, then `default`' } },
    operations: {
      evaluate: {
        body: {
          description: '`idCondition` (a saved condition) or `condition` (a draft), with the visitor context of /logicscripts/evaluate',
          type: 'object',
          allOf: [VISITOR_CONTEXT_SCHEMA],
          properties: {
            idCondition: { type: 'string' },
            condition: {
              type: 'object',
              required: ['routes'],
              properties: { routes: CONDITION_ROUTES_SCHEMA },
              description: 'a draft: a condition record whose id and name may be left out',
            },
          },
        },
        answer: {
          type: 'object',
          required: ['routeKey', 'matchedRoute', 'reason'],
          additionalProperties: false,
          properties: {
            routeKey: { type: 'string' },
            matchedRoute: {
              oneOf: [
                { type: 'null' },
                { type: 'object', required: ['idRoute', 'routeName'], properties: { idRoute: { type: 'string' }, routeName: { type: 'string' } } },
              ],
            },
            reason: { type: 'string' },
          },
        },
      },
    },
  },
};
