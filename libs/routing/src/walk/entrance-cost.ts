// The cost of an entrance: the link's cost, else the funnel's override for the traffic source, else
// the funnel's default cost, else its funnel group's, else the traffic source's, else 0; then the
// traffic source's incomingCostModifier (percent; 100 keeps it) applies to whichever was taken.
import type { StepDecision } from '../model';
import type { CompiledGraph, CompiledTrafficSource } from '../compile/graph';
import { applyPercent, isDecimalText } from '../decimal/decimal-text';

type CostFrom = Extract<StepDecision, { kind: 'entrance' }>['costFrom'];

export interface EntranceCost {
  cost: string;
  costFrom: CostFrom;
  incomingCostModifier: number;
  /** The link's cost when it was given but is not a decimal (then ignored). */
  invalidLinkCost: string | null;
}

export function entranceCost(
  graph: CompiledGraph,
  source: CompiledTrafficSource | undefined,
  idTrafficSource: string,
  linkCost: string | undefined,
): EntranceCost {
  if (linkCost !== undefined) return resolve(graph, source, idTrafficSource, linkCost);
  // Without a link cost the answer only depends on the compiled funnel and the source: computed once per source.
  let cost = graph.entranceCosts.get(idTrafficSource) as EntranceCost | undefined;
  if (cost === undefined) graph.entranceCosts.set(idTrafficSource, (cost = Object.freeze(resolve(graph, source, idTrafficSource, undefined))));
  return cost;
}

function resolve(graph: CompiledGraph, source: CompiledTrafficSource | undefined, idTrafficSource: string, linkCost: string | undefined): EntranceCost {
  const modifier = source?.incomingCostModifier ?? 100;
  const linkValid = linkCost !== undefined && isDecimalText(linkCost);
  const invalidLinkCost = linkCost !== undefined && !linkValid ? linkCost : null;
  // The candidates in order, each checked as it comes (no list of them made per entrance).
  if (linkValid) return costOf(linkCost, 'link', modifier, invalidLinkCost);
  const funnel = graph.assets.funnel;
  const override = funnel.incomingTrafficCostOverrides?.[idTrafficSource];
  if (isDecimalText(override)) return costOf(override, 'funnelOverride', modifier, invalidLinkCost);
  if (isDecimalText(funnel.defaultCost)) return costOf(funnel.defaultCost, 'funnelDefault', modifier, invalidLinkCost);
  if (isDecimalText(graph.funnelGroupDefaultCost)) return costOf(graph.funnelGroupDefaultCost, 'funnelGroupDefault', modifier, invalidLinkCost);
  const sourceCost = source?.defaultCost;
  if (isDecimalText(sourceCost)) return costOf(sourceCost, 'trafficSource', modifier, invalidLinkCost);
  return { cost: '0', costFrom: 'none', incomingCostModifier: modifier, invalidLinkCost };
}

function costOf(value: string, costFrom: CostFrom, modifier: number, invalidLinkCost: string | null): EntranceCost {
  return { cost: applyPercent(value, modifier), costFrom, incomingCostModifier: modifier, invalidLinkCost };
}
