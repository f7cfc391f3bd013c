import { InvoiceLineView } from '@funnel/contracts';

/** A billing period: a calendar month UTC, as Unix seconds [start, end). */
export interface BillingPeriod {
  start: number;
  end: number;
}

/** The calendar month (UTC) that holds `at` (Unix seconds). */
export function periodContaining(at: number): BillingPeriod {
  const date = new Date(at * 1000);
  const start = Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1) / 1000;
  const end = Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1) / 1000;
  return { start, end };
}

/** The month after `period`. */
export function nextPeriod(period: BillingPeriod): BillingPeriod {
  return periodContaining(period.end);
}

/** Cents, rounded half away from zero (so a credit and a charge of the same time mirror each other). */
export function roundCents(amount: number): number {
  return Math.sign(amount) * Math.round(Math.abs(amount));
}

export interface ProrationInput {
  addonId: string;
  addonName: string;
  unitPriceCents: number;
  fromQuantity: number;
  toQuantity: number;
  /** When the change takes effect (Unix seconds, inside the period). */
  at: number;
  period: BillingPeriod;
}

function utc(seconds: number): string {
  return new Date(seconds * 1000).toISOString().replace('.000Z', 'Z');
}

/**
 * Stripe's proration rule, to the second: the unused rest of the period at the old quantity is
 * credited, the rest of the period at the new quantity is charged. Each line is rounded to the cent
 * on its own (half away from zero); a quantity of 0 gives no line. Both lines cover [at, period end).
 */
export function prorate(input: ProrationInput): InvoiceLineView[] {
  const { period, at } = input;
  const remaining = Math.max(0, period.end - Math.max(at, period.start));
  const length = period.end - period.start;
  const lines: InvoiceLineView[] = [];
  if (remaining === 0 || input.fromQuantity === input.toQuantity) return lines;
  const share = (quantity: number) => roundCents((quantity * input.unitPriceCents * remaining) / length);
  const from = Math.max(at, period.start);
  if (input.fromQuantity > 0) {
    lines.push({
      addon_id: input.addonId,
      description: `Unused time on ${input.fromQuantity} × ${input.addonName} after ${utc(from)}`,
      amount_cents: 0 - share(input.fromQuantity),
      period_start: from,
      period_end: period.end,
    });
  }
  if (input.toQuantity > 0) {
    lines.push({
      addon_id: input.addonId,
      description: `Remaining time on ${input.toQuantity} × ${input.addonName} after ${utc(from)}`,
      amount_cents: share(input.toQuantity),
      period_start: from,
      period_end: period.end,
    });
  }
  return lines;
}

export function totalCents(lines: readonly InvoiceLineView[]): number {
  return lines.reduce((sum, line) => sum + line.amount_cents, 0);
}
