// @funnel/contracts declares its DTOs with class-transformer decorators, which need the metadata API loaded first.
import 'reflect-metadata';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateAssetId, parseConversionsUpdate, type CallerContext } from '@funnel/contracts';
import { createEventStore } from '@funnel/eventstore';
import { aHit } from '@funnel/reporting-domain';
import {
  EmbeddedJobQueue,
  IdempotencyKeys,
  JobRecords,
  ReportingUpdates,
  DuckDbHitStore,
  UpdateWorker,
  applyReportingUpdate,
  type PostbackPayload,
  type UpdatePayload,
} from '@funnel/reporting-feature';

export interface ReportingDrainResult {
  jobsPerSecond: number;
  /** Jobs per second of this process's CPU time (user + system): steadier than wall time on a shared machine. */
  jobsPerCpuSecond: number;
  jobs: number;
  seconds: number;
}

/**
 * An account's small jobs applied per second, as standalone applies them: `jobs` one-row conversion
 * updates of one account (each on another of its hits) accepted (queued and recorded, not timed) into the embedded queue, then the
 * update worker (2 slots, as REPORTING_WORKERS defaults) started and timed until the last one is
 * recorded done. The jobs of an account apply one at a time in acceptance order, so this is the
 * hand-over from one job to the next plus each job's queue, record and hit-store writes.
 */
export async function reportingDrainRate(jobs = 2000): Promise<ReportingDrainResult> {
  const dir = mkdtempSync(join(tmpdir(), 'funnel-reporting-drain-'));
  const events = createEventStore({ dataDir: dir });
  const hits = await DuckDbHitStore.open({ dataDir: dir });
  const filename = join(dir, 'reporting.sqlite');
  const updates = new EmbeddedJobQueue<UpdatePayload>({ name: 'REPORTING_UPDATES', subjectPrefix: 'reporting.updates', filename });
  const postbacks = new EmbeddedJobQueue<PostbackPayload>({ name: 'REPORTING_POSTBACKS', subjectPrefix: 'reporting.postbacks.deliver', filename });
  try {
    const accountId = generateAssetId();
    // Ids from distinct milliseconds: unique, unlike a burst of ids drawn in the same few milliseconds.
    const hitIds = Array.from({ length: jobs }, (_, n) => generateAssetId(Date.UTC(2026, 0, 1) + n));
    await hits.insertHits(hitIds.map((hitId) => aHit({ hitId, visitorId: hitId, accountId, idTrafficSource: 'organic' })));
    const records = new JobRecords(events);
    const accepting = new ReportingUpdates(updates, records, new IdempotencyKeys(events));
    const context: CallerContext = { accountId, userId: 'bench', permissions: ['reporting:write'], correlationId: 'bench' };
    let last = '';
    for (let i = 0; i < jobs; i++) {
      const update = parseConversionsUpdate({ hits: [{ hitId: hitIds[i], payout: '1.5', transactionId: `T${i}` }] });
      [last] = (await accepting.accept(context, { type: 'conversions', update })).jobIds;
    }
    const cpu = process.cpuUsage();
    const started = performance.now();
    const apply = applyReportingUpdate({ hits, sources: async () => undefined });
    await new UpdateWorker(updates, postbacks, apply, { workerConcurrency: 2 }, records).onApplicationBootstrap();
    while ((await records.get(accountId, last))?.status !== 'done') await new Promise((resolve) => setTimeout(resolve, 5));
    const seconds = (performance.now() - started) / 1000;
    const used = process.cpuUsage(cpu);
    if ((await updates.depth()) !== 0) throw new Error('the last job is done but jobs are still queued: out of order');
    return { jobsPerSecond: jobs / seconds, jobsPerCpuSecond: jobs / ((used.user + used.system) / 1e6), jobs, seconds };
  } finally {
    await updates.close();
    await postbacks.close();
    await hits.close();
    await events.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (require.main === module) {
  void reportingDrainRate().then((r) =>
    console.log(
      `reporting drain: ${Math.round(r.jobsPerSecond)} jobs/s, ${Math.round(r.jobsPerCpuSecond)} per CPU second (${r.jobs} jobs of one account in ${r.seconds.toFixed(2)} s)`,
    ),
  );
}
