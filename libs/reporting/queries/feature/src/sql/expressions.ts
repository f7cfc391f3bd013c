import type {
  AttributeDefinition,
  AttributeFilter,
  BaseAggregate,
  BaseCondition,
  FilterValue,
  Measure,
  MetricExpression,
  OffsetPeriod,
} from '@funnel/reporting-queries-domain';
import { TIME_BUCKETS } from '@funnel/reporting-queries-domain';
import { VISITOR_COLUMNS, customEventColumn, trackingColumn } from '@funnel/reporting-feature';
import type { Dialect, Params } from './dialect';

/** Hit text fields -> warehouse columns. */
const FIELD_COLUMNS: Record<string, string> = {
  hitId: 'hit_id',
  visitorId: 'visitor_id',
  idFunnel: 'id_funnel',
  idFunnelGroup: 'id_funnel_group',
  idTrafficSource: 'id_traffic_source',
  idNode: 'id_node',
  idPage: 'id_page',
  nodeType: 'node_type',
  idOfferSource: 'id_offer_source',
  countryCode: 'country_code',
  ip: 'ip',
};

/** The host of a URL (after the scheme and any user info), as RE2 reads it; the same in both engines. */
export const REFERRER_HOST = '^[a-zA-Z][a-zA-Z0-9+.-]*://(?:[^/?#@]*@)?([^/:?#]*)';

/** Builds the SQL of one query: the dialect, its parameters and the window's time-zone offsets. */
export class SqlContext {
  readonly params: Params;

  constructor(
    readonly dialect: Dialect,
    params: Params,
    readonly periods: readonly OffsetPeriod[] = [{ fromMs: 0, offsetMs: 0 }],
  ) {
    this.params = params;
  }

  text(value: string): string {
    return this.params.add(value, 'String');
  }

  /** Local time of the source's `t` (epoch ms): t plus the offset of its DST period (integers only). */
  localTime(): string {
    const [first, ...rest] = this.periods;
    if (!rest.length) return `(t + ${first.offsetMs})`;
    const cases = rest.map((period, i) => `WHEN t < ${period.fromMs} THEN ${this.periods[i].offsetMs}`).join(' ');
    return `(t + CASE ${cases} ELSE ${rest[rest.length - 1].offsetMs} END)`;
  }

  /** An attribute's value over the source relation ("" / 0 for N/A; time buckets as integers). */
  attributeValue(attribute: AttributeDefinition): string {
    const source = attribute.source;
    switch (source.kind) {
      case 'field': {
        const column = FIELD_COLUMNS[source.field];
        return source.whenNodeType ? `CASE WHEN node_type = ${this.text(source.whenNodeType)} THEN ${column} ELSE '' END` : column;
      }
      case 'visitor':
        return VISITOR_COLUMNS[source.field];
      case 'tracking':
        return trackingColumn(source.slot);
      case 'tags':
        return 'tag';
      case 'action':
        return 'action';
      case 'referrerDomain':
        return `lower(${this.dialect.regexpGroup(VISITOR_COLUMNS.referrer, REFERRER_HOST)})`;
      case 'time': {
        const { divisor, modulo, shift = 0 } = TIME_BUCKETS[source.unit];
        const bucket = `(${this.dialect.intDiv(this.localTime(), divisor)}${shift ? ` + ${shift}` : ''})`;
        return modulo === undefined ? bucket : `(${bucket} % ${modulo})`;
      }
    }
  }

  /** The N/A value of an attribute's expression. */
  private noValue(attribute: AttributeDefinition): string {
    return attribute.source.kind === 'action' ? '0' : "''";
  }

  private matches(attribute: AttributeDefinition, expression: string, value: FilterValue): string {
    if (value.kind === 'none') return attribute.source.kind === 'time' ? 'FALSE' : `${expression} = ${this.noValue(attribute)}`;
    if (value.kind === 'like') return this.dialect.ilike(expression, this.text(value.pattern));
    return `${expression} = ${typeof value.value === 'number' ? this.params.add(value.value, 'Int64') : this.text(value.value)}`;
  }

  /** Hit-level predicates of a visitor-tag filter (a hit matches when any of its tags does). */
  private tagMatches(value: FilterValue): string {
    if (value.kind === 'none') return this.dialect.tagsEmpty;
    if (value.kind === 'like') throw new Error('visitor tags match ids exactly');
    return this.dialect.tagsHas(this.text(String(value.value)));
  }

  /**
   * Predicates of a filter: include (any) and exclude (none), plus `pinned` (one exact value). Visitor
   * tags filter hits by their tag arrays; with `expanded`, also the expanded `tag` column (a hit
   * grouped per tag shows only the tags asked for).
   */
  filterPredicates(filter: AttributeFilter, pinned?: FilterValue, expanded = false): string[] {
    const { attribute, include, exclude } = filter;
    const predicates: string[] = [];
    const any = (values: FilterValue[], match: (value: FilterValue) => string) => `(${values.map(match).join(' OR ')})`;
    if (attribute.source.kind === 'tags') {
      const hitLevel = (value: FilterValue) => this.tagMatches(value);
      if (include.length) predicates.push(any(include, hitLevel));
      if (exclude.length) predicates.push(`NOT ${any(exclude, hitLevel)}`);
      if (pinned) predicates.push(hitLevel(pinned));
      if (!expanded) return predicates;
      const tagLevel = (value: FilterValue) => this.matches(attribute, 'tag', value);
      if (include.length) predicates.push(any(include, tagLevel));
      if (exclude.length) predicates.push(`NOT ${any(exclude, tagLevel)}`);
      if (pinned) predicates.push(tagLevel(pinned));
      return predicates;
    }
    if (!include.length && !exclude.length && !pinned) return predicates;
    const expression = this.attributeValue(attribute);
    const scalar = (value: FilterValue) => this.matches(attribute, expression, value);
    if (include.length) predicates.push(any(include, scalar));
    if (exclude.length) predicates.push(`NOT ${any(exclude, scalar)}`);
    if (pinned) predicates.push(scalar(pinned));
    return predicates;
  }

  private condition(when: BaseCondition | undefined): string | undefined {
    if (!when) return undefined;
    if (when.kind === 'entrance') return this.dialect.isEntrance;
    return `node_type = ${this.text(when.nodeType)}`;
  }

  /** A base aggregate over the source (`hit_row` marks hit rows; conversion rows add `conv` and `rev` only). */
  aggregate(base: BaseAggregate): string {
    const hitRow = this.dialect.engine === 'duckdb' ? 'hit_row' : 'hit_row = 1';
    const when = this.condition(base.aggregate.when);
    if (base.aggregate.kind === 'distinctVisitors') return this.dialect.countDistinctIf('visitor_id', [hitRow, when].filter(Boolean).join(' AND '));
    const { value, hitsOnly } = measureOf(base.aggregate.measure);
    const condition = [hitsOnly ? hitRow : undefined, when].filter(Boolean).join(' AND ');
    return condition ? `sum(CASE WHEN ${condition} THEN ${value} ELSE 0 END)` : `sum(${value})`;
  }

  /** A metric's value over the aggregated row's base columns (`b_<key>`), a division by zero NULL. */
  metricValue(expression: MetricExpression): string {
    if ('base' in expression) return baseColumn(expression.base);
    if ('minus' in expression) return `(${this.metricValue(expression.minus[0])} - ${this.metricValue(expression.minus[1])})`;
    const [num, den] = expression.divide.map((part) => this.metricValue(part));
    return `(CASE WHEN ${den} = 0 THEN NULL ELSE ${this.dialect.toDouble(num)} / ${this.dialect.toDouble(den)} END)`;
  }
}

export const baseColumn = (key: string) => `b_${key}`;

function measureOf(measure: Measure): { value: string; hitsOnly: boolean } {
  switch (measure.kind) {
    case 'hits':
      return { value: '1', hitsOnly: true };
    case 'clicks':
      return { value: 'clicks', hitsOnly: true };
    case 'conversions':
      return { value: 'conv', hitsOnly: false };
    case 'revenue':
      return { value: 'rev', hitsOnly: false };
    case 'cost':
      return { value: 'cost', hitsOnly: true };
    case 'customEvent':
      return { value: customEventColumn(measure.n), hitsOnly: true };
  }
}
