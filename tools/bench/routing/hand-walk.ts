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

/**
 * A URL with its tokens replaced (unknown ones kept), the session's URL parameters the URL does not
 * name appended when `passOn` (a group that accumulates them), and `vid=` last.
 */
export function handUrl(
  template: string,
  hit: string,
  session: RoutingSession,
  idNode: string,
  slotsByName: Readonly<Record<string, string>>,
  passOn?: { names: ReadonlySet<string> },
): string {
  let url = template.replace(TOKEN, (token, name: string) => {
    let value: string | undefined;
    if (name === 'hit') value = hit;
    else if (name === 'visitor') value = session.visitorId;
    else if (name === 'current-node-id') value = idNode;
    else if (name.startsWith('data-')) value = session.urlBuffer[name.slice(5)] ?? '';
    else if (SLOT.test(name)) value = session.trackingFields[name] ?? '';
    else if (name.startsWith('trackingField.')) {
      const slot = slotsByName[name.slice(14)];
      value = slot === undefined ? undefined : (session.trackingFields[slot] ?? '');
    }
    return value === undefined ? token : encodeURIComponent(value);
  });
  let separator = url.includes('?') ? '&' : '?';
  if (passOn) {
    for (const name in session.urlBuffer) {
      if (name === 'vid' || passOn.names.has(name)) continue;
      url += `${separator}${encodeURIComponent(name)}=${encodeURIComponent(session.urlBuffer[name])}`;
      separator = '&';
    }
  }
  return `${url}${separator}vid=${encodeURIComponent(session.visitorId)}`;
}

/** The query parameter names a URL template holds (a group that accumulates URL parameters never repeats one). */
export function queryNames(template: string): { names: ReadonlySet<string> } {
  const question = template.indexOf('?');
  return { names: new Set(question < 0 ? [] : new URLSearchParams(template.slice(question + 1)).keys()) };
}
