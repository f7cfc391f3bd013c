// prom-client series whose hot path is an addition: a visitor request counts and times itself three
// times, and prom-client's own inc/observe checks and hashes the labels on every call (about 1 µs
// each). A series is asked for once per label set and kept; what it counts waits in memory and is
// folded into the prom-client metric whenever that is read (a scrape, `get()`), so /metrics answers
// what prom-client would have answered. Series appear in the order they were made (prom-client's
// in the order of their first counts): make each at its first count.
import { Counter, type CounterConfiguration, Histogram, type HistogramConfiguration } from 'prom-client';

/** One label set of a BatchedCounter. */
export class CounterSeries<T extends string> {
  /** Counted and not yet folded into the Counter. */
  waiting = 0;

  constructor(readonly labels: Partial<Record<T, string>>) {}

  inc(): void {
    this.waiting++;
  }
}

/** A Counter whose series (`series(labels)`) count in memory, folded in by the Counter's own `inc(labels, n)` when it is read. */
export class BatchedCounter<T extends string> extends Counter<T> {
  private readonly batched: CounterSeries<T>[] = [];

  constructor(configuration: Omit<CounterConfiguration<T>, 'collect'>) {
    super({
      ...configuration,
      collect(this: Counter<T>) {
        (this as BatchedCounter<T>).fold();
      },
    });
  }

  /** A new series of `labels` (ask once per label set and keep it). */
  series(labels: Partial<Record<T, string>>): CounterSeries<T> {
    const series = new CounterSeries<T>(labels);
    this.batched.push(series);
    return series;
  }

  override reset(): void {
    // prom-client's constructor calls it too, before this class's fields exist.
    for (const series of (this.batched as CounterSeries<T>[] | undefined) ?? []) series.waiting = 0;
    super.reset();
  }

  private fold(): void {
    for (const series of this.batched) {
      if (series.waiting === 0) continue;
      this.inc(series.labels, series.waiting);
      series.waiting = 0;
    }
  }
}

/** One label set of a BatchedHistogram. */
export class HistogramSeries<T extends string> {
  /** Per bucket (the upper bounds in the order given; +Inf not kept), observed and not yet folded into the Histogram. */
  readonly buckets: number[];
  sum = 0;
  count = 0;

  constructor(
    readonly labels: Partial<Record<T, string>>,
    private readonly bounds: readonly number[],
  ) {
    this.buckets = bounds.map(() => 0);
  }

  observe(value: number): void {
    const { bounds } = this;
    for (let i = 0; i < bounds.length; i++) {
      if (value <= bounds[i]) {
        this.buckets[i]++;
        break;
      }
    }
    this.sum += value;
    this.count++;
  }
}

/** What prom-client's Histogram keeps per label set (its `hashMap` values, as its `observe` and `zero` make them). */
interface PromHistogramSeries {
  labels: Record<string, string | number>;
  bucketValues: Record<number, number>;
  sum: number;
  count: number;
}

/**
 * A Histogram whose series (`series(labels)`) count their buckets, sum and count in memory, added to
 * the Histogram's own series (made by its `zero`) when it is read.
 */
export class BatchedHistogram<T extends string> extends Histogram<T> {
  private readonly bounds: number[];
  private readonly batched: HistogramSeries<T>[] = [];

  constructor(configuration: Omit<HistogramConfiguration<T>, 'collect' | 'enableExemplars'> & { buckets: number[] }) {
    super({
      ...configuration,
      collect(this: Histogram<T>) {
        (this as BatchedHistogram<T>).fold();
      },
    });
    // In the order given, as prom-client keeps them (its observe counts the first bound a value is within).
    this.bounds = [...configuration.buckets];
  }

  /** A new series of `labels` (ask once per label set and keep it). */
  series(labels: Partial<Record<T, string>>): HistogramSeries<T> {
    const series = new HistogramSeries<T>(labels, this.bounds);
    this.batched.push(series);
    return series;
  }

  override reset(): void {
    // prom-client's constructor calls it too, before this class's fields exist.
    for (const series of (this.batched as HistogramSeries<T>[] | undefined) ?? []) clear(series);
    super.reset();
  }

  private fold(): void {
    for (const series of this.batched) {
      if (series.count === 0) continue;
      const kept = this.promSeriesOf(series.labels);
      for (let i = 0; i < this.bounds.length; i++) kept.bucketValues[this.bounds[i]] += series.buckets[i];
      kept.sum += series.sum;
      kept.count += series.count;
      clear(series);
    }
  }

  /** The Histogram's own series of `labels`, made by its `zero` when it has none yet. */
  private promSeriesOf(labels: Partial<Record<T, string>>): PromHistogramSeries {
    const find = () =>
      Object.values((this as unknown as { hashMap: Record<string, PromHistogramSeries> }).hashMap).find((kept) =>
        Object.entries(labels).every(([name, value]) => kept.labels[name] === value),
      );
    let kept = find();
    if (kept === undefined) {
      this.zero(labels);
      kept = find();
    }
    if (kept === undefined || typeof kept.bucketValues !== 'object') throw new Error('prom-client keeps a Histogram otherwise than BatchedHistogram expects');
    return kept;
  }
}

function clear(series: HistogramSeries<string>): void {
  series.buckets.fill(0);
  series.sum = 0;
  series.count = 0;
}
