import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { FUNNEL_CONNECTIONS_SCHEMA, FUNNEL_COST_OVERRIDES_SCHEMA, FUNNEL_GRAPH_SCHEMAS, FUNNEL_NODES_SCHEMA, SCHEMA_REF_PREFIX } from '@funnel/contracts';
import fc from 'fast-check';
import { checkFunnelGraph } from './funnel-graph';
import { drawFunnel, validFunnel } from './funnel.fixtures';

// The API document's node and connection schemas are built from the rule tables checkFunnelGraph
// applies: every funnel the rules accept matches them, and a field the rules refuse for its shape
// does not. (Rules across nodes, such as unique ids or one root, are the rules' alone.)
const ajv = new Ajv2020({ strict: true, allErrors: true, allowUnionTypes: true });
addFormats(ajv);
ajv.addVocabulary(['discriminator', 'components']); // OpenAPI's: an annotation (which oneOf branch a nodeType picks), the named schemas
ajv.addSchema({ $id: 'doc', components: { schemas: FUNNEL_GRAPH_SCHEMAS } });
const graphSchema = ajv.compile({
  $id: 'graph',
  type: 'object',
  properties: {
    nodes: { ...FUNNEL_NODES_SCHEMA, items: { $ref: `doc${SCHEMA_REF_PREFIX}FunnelNode` } },
    connections: { ...FUNNEL_CONNECTIONS_SCHEMA, items: { $ref: `doc${SCHEMA_REF_PREFIX}FunnelConnection` } },
    incomingTrafficCostOverrides: FUNNEL_COST_OVERRIDES_SCHEMA,
  },
});
const schemaErrors = (funnel: unknown) => (graphSchema(funnel) ? [] : (graphSchema.errors ?? []).map((e) => `${e.instancePath} ${e.message}`));

type Funnel = ReturnType<typeof validFunnel> & Record<string, any>;
const withNode = (index: number, change: (node: Record<string, any>) => void) => (funnel: Funnel) => change(funnel.nodes[index] as Record<string, any>);
const withConnection = (index: number, change: (connection: Record<string, any>) => void) => (funnel: Funnel) =>
  change(funnel.connections[index] as Record<string, any>);

/** Shape problems of one node or connection of the valid funnel (nodes: Root, Split, Landers, Device, Offers, Exit, Script, Tag, Enrich, Notify, Ai). */
const BROKEN: Record<string, (funnel: Funnel) => void> = {
  'a node without a name': withNode(0, (n) => delete n.nodeName),
  'a node name of 257 characters': withNode(0, (n) => (n.nodeName = 'x'.repeat(257))),
  'an unknown node type': withNode(1, (n) => (n.nodeType = 'splitter')),
  'posX above 1': withNode(1, (n) => (n.posX = 1.5)),
  'a node id that is no asset id': withNode(1, (n) => (n.idNode = 'n1')),
  'a rotator without its params': withNode(1, (n) => delete n.nodeRotatorParams),
  'an unknown rotator type': withNode(1, (n) => (n.nodeRotatorParams.rotatorType = 'sticky')),
  "another type's params": withNode(1, (n) => (n.nodeLogicParams = { idLogicScript: n.idNode })),
  'a page-group node without a page group': withNode(2, (n) => delete n.nodePageGroupParams.idPageGroup),
  'a token key with a space': withNode(2, (n) => (n.nodePageGroupParams.additionalTokens = [{ key: 'a b', value: '' }])),
  'accumulateUrlParams as text': withNode(2, (n) => (n.nodePageGroupParams.accumulateUrlParams = 'yes')),
  'a condition id that is no asset id': withNode(3, (n) => (n.nodeConditionParams.idCondition = 'c')),
  'an empty URL': withNode(5, (n) => (n.nodeExternalUrlParams.url = '')),
  'no tags on a visitorTag node': withNode(7, (n) => (n.nodeVisitorTagParams.idTags = [])),
  'a tag twice': withNode(7, (n) => n.nodeVisitorTagParams.idTags.push(n.nodeVisitorTagParams.idTags[0])),
  'an override of a field that cannot be overridden': withNode(8, (n) => (n.nodeMiddlewareRefParams.destinationOverrides.url = 'https://x.example')),
  'an HMAC secret of 5 characters': withNode(8, (n) => (n.nodeMiddlewareRefParams.destinationOverrides.hmacSecret = 'short')),
  'a basic-auth user with a colon': withNode(8, (n) => (n.nodeMiddlewareRefParams.destinationOverrides.basicAuth.username = 'a:b')),
  'a weight above 1': withConnection(0, (c) => (c.connectionRotatorParams.weight = 2)),
  'a connection without its target': withConnection(0, (c) => delete c.idTargetNode),
  'two params objects on a connection': withConnection(0, (c) => (c.connectionPageParams = { onActionNumber: 1 })),
  'action number 65': withConnection(3, (c) => (c.connectionPageParams.onActionNumber = 65)),
  'action number 1.5': withConnection(3, (c) => (c.connectionPageParams.onActionNumber = 1.5)),
  'no route keys': withConnection(5, (c) => (c.connectionLogicParams.onRouteKeys = [])),
  'a route key in upper case': withConnection(5, (c) => (c.connectionLogicParams.onRouteKeys = ['Mobile'])),
  'a cost override that is not decimal text': (f) => (f.incomingTrafficCostOverrides = { [Object.keys(f.incomingTrafficCostOverrides!)[0]]: 'free' }),
};

describe("the API document's funnel node and connection schemas", () => {
  it('match every funnel the graph rules accept, with one node of every type', () => {
    const funnel = validFunnel();
    expect(checkFunnelGraph(funnel)).toEqual([]);
    expect(schemaErrors(funnel)).toEqual([]);
    fc.assert(
      fc.property(fc.gen(), (g) => {
        const drawn = drawFunnel(g);
        expect(checkFunnelGraph(drawn)).toEqual([]);
        expect(schemaErrors(drawn)).toEqual([]);
      }),
      { numRuns: 200 },
    );
  });

  it.each(Object.entries(BROKEN))('refuse what the graph rules refuse: %s', (_name, breakIt) => {
    const funnel = structuredClone(validFunnel()) as Funnel;
    breakIt(funnel);
    expect(checkFunnelGraph(funnel)).not.toEqual([]);
    expect(schemaErrors(funnel)).not.toEqual([]);
  });
});
