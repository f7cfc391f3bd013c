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

/** The index a draw falls in, given cumulative weights (normalised by their total). */
export function drawIndex(cumulative: readonly number[], random: RandomSource): number {
  const drawn = random() * cumulative[cumulative.length - 1];
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

const TOKEN = /\{([^{}]+)\}/g;

/** A page URL with its tokens replaced (unknown ones kept) and `vid=` added. */
export function handUrl(baseURL: string, hit: string, session: RoutingSession, idNode: string, fields: Readonly<Record<string, string>>): string {
  const url = baseURL.replace(TOKEN, (token, name: string) => {
    let value: string | undefined;
    if (name === 'hit') value = hit;
    else if (name === 'visitor') value = session.visitorId;
    else if (name === 'current-node-id') value = idNode;
    else if (name.startsWith('data-')) value = session.urlBuffer[name.slice(5)] ?? '';
    else if (fields[name] !== undefined) value = session.trackingFields[fields[name]] ?? '';
    return value === undefined ? token : encodeURIComponent(value);
  });
  return `${url}${url.includes('?') ? '&' : '?'}vid=${session.visitorId}`;
}
