// Lander and offer group nodes: one page of the group drawn by the pages' weights (normalised; all
// zero: equal shares; a group rotating by `session` shows a returning visitor the page shown the first
// time). The walk stops here: the page's URL is the redirect. Actions 1..64 leave the node by the
// connection that takes the action number; one marked isConversion converts the offer.
import type { FunnelNode, NodePageGroupParams } from '@funnel/assets-domain';
import { numberText } from '../decimal/decimal-text';
import type { ActionTarget, CompileContext, CompiledEdge, GraphNode, NodeFamily, NodeStep } from '../compile/graph';
import { isObject, list, num, obj, text } from '../compile/records';
import * as shares from '../random/shares';
import * as redirectUrl from '../url/redirect-url';
import type { OfferQuery, UrlTemplate } from '../url/redirect-url';
import type { Walk } from '../walk/walk';

// Bound once: compiled imports read another module's exports through getters, on every call otherwise.
const { cumulativeOf, pick, sharesOf } = shares;
const { buildRedirectUrl, compileUrlTemplate } = redirectUrl;

interface CompiledPage {
  readonly idPage: string;
  readonly pageType: 'lander' | 'offer';
  readonly redirectType: string;
  readonly template: UrlTemplate;
  readonly idOfferSource: string;
  readonly offer: OfferQuery | null;
  /** The offer's payout as decimal text ("0" for a lander). */
  readonly payout: string;
}

interface PageGroupData {
  /** The group, or "" when the node's page group is not among the assets. */
  readonly idPageGroup: string;
  readonly found: boolean;
  readonly pages: readonly CompiledPage[];
  readonly shares: readonly number[];
  readonly cumulative: Float64Array;
  readonly sticky: boolean;
  readonly passOn: boolean;
  readonly additionalTokens: ReadonlyMap<string, string> | undefined;
  readonly actions: ReadonlyMap<number, CompiledEdge>;
  readonly converts: ReadonlySet<CompiledEdge>;
}

export const pageGroupFamily: NodeFamily<PageGroupData> = {
  serverSide: false,

  compile(node: FunnelNode, out: readonly CompiledEdge[], context: CompileContext): PageGroupData {
    const params: Partial<NodePageGroupParams> = ('nodePageGroupParams' in node && node.nodePageGroupParams) || {};
    const idPageGroup = params.idPageGroup ?? '';
    const group = context.index.get('pagegroup', idPageGroup);
    if (group === undefined) context.warn('missingAsset', `page group ${idPageGroup} is not among the funnel's assets`);
    const pages: CompiledPage[] = [];
    const weights: number[] = [];
    for (const entry of list(group, 'pages')) {
      if (!isObject(entry)) continue;
      const idPage = text(entry, 'idPage');
      const page = context.index.get('page', idPage);
      if (page === undefined) {
        context.warn('missingAsset', `page ${idPage} of page group ${idPageGroup} is not among the funnel's assets; it is left out`);
        continue;
      }
      const offerParams = obj(page, 'offerParams');
      const idOfferSource = text(offerParams, 'idOfferSource');
      const pageType = text(page, 'pageType') === 'offer' ? 'offer' : 'lander';
      pages.push({
        idPage,
        pageType,
        redirectType: text(page, 'redirectType', '307'),
        template: compileUrlTemplate(text(page, 'baseURL')),
        idOfferSource,
        offer: idOfferSource === '' ? null : context.offerQuery(idOfferSource),
        payout: pageType === 'offer' ? numberText(num(offerParams, 'payout', 0)) : '0',
      });
      weights.push(num(entry, 'weight', 100));
    }
    // A group listing no pages at all is the funnel's own emptyPageGroup warning; this one is for pages that are all missing.
    if (pages.length === 0 && list(group, 'pages').length > 0)
      context.warn('emptyPageGroup', `none of the pages of page group ${idPageGroup} is among the funnel's assets`);
    const shares = sharesOf(weights);
    const actions = new Map<number, CompiledEdge>();
    const converts = new Set<CompiledEdge>();
    for (const edge of out) {
      const action = edge.connection.connectionPageParams;
      if (action === undefined || actions.has(action.onActionNumber)) continue;
      actions.set(action.onActionNumber, edge);
      if (action.isConversion === true) converts.add(edge);
    }
    const tokens = params.additionalTokens ?? [];
    return {
      idPageGroup,
      found: group !== undefined,
      pages,
      shares,
      cumulative: cumulativeOf(shares),
      sticky: text(group, 'rotation') === 'session',
      passOn: params.accumulateUrlParams === true,
      additionalTokens: tokens.length === 0 ? undefined : new Map(tokens.map((token) => [token.key, token.value])),
      actions,
      converts,
    };
  },

  run(node: GraphNode<PageGroupData>, walk: Walk): NodeStep {
    const { data } = node;
    if (!data.found) return walk.deadEnd(node.idNode, 'missingAsset', `page group ${data.idPageGroup} of node ${node.idNode} (${node.nodeName}) is missing`);
    if (data.pages.length === 0)
      return walk.deadEnd(node.idNode, 'emptyPageGroup', `page group ${data.idPageGroup} of node ${node.idNode} (${node.nodeName}) holds no pages`);
    let index = -1;
    let drawn = -1;
    if (data.sticky) {
      const shown = walk.session.sticky[node.idNode];
      if (shown !== undefined) index = data.pages.findIndex((page) => page.idPage === shown);
    }
    if (index < 0) {
      drawn = walk.input.random();
      index = pick(data.cumulative, drawn);
      if (data.sticky) walk.stick(node.idNode, data.pages[index].idPage);
    }
    const page = data.pages[index];
    const hit = walk.hit!;
    hit.idPage = page.idPage;
    hit.idOfferSource = page.idOfferSource;
    walk.record(node, { kind: 'page', idPageGroup: data.idPageGroup, idPage: page.idPage, drawn, share: data.shares[index] });
    const url = buildRedirectUrl(page.template, walk.tokens(node, page.idPage, data.additionalTokens), {
      offer: page.offer,
      passOn: data.passOn ? walk.session.urlBuffer : null,
    });
    return walk.arrive({ type: 'page', idNode: node.idNode, idPage: page.idPage, pageType: page.pageType, redirectType: page.redirectType, url }, url);
  },

  action(node: GraphNode<PageGroupData>, action: number, idPage: string): ActionTarget | undefined {
    const edge = node.data.actions.get(action);
    if (edge === undefined) return undefined;
    if (!node.data.converts.has(edge)) return { edge, conversionPayout: null };
    const page = node.data.pages.find((candidate) => candidate.idPage === idPage);
    return { edge, conversionPayout: page?.payout ?? '0' };
  },
};
