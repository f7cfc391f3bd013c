// What the hand-written baselines of the routing bench share: plain JavaScript that a tracker written
// for one funnel would hold (a weighted draw, the entrance's session, hit ids, token replacement).
import type { FunnelRecord } from '@funnel/assets-domain';
import type { FunnelAssets, IdSource, RandomSource, RoutingSession, WalkInput } from '@funnel/routing';

type Rec<K extends string> = Record<K, string> & Record<string, unknown>;

/** A funnel and its assets, typed as far as the bench reads them. */
export interface BenchAssets extends FunnelAssets {
  funnel: FunnelRecord;
  pageGroups: (Rec<'idPageGroup' | 'pageGroupName' | 'pageType'> & { pages: { idPage: string; weight: number }[] })[];
  pages: Rec<'idPage' | 'pageType' | 'pageName' | 'baseURL'>[];
  trafficSources: Rec<'idTrafficSource' | 'trafficSourceName' | 'defaultCost'>[];
}

/** Where a hand-written walk ends, and what it leaves: the figures compare it with the engine's WalkResult. */
export interface HandResult {
  idNode: string;
  idPage: string;
  url: string;
  hits: string[];
  session: RoutingSession;
}

export type HandWalk = (input: WalkInput) => HandResult;

/** Running totals of the weights' shares, the last forced to 1 (so every draw in [0, 1) picks one). */
export function cumulativeShares(weights: readonly number[]): number[] {
  const sum = weights.reduce((total, weight) => total + weight, 0);
  let total = 0;
  const cumulative = weights.map((weight) => (total += weight / sum));
  cumulative[cumulative.length - 1] = 1;
  return cumulative;
}

/** The index one draw in [0, 1) falls in, given cumulativeShares. */
export function drawIndex(cumulative: readonly number[], random: RandomSource): number {
  const drawn = random();
  for (let i = 0; i < cumulative.length - 1; i++) if (drawn < cumulative[i]) return i;
  return cumulative.length - 1;
}

/** `count` new hit ids. */
export function hitIds(ids: IdSource, count: number): string[] {
  const hits: string[] = [];
  for (let i = 0; i < count; i++) hits.push(ids());
  return hits;
}

/** A new visitor's session at an entrance: tracking fields by slot from the URL, the cost, every parameter in the buffer. */
export function entranceSession(
  input: WalkInput,
  funnel: FunnelRecord,
  source: { idTrafficSource: string; defaultCost: string },
  fields: Readonly<Record<string, string>>,
): RoutingSession {
  const params = input.visitor.params ?? {};
  const trackingFields: Record<string, string> = {};
  for (const name in fields) if (params[name] !== undefined) trackingFields[fields[name]] = params[name];
  return {
    visitorId: input.ids(),
    startedAt: input.visitor.time,
    idFunnel: funnel.idFunnel,
    idTrafficSource: source.idTrafficSource,
    currentNode: '',
    lastHitId: '',
    currentPage: '',
    trackingFields,
    cost: funnel.incomingTrafficCostOverrides?.[source.idTrafficSource] ?? source.defaultCost,
    tags: [],
    sticky: {},
    urlBuffer: { ...params },
  };
}

/** The session at an action: the action link's parameters join the URL buffer. */
export function actionSession(input: WalkInput): RoutingSession {
  const session = input.session!;
  return input.visitor.params ? { ...session, urlBuffer: { ...session.urlBuffer, ...input.visitor.params } } : session;
}

/** The session after a walk that showed `idPage` of `idNode`. */
export function nextSession(session: RoutingSession, idNode: string, idPage: string, hits: readonly string[]): RoutingSession {
  return { ...session, currentNode: idNode, currentPage: idPage, lastHitId: hits[hits.length - 1] };
}

const TOKEN = /\{([^{}\s]{1,80})\}/g;
const SLOT = /^(campaign|external|c([1-9]|1\d|20))$/;

/** One page's URL, ready to fill for a walk. */
export type HandUrl = (hit: string, session: RoutingSession, idNode: string) => string;

type Part = string | ((hit: string, session: RoutingSession, idNode: string) => string);

/**
 * A URL template split once into text and token readers: each walk fills the tokens (unknown ones
 * kept as written), appends the session's URL parameters the URL does not name when `passOn` (a group
 * that accumulates them), and `vid=` last.
 */
export function handUrl(template: string, slotsByName: Readonly<Record<string, string>>, passOn = false): HandUrl {
  const parts: Part[] = [];
  let at = 0;
  for (const match of template.matchAll(TOKEN)) {
    parts.push(template.slice(at, match.index));
    parts.push(tokenReader(match[1], slotsByName) ?? match[0]);
    at = match.index + match[0].length;
  }
  parts.push(template.slice(at));
  const question = template.indexOf('?');
  const names = new Set(question < 0 ? [] : new URLSearchParams(template.slice(question + 1)).keys());
  const open = question < 0 ? '?' : '&';
  return (hit, session, idNode) => {
    let url = '';
    for (const part of parts) url += typeof part === 'string' ? part : encodeURIComponent(part(hit, session, idNode));
    let separator = open;
    if (passOn) {
      for (const name in session.urlBuffer) {
        if (name === 'vid' || names.has(name)) continue;
        url += `${separator}${encodeURIComponent(name)}=${encodeURIComponent(session.urlBuffer[name])}`;
        separator = '&';
      }
    }
    return `${url}${separator}vid=${encodeURIComponent(session.visitorId)}`;
  };
}

function tokenReader(name: string, slotsByName: Readonly<Record<string, string>>): Part | undefined {
  if (name === 'hit') return (hit) => hit;
  if (name === 'visitor') return (_hit, session) => session.visitorId;
  if (name === 'current-node-id') return (_hit, _session, idNode) => idNode;
  if (name.startsWith('data-')) {
    const entry = name.slice(5);
    return (_hit, session) => session.urlBuffer[entry] ?? '';
  }
  const slot = SLOT.test(name) ? name : name.startsWith('trackingField.') ? slotsByName[name.slice(14)] : undefined;
  return slot === undefined ? undefined : (_hit, session) => session.trackingFields[slot] ?? '';
}
