// The rule tables of a funnel's graph (nodes joined by connections): the domain's checkFunnelGraph
// applies them, and the API document's node and connection schemas are built from them here, so the
// two cannot drift apart. A node's params object is named after its type (`node<Kind>Params`), a
// connection's after its source node's type (`connection<Kind>Params`).
import { ID_PATTERN } from '../ids';
import { DECIMAL_TEXT } from './common-fields';
import type { JsonSchema } from './asset-kind';
import { ROUTE_KEY_PATTERN, schemaRef } from './routing-keys';
import { SECRET_PLACEHOLDER } from './secret-value';

export const FUNNEL_NODE_TYPES = [
  'root',
  'rotator',
  'landerGroup',
  'offerGroup',
  'externalUrl',
  'condition',
  'logic',
  'visitorTag',
  'middleware',
  'webhook',
  'ai',
] as const;
export type FunnelNodeType = (typeof FUNNEL_NODE_TYPES)[number];

export const ROTATOR_TYPES = ['random', 'session'] as const;
export type RotatorType = (typeof ROTATOR_TYPES)[number];

/** The params field of each node type, and whether a node of the type must have it. */
export const NODE_PARAMS: Readonly<Record<FunnelNodeType, { field: string; required: boolean }>> = {
  root: { field: 'nodeRotatorParams', required: false },
  rotator: { field: 'nodeRotatorParams', required: true },
  landerGroup: { field: 'nodePageGroupParams', required: true },
  offerGroup: { field: 'nodePageGroupParams', required: true },
  externalUrl: { field: 'nodeExternalUrlParams', required: true },
  condition: { field: 'nodeConditionParams', required: true },
  logic: { field: 'nodeLogicParams', required: true },
  visitorTag: { field: 'nodeVisitorTagParams', required: true },
  middleware: { field: 'nodeMiddlewareRefParams', required: true },
  webhook: { field: 'nodeWebhookParams', required: true },
  ai: { field: 'nodeAiParams', required: true },
};

/** Every node params field name. */
export const NODE_PARAMS_FIELDS: readonly string[] = [...new Set(Object.values(NODE_PARAMS).map(({ field }) => field))];

/**
 * What the connections out of a node of each type carry: `params` (the one params field they must
 * have; none: they carry no params) and `maxOutgoing` (absent: any number).
 */
export const OUTGOING: Readonly<Record<FunnelNodeType, { params?: string; maxOutgoing?: number }>> = {
  root: { params: 'connectionRotatorParams' },
  rotator: { params: 'connectionRotatorParams' },
  landerGroup: { params: 'connectionPageParams' },
  offerGroup: { params: 'connectionPageParams' },
  externalUrl: { maxOutgoing: 0 },
  condition: { params: 'connectionLogicParams' },
  logic: { params: 'connectionLogicParams' },
  visitorTag: { maxOutgoing: 1 },
  middleware: { params: 'connectionMiddlewareParams' },
  webhook: { maxOutgoing: 1 },
  ai: { params: 'connectionLogicParams' },
};

/** Every connection params field name. */
export const CONNECTION_PARAMS_FIELDS: readonly string[] = [
  'connectionRotatorParams',
  'connectionPageParams',
  'connectionLogicParams',
  'connectionMiddlewareParams',
];

/** A field of a node's params that names an asset: the asset's kind, and whether the field is a list of ids. */
export interface NodeReferenceField {
  key: string;
  kind: string;
  list?: boolean;
  /** Page groups and conditions may be local to a funnel: a funnel names only global ones and its own. */
  funnelLocal?: boolean;
}

/** The assets each node type names, in its params object (NODE_PARAMS). */
export const NODE_REFERENCE_FIELDS: Readonly<Record<FunnelNodeType, readonly NodeReferenceField[]>> = {
  root: [],
  rotator: [],
  landerGroup: [{ key: 'idPageGroup', kind: 'pagegroup', funnelLocal: true }],
  offerGroup: [{ key: 'idPageGroup', kind: 'pagegroup', funnelLocal: true }],
  externalUrl: [],
  condition: [{ key: 'idCondition', kind: 'condition', funnelLocal: true }],
  logic: [{ key: 'idLogicScript', kind: 'logicscript' }],
  visitorTag: [{ key: 'idTags', kind: 'visitortag', list: true }],
  middleware: [{ key: 'idMiddlewareConfig', kind: 'middlewareconfig' }],
  webhook: [{ key: 'idWebhookConfig', kind: 'webhookconfig' }],
  ai: [{ key: 'idAINodeSetting', kind: 'ainodesetting' }],
};

export const FUNNEL_LIMITS = Object.freeze({
  maxNodes: 500,
  maxConnections: 2000,
  minNameLength: 1,
  maxNameLength: 256,
  minActionNumber: 1,
  maxActionNumber: 64,
  maxRouteKeysPerConnection: 64,
  maxTagsPerNode: 50,
  maxAdditionalTokens: 50,
  maxTokenValueLength: 1024,
  maxUrlLength: 4096,
  maxOverrideHeaders: 50,
  maxHeaderValueLength: 1024,
  maxBasicAuthFieldLength: 256,
  minHmacSecretLength: 16,
  maxHmacSecretLength: 256,
  /** Entries of incomingTrafficCostOverrides, and of postbackOverrides: each is a reference to check. */
  maxTrafficSourceOverrides: 1000,
  /** Most problems (errors, or warnings) reported for one funnel; the rest are counted in one last problem. */
  maxProblems: 20,
  /** Rotator weights of a node summing to 1 within this are taken as 1. */
  weightSumTolerance: 1e-6,
});

/** A token a page-group node adds to its pages' URLs: the `{key}` a URL names. */
export const TOKEN_KEY = /^[A-Za-z0-9_.-]{1,64}$/;
/** A basic-auth user id: no colon (RFC 7617) and no control characters. */
export const BASIC_AUTH_USER = /^[^:\p{Cc}]+$/u;
/** What a middleware node may change of its config's destination. */
export const DESTINATION_OVERRIDE_FIELDS = ['headers', 'basicAuth', 'hmacSecret'] as const;

// ---- the API document's schemas of nodes and connections ------------------------------------------

const L = FUNNEL_LIMITS;
const ASSET_ID: JsonSchema = { type: 'string', pattern: ID_PATTERN.source };
const ROUTE_KEY: JsonSchema = { type: 'string', pattern: ROUTE_KEY_PATTERN.source };
const FRACTION: JsonSchema = { type: 'number', minimum: 0, maximum: 1 };
const text = (min: number, max: number): JsonSchema => ({ type: 'string', minLength: min, maxLength: max });
/** A write-only secret as a client may send it: the value, `********` (keep the stored one), `""` or null (remove it); reads show `********`. */
const secret = (min: number, max: number): JsonSchema => ({
  anyOf: [{ type: 'null' }, { type: 'string', enum: ['', SECRET_PLACEHOLDER] }, text(min, max)],
  description: 'write-only: `********` keeps the stored value, `""` or null removes it; read as `********`',
});

/** The fields of each node type's params object, besides the asset ids it names (NODE_REFERENCE_FIELDS). */
const NODE_PARAMS_FIELD_SCHEMAS: Readonly<Record<FunnelNodeType, { properties: Record<string, JsonSchema>; required: string[] }>> = (() => {
  const rotator = { properties: { rotatorType: { type: 'string', enum: [...ROTATOR_TYPES] } }, required: ['rotatorType'] };
  const pageGroup = {
    properties: {
      accumulateUrlParams: { type: 'boolean', description: "whether the visitor's URL parameters are passed on to the pages" },
      additionalTokens: {
        type: 'array',
        maxItems: L.maxAdditionalTokens,
        description: 'tokens added to the URLs of the pages, keys unique',
        items: {
          type: 'object',
          required: ['key', 'value'],
          properties: { key: { type: 'string', pattern: TOKEN_KEY.source }, value: text(0, L.maxTokenValueLength) },
        },
      },
    },
    required: [],
  };
  const none = { properties: {}, required: [] };
  return {
    root: rotator,
    rotator,
    landerGroup: pageGroup,
    offerGroup: pageGroup,
    externalUrl: {
      properties: { url: { ...text(1, L.maxUrlLength), description: 'an absolute http(s) URL; `{tokens}` in its query only' } },
      required: ['url'],
    },
    condition: none,
    logic: none,
    visitorTag: none,
    middleware: {
      properties: {
        destinationOverrides: {
          type: 'object',
          description: "what the node changes of its middleware config's destination",
          properties: {
            headers: {
              type: 'object',
              maxProperties: L.maxOverrideHeaders,
              propertyNames: { minLength: 1, description: 'an HTTP header name' },
              additionalProperties: { ...text(0, L.maxHeaderValueLength), description: 'no line breaks or control characters' },
            },
            basicAuth: {
              anyOf: [
                { type: 'null' },
                {
                  type: 'object',
                  required: ['username'],
                  properties: {
                    username: { ...text(1, L.maxBasicAuthFieldLength), pattern: '^[^:\\p{Cc}]+$' },
                    password: secret(1, L.maxBasicAuthFieldLength),
                  },
                },
              ],
            },
            hmacSecret: secret(L.minHmacSecretLength, L.maxHmacSecretLength),
          },
          additionalProperties: false,
        },
      },
      required: [],
    },
    webhook: none,
    ai: none,
  };
})();

/** The component name of a node type's schema: `FunnelNodeRoot`, `FunnelNodePageGroup` (lander and offer groups share one). */
function nodeSchemaName(type: FunnelNodeType): string {
  const field = NODE_PARAMS[type].field;
  const shared = FUNNEL_NODE_TYPES.filter((other) => NODE_PARAMS[other].field === field && NODE_PARAMS[other].required === NODE_PARAMS[type].required);
  const name = shared.length > 1 ? field.replace(/^node|Params$/g, '') : type;
  return `FunnelNode${name[0].toUpperCase()}${name.slice(1)}`;
}

function nodeSchema(types: FunnelNodeType[]): JsonSchema {
  const type = types[0];
  const { field, required } = NODE_PARAMS[type];
  const own = NODE_PARAMS_FIELD_SCHEMAS[type];
  const references = NODE_REFERENCE_FIELDS[type];
  const params: JsonSchema = {
    type: 'object',
    required: [...references.map(({ key }) => key), ...own.required],
    properties: {
      ...Object.fromEntries(
        references.map(({ key, kind, list }) => [
          key,
          list
            ? { type: 'array', items: { ...ASSET_ID, description: `a ${kind} id` }, minItems: 1, maxItems: L.maxTagsPerNode, uniqueItems: true }
            : { ...ASSET_ID, description: `the ${kind} the node uses` },
        ]),
      ),
      ...own.properties,
    },
  };
  const others = NODE_PARAMS_FIELDS.filter((other) => other !== field);
  return {
    title: `${types.join(' or ')} node`,
    type: 'object',
    required: ['idNode', 'nodeName', 'nodeType', 'posX', 'posY', ...(required ? [field] : [])],
    properties: {
      idNode: { ...ASSET_ID, description: "unique among the funnel's ids, and no id of an asset the funnel names" },
      nodeName: text(L.minNameLength, L.maxNameLength),
      nodeType: { type: 'string', enum: types },
      posX: { ...FRACTION, description: 'position on the canvas, a fraction of its width' },
      posY: { ...FRACTION, description: 'position on the canvas, a fraction of its height' },
      [field]: params,
      // The params object of its own type only.
      ...Object.fromEntries(others.map((other) => [other, false])),
    },
  };
}

const CONNECTION_PARAMS_SCHEMAS: Readonly<Record<string, JsonSchema>> = {
  connectionRotatorParams: {
    type: 'object',
    required: ['weight'],
    properties: { weight: { ...FRACTION, description: "the share of visitors; a node's weights should sum to 1" } },
  },
  connectionPageParams: {
    type: 'object',
    required: ['onActionNumber'],
    properties: {
      onActionNumber: { type: 'integer', minimum: L.minActionNumber, maximum: L.maxActionNumber, description: 'one connection per action number of a node' },
      isConversion: { type: 'boolean', description: 'from offer groups only: the action is a conversion' },
    },
  },
  connectionLogicParams: {
    type: 'object',
    required: ['onRouteKeys'],
    properties: {
      onRouteKeys: {
        type: 'array',
        items: ROUTE_KEY,
        minItems: 1,
        maxItems: L.maxRouteKeysPerConnection,
        uniqueItems: true,
        description: 'route keys of the source node (`default`: its fallback), each taken by one connection of the node',
      },
    },
  },
  connectionMiddlewareParams: {
    type: 'object',
    required: ['onRouteId'],
    properties: { onRouteId: { ...ROUTE_KEY, description: 'a route of the middleware, taken by one connection of the node' } },
  },
};

/** The types of node whose outgoing connections carry each params field. */
const SOURCES_OF: Readonly<Record<string, FunnelNodeType[]>> = Object.fromEntries(
  CONNECTION_PARAMS_FIELDS.map((field) => [field, FUNNEL_NODE_TYPES.filter((type) => OUTGOING[type].params === field)]),
);

/** Named schemas of the funnel graph (API document components): one per node type, their union, and the connection. */
export const FUNNEL_GRAPH_SCHEMAS: Readonly<Record<string, JsonSchema>> = (() => {
  const byName = new Map<string, FunnelNodeType[]>();
  for (const type of FUNNEL_NODE_TYPES) byName.set(nodeSchemaName(type), [...(byName.get(nodeSchemaName(type)) ?? []), type]);
  const schemas: Record<string, JsonSchema> = {};
  for (const [name, types] of byName) schemas[name] = nodeSchema(types);
  schemas.FunnelNode = {
    description: 'A node of the graph: its params object is the one of its `nodeType`.',
    oneOf: [...byName.keys()].map(schemaRef),
    discriminator: {
      propertyName: 'nodeType',
      mapping: Object.fromEntries(FUNNEL_NODE_TYPES.map((type) => [type, schemaRef(nodeSchemaName(type)).$ref])),
    },
  };
  schemas.FunnelConnection = {
    description:
      "A connection between two different nodes of the funnel, never into the root. It carries the params object of its source node's type: " +
      Object.entries(SOURCES_OF)
        .map(([field, types]) => `\`${field}\` from ${types.join(', ')}`)
        .join('; ') +
      `; none from ${FUNNEL_NODE_TYPES.filter((type) => !OUTGOING[type].params).join(', ')}.`,
    type: 'object',
    required: ['idConnection', 'idSourceNode', 'idTargetNode'],
    properties: {
      idConnection: { ...ASSET_ID, description: "unique among the funnel's ids" },
      idSourceNode: { type: 'string', description: 'the idNode of a node of the funnel' },
      idTargetNode: { type: 'string', description: 'the idNode of another node of the funnel, not the root' },
      ...CONNECTION_PARAMS_SCHEMAS,
    },
    // At most one params object: the one of the source node's type.
    dependentSchemas: Object.fromEntries(
      CONNECTION_PARAMS_FIELDS.map((field) => [
        field,
        { properties: Object.fromEntries(CONNECTION_PARAMS_FIELDS.filter((other) => other !== field).map((other) => [other, false])) },
      ]),
    ),
  };
  return schemas;
})();

/** The `nodes` and `connections` fields of a funnel, as the API document shows them. */
export const FUNNEL_NODES_SCHEMA: JsonSchema = {
  type: 'array',
  maxItems: L.maxNodes,
  items: schemaRef('FunnelNode'),
  description: 'exactly one root when there are nodes',
};
export const FUNNEL_CONNECTIONS_SCHEMA: JsonSchema = { type: 'array', maxItems: L.maxConnections, items: schemaRef('FunnelConnection') };

/** A funnel's `incomingTrafficCostOverrides`: traffic source id to cost (decimal text). */
export const FUNNEL_COST_OVERRIDES_SCHEMA: JsonSchema = {
  type: 'object',
  maxProperties: L.maxTrafficSourceOverrides,
  propertyNames: { pattern: ID_PATTERN.source, description: 'a traffic source id' },
  additionalProperties: { type: 'string', pattern: DECIMAL_TEXT.source, description: 'the cost of an entrance from it, a decimal >= 0 as text' },
};
