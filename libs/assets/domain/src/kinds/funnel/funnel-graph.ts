import * as contracts from '@funnel/contracts';
import type { FieldProblem } from '../kind-rules';
import { FieldChecks } from './field-checks';
import { ProblemList, describeType, isPlainObject, plural, withArticle } from './funnel-problems';
import { funnelReferencedIds } from './funnel-references';
import * as tables from './funnel-types';
import type { FunnelNodeType } from './funnel-types';
import { checkNodeParams } from './node-params';

// Bound once: compiled imports read another module's exports through getters (here through the
// re-exports of @funnel/contracts), which every node of a large funnel would otherwise pay for.
const { DECIMAL_TEXT, isValidAssetId } = contracts;
const { CONNECTION_PARAMS_FIELDS, FUNNEL_PROBLEM_CODES: CODES, FUNNEL_NODE_TYPES, FUNNEL_LIMITS: L, NODE_PARAMS, NODE_PARAMS_FIELDS, OUTGOING } = tables;

/** A node of the funnel whose id is valid (the first one with that id). */
interface KnownNode {
  index: number;
  type: FunnelNodeType | undefined;
}

/** What the connections out of one node take so far: route keys, middleware routes, action numbers (value: the connection's path). */
interface Outgoing {
  count: number;
  taken: Map<string, string>;
}

const NODE_PARAMS_FIELD_SET: ReadonlySet<string> = new Set(NODE_PARAMS_FIELDS);
const CONNECTION_PARAMS_FIELD_SET: ReadonlySet<string> = new Set(CONNECTION_PARAMS_FIELDS);

/**
 * Whether `value` sets one of `fields` other than `own`, found through its own few keys rather than by
 * looking each params field up on every node and connection (a fifth less time for a 200-node funnel's check).
 */
function hasOtherField(value: Record<string, unknown>, fields: ReadonlySet<string>, own: string | undefined): boolean {
  for (const key in value) if (key !== own && value[key] !== undefined && fields.has(key)) return true;
  return false;
}

const idNote = (what: 'node' | 'connection', id: unknown) => (isValidAssetId(id) ? ` (${what} ${id})` : '');

/**
 * Every problem that makes a funnel record unfit to store (the save's 400 `details`), each naming its
 * field path (`nodes[3].nodePageGroupParams.idPageGroup`) and, in its message, the node or connection
 * id; at most FUNNEL_LIMITS.maxProblems, then one counting the rest. An empty list: the graph is
 * sound. Whether referenced assets exist, are live, of the right page type and in scope is the
 * reference check's (funnelReferences); what the graph only should have is funnelWarnings'.
 *
 * The rules: at most 500 nodes and 2000 connections; node and connection ids are asset ids, unique
 * among the funnel's ids (its own, its nodes', its connections'), and no node id is an asset id the
 * funnel references; a node has a name (1..256), a known type, posX/posY from 0 to 1, and the params
 * object of its type only (well formed); exactly one root when there are nodes; a connection joins
 * two different nodes of the funnel, never into the root, and carries the params object of its source
 * node's type only: rotator weight 0..1; page action number 1..64, one connection per number, and
 * isConversion only from offer groups; 1..64 route keys (`^[a-z0-9_]{1,64}$`), each taken by one
 * connection of the node; a middleware route id, likewise; a visitorTag or webhook node has one
 * outgoing connection at most, an externalUrl node none. Cost-override keys and postback-override
 * traffic sources are asset ids (each traffic source once), costs decimal text.
 */
export function checkFunnelGraph(record: Readonly<Record<string, unknown>>): FieldProblem[] {
  const problems = new ProblemList();
  const idFunnel = typeof record.idFunnel === 'string' ? record.idFunnel : undefined;
  const nodes = boundedList(problems, 'nodes', record.nodes, L.maxNodes);
  const connections = boundedList(problems, 'connections', record.connections, L.maxConnections);

  const known = checkNodes(problems, nodes ?? [], idFunnel, funnelReferencedIds(record));
  if (nodes && connections) checkConnections(problems, connections, known, idFunnel);
  checkCostOverrides(problems, record.incomingTrafficCostOverrides);
  checkPostbackOverrides(problems, record.postbackOverrides);
  return problems.bounded();
}

/** A list field (absent is empty); undefined, with the problem, when it is not a list or is too long to check further. */
function boundedList(problems: ProblemList, field: string, value: unknown, max: number): unknown[] | undefined {
  if (value === undefined) return [];
  if (!Array.isArray(value)) {
    problems.add(field, CODES.INVALID_TYPE, `${field} must be a list, got ${describeType(value)}`);
    return undefined;
  }
  if (value.length > max) {
    problems.add(field, CODES.OUT_OF_RANGE, `${field}: a funnel has at most ${max} ${field}, got ${value.length}`);
    return undefined;
  }
  return value;
}

function checkNodes(problems: ProblemList, nodes: unknown[], idFunnel: string | undefined, referenced: Set<string>): Map<string, KnownNode> {
  const known = new Map<string, KnownNode>();
  const roots: number[] = [];
  const checks = new FieldChecks(problems, (node) => idNote('node', isPlainObject(node) ? node.idNode : undefined));
  nodes.forEach((node, i) => {
    const at = `nodes[${i}]`;
    const check = checks.of(node);
    if (!check.object(at, node)) return;

    const idNode = node.idNode;
    if (check.assetId(`${at}.idNode`, idNode)) {
      const earlier = known.get(idNode);
      if (earlier) check.add(`${at}.idNode`, CODES.DUPLICATE_ID, `nodes[${earlier.index}] has the same idNode`);
      else if (idNode === idFunnel) check.add(`${at}.idNode`, CODES.DUPLICATE_ID, 'is the funnel id; a node needs an id of its own');
      else if (referenced.has(idNode))
        check.add(`${at}.idNode`, CODES.ID_IS_REFERENCE, 'is the id of an asset the funnel references; a node needs an id of its own');
    }
    check.text(`${at}.nodeName`, node.nodeName, L.minNameLength, L.maxNameLength);
    const typeKnown = check.oneOf(`${at}.nodeType`, node.nodeType, FUNNEL_NODE_TYPES);
    const type = typeKnown ? (node.nodeType as FunnelNodeType) : undefined;
    check.number(`${at}.posX`, node.posX, 0, 1);
    check.number(`${at}.posY`, node.posY, 0, 1);
    if (isValidAssetId(idNode) && !known.has(idNode)) known.set(idNode, { index: i, type });
    if (!type) return;

    if (type === 'root') roots.push(i);
    const own = NODE_PARAMS[type];
    if (hasOtherField(node, NODE_PARAMS_FIELD_SET, own.field))
      for (const field of NODE_PARAMS_FIELDS) {
        if (field !== own.field && node[field] !== undefined)
          check.add(`${at}.${field}`, CODES.NOT_ALLOWED, `does not fit ${withArticle(type)} node (its params are ${own.field})`);
      }
    const params = node[own.field];
    if (params === undefined && !own.required) return;
    if (check.object(`${at}.${own.field}`, params)) checkNodeParams(check, type, `${at}.${own.field}`, params);
  });

  if (nodes.length > 0 && roots.length === 0) problems.add('nodes', CODES.ONE_ROOT, 'nodes: a funnel with nodes has exactly one root node; there is none');
  for (const i of roots.slice(1)) {
    const note = idNote('node', (nodes[i] as Record<string, unknown>).idNode);
    problems.add(`nodes[${i}].nodeType`, CODES.ONE_ROOT, `nodes[${i}].nodeType${note}: a funnel has one root node, nodes[${roots[0]}]`);
  }
  return known;
}

function checkConnections(problems: ProblemList, connections: unknown[], known: Map<string, KnownNode>, idFunnel: string | undefined): void {
  const seen = new Map<string, number>();
  const outgoing = new Map<string, Outgoing>();
  const checks = new FieldChecks(problems, (connection) => idNote('connection', isPlainObject(connection) ? connection.idConnection : undefined));
  connections.forEach((connection, j) => {
    const at = `connections[${j}]`;
    const check = checks.of(connection);
    if (!check.object(at, connection)) return;

    const idConnection = connection.idConnection;
    if (check.assetId(`${at}.idConnection`, idConnection)) {
      const earlier = seen.get(idConnection);
      if (earlier !== undefined) check.add(`${at}.idConnection`, CODES.DUPLICATE_ID, `connections[${earlier}] has the same idConnection`);
      else if (known.has(idConnection)) check.add(`${at}.idConnection`, CODES.DUPLICATE_ID, `nodes[${known.get(idConnection)!.index}] has this id`);
      else if (idConnection === idFunnel) check.add(`${at}.idConnection`, CODES.DUPLICATE_ID, 'is the funnel id; a connection needs an id of its own');
      if (earlier === undefined) seen.set(idConnection, j);
    }

    const source = nodeEnd(check, `${at}.idSourceNode`, connection.idSourceNode, known);
    const target = nodeEnd(check, `${at}.idTargetNode`, connection.idTargetNode, known);
    if (source && target && source === target) check.add(`${at}.idTargetNode`, CODES.SELF_CONNECTION, 'is the source node; a connection joins two nodes');
    else if (target?.type === 'root') check.add(`${at}.idTargetNode`, CODES.INTO_ROOT, 'is the root node, where visitors enter; no connection leads into it');
    if (!source?.type) return;

    const sourceType = source.type;
    const rule = OUTGOING[sourceType];
    const out = outgoing.get(connection.idSourceNode as string) ?? { count: 0, taken: new Map<string, string>() };
    outgoing.set(connection.idSourceNode as string, out);
    out.count += 1;
    if (rule.maxOutgoing !== undefined && out.count > rule.maxOutgoing) {
      const allowed = rule.maxOutgoing === 0 ? 'no outgoing connection' : `at most ${plural(rule.maxOutgoing, 'outgoing connection')}`;
      check.add(`${at}.idSourceNode`, CODES.TOO_MANY_OUTGOING, `${withArticle(sourceType)} node (nodes[${source.index}]) has ${allowed}`);
    }
    if (hasOtherField(connection, CONNECTION_PARAMS_FIELD_SET, rule.params))
      for (const field of CONNECTION_PARAMS_FIELDS) {
        if (field !== rule.params && connection[field] !== undefined) {
          const fits = rule.params ? `its params are ${rule.params}` : 'its connections carry no params';
          check.add(`${at}.${field}`, CODES.NOT_ALLOWED, `does not fit a connection from ${withArticle(sourceType)} node (${fits})`);
        }
      }
    if (!rule.params || !check.object(`${at}.${rule.params}`, connection[rule.params])) return;
    checkConnectionParams(check, `${at}.${rule.params}`, connection[rule.params] as Record<string, unknown>, sourceType, out, at);
  });
}

/** A connection end: an id of a node of the funnel. */
function nodeEnd(check: FieldChecks, field: string, value: unknown, known: Map<string, KnownNode>): KnownNode | undefined {
  if (!check.string(field, value)) return undefined;
  const node = known.get(value);
  if (!node) check.add(field, CODES.NOT_A_NODE, isValidAssetId(value) ? `names no node of the funnel (${value})` : 'names no node of the funnel');
  return node;
}

function checkConnectionParams(
  check: FieldChecks,
  at: string,
  params: Record<string, unknown>,
  sourceType: FunnelNodeType,
  out: Outgoing,
  connectionAt: string,
): void {
  switch (sourceType) {
    case 'root':
    case 'rotator':
      check.number(`${at}.weight`, params.weight, 0, 1);
      return;
    case 'landerGroup':
    case 'offerGroup': {
      const field = `${at}.onActionNumber`;
      if (check.number(field, params.onActionNumber, L.minActionNumber, L.maxActionNumber, true)) {
        claim(check, out, connectionAt, field, `action:${params.onActionNumber}`, 'action', params.onActionNumber);
      }
      if (params.isConversion === undefined) return;
      if (sourceType === 'landerGroup') check.add(`${at}.isConversion`, CODES.NOT_ALLOWED, 'is for connections from offer groups only');
      else check.boolean(`${at}.isConversion`, params.isConversion);
      return;
    }
    case 'middleware':
      if (check.routeKey(`${at}.onRouteId`, params.onRouteId))
        claim(check, out, connectionAt, `${at}.onRouteId`, `route:${params.onRouteId}`, 'route', params.onRouteId);
      return;
    default: {
      const keys = params.onRouteKeys;
      if (!check.list(`${at}.onRouteKeys`, keys, 1, L.maxRouteKeysPerConnection)) return;
      keys.forEach((key, k) => {
        const field = `${at}.onRouteKeys[${k}]`;
        if (check.routeKey(field, key)) claim(check, out, connectionAt, field, `route:${key}`, 'route key', key);
      });
    }
  }
}

/**
 * Claims a route key, middleware route or action number (`key`) of the source node for the
 * connection at `connectionAt`; a problem names it as `<what> <value>` (`route key spain`).
 */
function claim(check: FieldChecks, out: Outgoing, connectionAt: string, field: string, key: string, what: string, value: string | number): void {
  const holder = out.taken.get(key);
  if (holder === connectionAt) check.add(field, CODES.ALREADY_TAKEN, `${what} ${value} is already in the list`);
  else if (holder) check.add(field, CODES.ALREADY_TAKEN, `${what} ${value} is already taken by ${holder}, from the same node`);
  else out.taken.set(key, connectionAt);
}

function checkCostOverrides(problems: ProblemList, overrides: unknown): void {
  const field = 'incomingTrafficCostOverrides';
  if (overrides === undefined) return;
  const check = new FieldChecks(problems, '');
  if (!check.object(field, overrides)) return;
  const entries = Object.entries(overrides);
  if (entries.length > L.maxTrafficSourceOverrides) {
    check.add(field, CODES.OUT_OF_RANGE, `must hold at most ${L.maxTrafficSourceOverrides} traffic sources, got ${entries.length}`);
    return;
  }
  for (const [id, cost] of entries) {
    if (!isValidAssetId(id)) {
      check.add(field, CODES.INVALID_ID, 'holds a key that is not a traffic source id (12 characters of 0-9, A-Z, a-z)');
      continue;
    }
    if (check.string(`${field}.${id}`, cost) && !DECIMAL_TEXT.test(cost)) {
      check.add(`${field}.${id}`, CODES.INVALID_TYPE, 'must be a decimal >= 0 with up to 6 decimals, as text');
    }
  }
}

function checkPostbackOverrides(problems: ProblemList, overrides: unknown): void {
  const field = 'postbackOverrides';
  if (overrides === undefined) return;
  const check = new FieldChecks(problems, '');
  if (!check.list(field, overrides, 0, L.maxTrafficSourceOverrides)) return;
  const seen = new Map<string, number>();
  overrides.forEach((override, k) => {
    const at = `${field}[${k}]`;
    if (!check.object(at, override) || !check.assetId(`${at}.idTrafficSource`, override.idTrafficSource)) return;
    const earlier = seen.get(override.idTrafficSource);
    if (earlier !== undefined) check.add(`${at}.idTrafficSource`, CODES.DUPLICATE_ID, `${field}[${earlier}] overrides the same traffic source`);
    else seen.set(override.idTrafficSource, k);
  });
}
