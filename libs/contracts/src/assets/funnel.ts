import { Type } from 'class-transformer';
import { IsArray, IsBoolean, IsIn, IsInt, IsObject, IsOptional, IsString, Length, Matches, Max, MaxLength, Min, ValidateNested } from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';
import { AssetKindDescriptor } from './asset-kind';
import { FUNNEL_CONNECTIONS_SCHEMA, FUNNEL_COST_OVERRIDES_SCHEMA, FUNNEL_GRAPH_SCHEMAS, FUNNEL_NODES_SCHEMA } from './funnel-graph';
import { DECIMAL_OR_EMPTY, DECIMAL_OR_EMPTY_MESSAGE, IsStringMap } from './common-fields';
import { IsAssetId } from './id-validators';
import { OpaqueJson } from '../validation';
import { ASSET_STATUSES, AssetStatus, NAME_MAX, NAME_MIN } from './requests';
import { POSTBACK_CODE_MAX, POSTBACK_TYPES } from './traffic-source';
import { SimulateFunnelRequestDto } from './funnel-simulate';
import { SIMULATE_ANSWER_EXAMPLE, SIMULATE_ANSWER_SCHEMA, SIMULATE_BODY_EXAMPLE } from './funnel-simulate-docs';

export const FUNNEL_TYPES = ['visual', 'flow'] as const;
export const CANVAS_MIN = 100;
export const CANVAS_MAX = 100_000;

/** A traffic source's postback for this funnel's conversions, in place of the source's own. */
export class PostbackOverrideDto {
  @IsString() @IsAssetId() idTrafficSource!: string;
  @IsIn(POSTBACK_TYPES) postbackType!: (typeof POSTBACK_TYPES)[number];
  @IsOptional() @IsString() @MaxLength(POSTBACK_CODE_MAX) postbackCode = '';
}

/**
 * Funnel: a graph of `nodes` joined by `connections` in a funnel group. The top-level fields are
 * checked here; nodes, connections and the overrides' keys by the domain's funnel rules
 * (checkFunnelGraph, a 400 FUNNEL.INVALID), whose rule tables (./funnel-graph) the API document's
 * schemas of nodes and connections are built from. `ipAnonymizer` absent means the account default and
 * stays absent (it is not false). `idCampaign` is accepted for `idFunnelGroup` on writes.
 */
export class FunnelDto {
  @IsString() @IsAssetId() idFunnel!: string;
  @IsString() @IsAssetId() idFunnelGroup!: string;
  @IsString() @Length(NAME_MIN, NAME_MAX) funnelName!: string;
  @IsOptional() @IsIn(FUNNEL_TYPES) funnelType: (typeof FUNNEL_TYPES)[number] = 'visual';
  @IsOptional() @IsInt() @Min(CANVAS_MIN) @Max(CANVAS_MAX) canvasWidth = 1000;
  @IsOptional() @IsInt() @Min(CANVAS_MIN) @Max(CANVAS_MAX) canvasHeight = 800;
  @IsOptional() @IsStringMap() trackingUrlParams: Record<string, string> = {};
  @IsOptional() @IsObject() @JSONSchema(FUNNEL_COST_OVERRIDES_SCHEMA) incomingTrafficCostOverrides: Record<string, string> = {};
  @IsOptional() @IsArray() @ValidateNested({ each: true }) @Type(() => PostbackOverrideDto) postbackOverrides: PostbackOverrideDto[] = [];
  @IsOptional() @IsBoolean() ipAnonymizer?: boolean;
  @IsOptional() @IsString() @Matches(DECIMAL_OR_EMPTY, { message: DECIMAL_OR_EMPTY_MESSAGE }) defaultCost = '';
  @IsOptional() @IsArray() @OpaqueJson() @JSONSchema(FUNNEL_NODES_SCHEMA) nodes: unknown[] = [];
  @IsOptional() @IsArray() @OpaqueJson() @JSONSchema(FUNNEL_CONNECTIONS_SCHEMA) connections: unknown[] = [];
  @IsOptional() @IsIn(ASSET_STATUSES) status?: AssetStatus;
  @IsOptional() @IsObject() meta?: Record<string, unknown>;
}

const FUNNEL_TYPE_FILTER = { param: 'funnelType', field: 'funnelType', required: false, allowed: FUNNEL_TYPES };
const FUNNEL_GROUP_FILTER = { param: 'idFunnelGroup', field: 'idFunnelGroup', required: false };

export const FUNNEL_KIND: AssetKindDescriptor = {
  kind: 'funnel',
  eventPrefix: 'Funnel',
  idField: 'idFunnel',
  idsParam: 'idFunnels',
  nameField: 'funnelName',
  recordDto: FunnelDto,
  paths: ['/funnel'],
  operations: [
    'list',
    'findById',
    'findByIds',
    'findByStatus',
    'findByType',
    'findByCategory',
    'create',
    'update',
    'duplicate',
    'delete',
    'archive',
    'unarchive',
    'move',
    'validate',
    'simulate',
  ],
  list: { statusRequired: true, defaultStatus: 'all', filters: [FUNNEL_TYPE_FILTER, FUNNEL_GROUP_FILTER] },
  findByStatusFilters: [FUNNEL_TYPE_FILTER, FUNNEL_GROUP_FILTER],
  typeFilter: { ...FUNNEL_TYPE_FILTER, required: true },
  isParent: false,
  slimFields: ['funnelName', 'idFunnelGroup'],
  slimJoins: [{ field: 'idFunnelGroup', kind: 'funnelgroup', take: 'funnelGroupName', as: 'funnelGroupName' }],
  parent: { kind: 'funnelgroup', field: 'idFunnelGroup' },
  writeAliases: { idCampaign: 'idFunnelGroup' },
  localKinds: ['pagegroup', 'condition'],
  // A middleware node's destination overrides are write-only like its config's (no flag: the placeholder shows one is stored).
  secretFields: [
    { path: 'nodes[].nodeMiddlewareRefParams.destinationOverrides.basicAuth.password', itemKey: 'idNode' },
    { path: 'nodes[].nodeMiddlewareRefParams.destinationOverrides.hmacSecret', itemKey: 'idNode' },
  ],
  derivedFields: ['funnelGroupName'],
  docs: {
    schemas: FUNNEL_GRAPH_SCHEMAS,
    operations: {
      simulate: {
        summary: 'Walk a funnel for a visitor, step by step, without recording or sending anything',
        description:
          'Each request of `steps` (an entrance, then actions) is walked by the routing engine with the session carried over: the nodes visited and why, ' +
          'the hits it would record, the URL reached, the session after it, the effects (webhook dispatches, middleware calls, tags, conversions) and warnings. ' +
          'Nothing is recorded and nothing is sent, except to a middleware destination given `"call"`. An unsaved `funnel` is checked as validate/ checks it ' +
          '(a 400 with the same problems, their fields under `funnel.`). Assets are named by id and name.',
        body: SimulateFunnelRequestDto,
        answer: SIMULATE_ANSWER_SCHEMA,
        bodyExample: SIMULATE_BODY_EXAMPLE,
        answerExample: SIMULATE_ANSWER_EXAMPLE,
      },
    },
  },
};
