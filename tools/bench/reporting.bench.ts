// @funnel/contracts declares its DTOs with class-transformer decorators, which need the metadata API loaded first.
import 'reflect-metadata';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ReportingQueues, generateAssetId } from '@funnel/contracts';
import { EmbeddedJobQueue, appendRawJobs } from '@funnel/reporting-feature';
import { load } from './http-load';

export const ACCEPT_ROWS = 1000;

/** A conversions update of 1,000 rows (random hit ids, a payout, a transaction id and a time each): about 100 kB. */
export function conversionsBody(rows = ACCEPT_ROWS): string {
  return JSON.stringify({
    hits: Array.from({ length: rows }, (_, i) => ({ hitId: generateAssetId(), payout: '12.5', transactionId: `tx-${i}`, time: '2026-01-10T12:00:00Z' })),
    postbackCalls: 'none',
  });
}

export interface AcceptRound {
  /** Rows accepted per second over HTTP (answered 200, so durably queued). */
  rowsPerSecond: number;
  /** Rows per second of the baseline: the same bodies appended straight to an embedded queue of the same kind. */
  baselineRowsPerSecond: number;
  p99Ms: number;
  non2xx: number;
}

/**
 * One paired round: `PUT /v1/reporting/update/conversions/` with 1,000-row bodies against the running
 * standalone server for `seconds` (8 connections), then the baseline: the same body appended as
 * that many jobs to a fresh embedded queue file (the `REPORTING_UPDATES` table, same options) with
 * 8 enqueues in flight, no HTTP, validation or job records.
 */
export async function reportingAcceptRound(baseUrl: string, key: string, seconds: number): Promise<AcceptRound> {
  const body = conversionsBody();
  const result = await load({
    url: `${baseUrl}/reporting/update/conversions/`,
    method: 'PUT',
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    body: () => body,
    durationSeconds: seconds,
    connections: 8,
  });
  const accepted = result.requests - result.non2xx;
  const dir = mkdtempSync(join(tmpdir(), 'funnel-bench-queue-'));
  const queue = new EmbeddedJobQueue<string>({ ...ReportingQueues.updates, filename: join(dir, 'reporting.sqlite') });
  try {
    const count = Math.max(50, accepted);
    const raw = await appendRawJobs(queue, { count, payload: body, parallel: 8, type: 'conversions' });
    return {
      rowsPerSecond: (accepted * ACCEPT_ROWS) / seconds,
      baselineRowsPerSecond: (count * ACCEPT_ROWS) / (raw.elapsedMs / 1000),
      p99Ms: result.p99Ms,
      non2xx: result.non2xx,
    };
  } finally {
    await queue.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
