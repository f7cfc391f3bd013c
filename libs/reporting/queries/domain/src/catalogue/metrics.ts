import type { MetricInfo } from '@funnel/contracts';
import { CUSTOM_EVENT_NUMBERS } from '@funnel/reporting-domain';
import { LANDER_NODE_TYPE, OFFER_NODE_TYPE } from './attributes';

/** Which hits an aggregate counts or sums (absent: every hit). */
export type BaseCondition = { kind: 'entrance' } | { kind: 'nodeType'; nodeType: string };

/** A hit quantity summed by a base aggregate. */
export type Measure =
  { kind: 'hits' } | { kind: 'clicks' } | { kind: 'conversions' } | { kind: 'revenue' } | { kind: 'cost' } | { kind: 'customEvent'; n: number };

/** An aggregate the engines compute per group: a sum of a measure over the hits a condition selects, or distinct visitors. */
export interface BaseAggregate {
  key: string;
  aggregate: { kind: 'sum'; measure: Measure; when?: BaseCondition } | { kind: 'distinctVisitors'; when?: BaseCondition };
  /** Money (exact decimals, 6 places) or a count. */
  money: boolean;
}

const sum = (key: string, measure: Measure, when?: BaseCondition): BaseAggregate => ({
  key,
  aggregate: { kind: 'sum', measure, when },
  money: measure.kind === 'revenue' || measure.kind === 'cost',
});

export const BASE_AGGREGATES: readonly BaseAggregate[] = [
  sum('entrances', { kind: 'hits' }, { kind: 'entrance' }),
  { key: 'uniqueEntrances', aggregate: { kind: 'distinctVisitors', when: { kind: 'entrance' } }, money: false },
  sum('nodeViews', { kind: 'hits' }),
  sum('landerViews', { kind: 'hits' }, { kind: 'nodeType', nodeType: LANDER_NODE_TYPE }),
  sum('landerClicks', { kind: 'clicks' }, { kind: 'nodeType', nodeType: LANDER_NODE_TYPE }),
  sum('offerViews', { kind: 'hits' }, { kind: 'nodeType', nodeType: OFFER_NODE_TYPE }),
  sum('offerClicks', { kind: 'clicks' }, { kind: 'nodeType', nodeType: OFFER_NODE_TYPE }),
  sum('conversions', { kind: 'conversions' }),
  sum('revenue', { kind: 'revenue' }),
  sum('cost', { kind: 'cost' }),
  ...CUSTOM_EVENT_NUMBERS.map((n) => sum(`customEvent${n}`, { kind: 'customEvent', n })),
];

export const BASE_BY_KEY: ReadonlyMap<string, BaseAggregate> = new Map(BASE_AGGREGATES.map((base) => [base.key, base]));

/** A metric's value from the base aggregates of its row. */
export type MetricExpression = { base: string } | { minus: [MetricExpression, MetricExpression] } | { divide: [MetricExpression, MetricExpression] };

export interface MetricDefinition extends MetricInfo {
  expression: MetricExpression;
}

const base = (key: string): MetricExpression => ({ base: key });
const minus = (a: MetricExpression, b: MetricExpression): MetricExpression => ({ minus: [a, b] });
const divide = (a: MetricExpression, b: MetricExpression): MetricExpression => ({ divide: [a, b] });

function metric(key: string, label: string, type: MetricInfo['type'], formula: string, expression: MetricExpression): MetricDefinition {
  return { key, label, type, formula, expression };
}

const count = (key: string, label: string, formula: string) => metric(key, label, 'count', formula, base(key));
const PL = minus(base('revenue'), base('cost'));

/** Per-view metrics: conversion rate, earnings and cost per `denominator`. */
function perView(suffix: string, denominatorLabel: string, denominator: string, prefix = ''): MetricDefinition[] {
  const label = (name: string) => `${prefix}${name}${suffix}`;
  const key = (name: string) => {
    const lower = name.toLowerCase();
    return prefix ? `unique${lower[0].toUpperCase()}${lower.slice(1)}${suffix}` : `${lower}${suffix}`;
  };
  return [
    metric(key('CVR'), label('CVR'), 'ratio', `Conv. / ${denominatorLabel}`, divide(base('conversions'), base(denominator))),
    metric(key('EP'), label('EP'), 'money', `Revenue / ${denominatorLabel}`, divide(base('revenue'), base(denominator))),
    metric(key('CP'), label('CP'), 'money', `Cost / ${denominatorLabel}`, divide(base('cost'), base(denominator))),
  ];
}

/**
 * Every metric, in catalogue order (the default column order). A division by zero is N/A (raw null).
 * The "Unique" variants divide by Unique Entrances (distinct visitors among entrance hits).
 */
export const METRICS: readonly MetricDefinition[] = [
  count('entrances', 'Entrances', 'entrance hits (visits)'),
  count('uniqueEntrances', 'Unique Entrances', 'distinct visitors among the entrance hits'),
  count('nodeViews', 'Node Views', 'hits (every node view)'),
  count('landerViews', 'Lander Views', `hits on lander nodes (node type ${LANDER_NODE_TYPE})`),
  count('landerClicks', 'Lander Clicks', 'actions taken from lander hits (sum of their clicks)'),
  count('offerViews', 'Offer Views', `hits on offer nodes (node type ${OFFER_NODE_TYPE})`),
  count('offerClicks', 'Offer Clicks', 'actions taken from offer hits (sum of their clicks)'),
  count('conversions', 'Conv.', 'conversions'),
  metric('revenue', 'Revenue', 'money', 'sum of conversion payouts', base('revenue')),
  metric('cost', 'Cost', 'money', 'sum of hit costs', base('cost')),
  metric('pl', 'P/L', 'money', 'Revenue - Cost', PL),
  metric('roi', 'ROI', 'ratio', '(Revenue - Cost) / Cost', divide(PL, base('cost'))),
  metric('landerCtr', 'Lander CTR', 'ratio', 'Lander Clicks / Lander Views', divide(base('landerClicks'), base('landerViews'))),
  metric('offerCtr', 'Offer CTR', 'ratio', 'Offer Clicks / Offer Views', divide(base('offerClicks'), base('offerViews'))),
  metric('epa', 'EPa', 'money', 'Revenue / Conv.', divide(base('revenue'), base('conversions'))),
  metric('cpa', 'CPa', 'money', 'Cost / Conv.', divide(base('cost'), base('conversions'))),
  ...perView('e', 'Entrances', 'entrances'),
  ...perView('ov', 'Offer Views', 'offerViews'),
  ...perView('lv', 'Lander Views', 'landerViews'),
  ...perView('nv', 'Node Views', 'nodeViews'),
  ...perView('e', 'Unique Entrances', 'uniqueEntrances', 'Unique '),
  ...CUSTOM_EVENT_NUMBERS.map((n) => count(`customEvent${n}`, `Custom Event ${n}`, `custom event ${n} count`)),
];

/** The base aggregates an expression reads. */
export function basesOf(expression: MetricExpression, into = new Set<string>()): Set<string> {
  if ('base' in expression) into.add(expression.base);
  else for (const part of 'minus' in expression ? expression.minus : expression.divide) basesOf(part, into);
  return into;
}
