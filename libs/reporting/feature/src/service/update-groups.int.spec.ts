import { join } from 'node:path';
import { parseConversionsUpdate, parseCustomEventsUpdate } from '@funnel/contracts';
import { createEventStore } from '@funnel/eventstore';
import { aHit } from '@funnel/reporting-domain';
import { tempDir } from '@funnel/testing';
import { openTempHitStore } from '../hits/duckdb/temp-hit-store';
import { EmbeddedJobQueue } from '../queue/embedded-job-queue';
import { waitFor } from '../queue/job-queue.contract';
import { applyReportingUpdate } from './apply-update';
import { IdempotencyKeys, JobRecords } from './job-records';
import { ReportingUpdates } from './reporting-updates';
import type { AcceptedUpdate, ApplyUpdate, PostbackPayload, UpdateJob, UpdatePayload } from './reporting.tokens';
import { UpdateWorker } from './update-worker';

const ACCOUNT = 'ACCOUNT00001';
const HITS = ['HIT000000001', 'HIT000000002'];
const context = { accountId: ACCOUNT, userId: 'u', permissions: ['reporting:write'], correlationId: 'c' };

/** 12 updates on two hits whose outcome depends on their order: conversions added, replaced and removed, events counted. */
function updates(): AcceptedUpdate[] {
  return Array.from({ length: 12 }, (_, i): AcceptedUpdate => {
    const hitId = HITS[i % 2];
    if (i % 4 === 3) return { type: 'customevents', update: parseCustomEventsUpdate({ hits: [{ hitId, eventNumber: 1, count: i }] }) };
    const payout = i % 5 === 4 ? '-1' : String(i + 1);
    return {
      type: 'conversions',
      update: parseConversionsUpdate({
        hits: [
          { hitId, payout, transactionId: `T${i % 3}`, time: '2026-01-10T13:00:00Z' },
          { hitId: 'HIT000000404', payout: '1' },
        ],
      }),
    };
  });
}

/** Accepts the updates, starts the worker with `wrap(apply)` and waits until every job is recorded done: the hits and the jobs' records. */
async function drain(wrap: (apply: ApplyUpdate) => ApplyUpdate) {
  const dir = tempDir('update-groups');
  const events = createEventStore({ dataDir: dir.path });
  const store = await openTempHitStore();
  await store.insertHits(HITS.map((hitId) => aHit({ hitId, accountId: ACCOUNT, idTrafficSource: 'organic' })));
  const filename = join(dir.path, 'queue.sqlite');
  const queue = new EmbeddedJobQueue<UpdatePayload>({ name: 'updates', subjectPrefix: 'u', filename, backoffMs: [10] });
  const postbacks = new EmbeddedJobQueue<PostbackPayload>({ name: 'postbacks', subjectPrefix: 'p', filename });
  try {
    const records = new JobRecords(events);
    const accepting = new ReportingUpdates(queue, records, new IdempotencyKeys(events));
    const jobIds: string[] = [];
    for (const update of updates()) jobIds.push(...(await accepting.accept(context, update)).jobIds);
    await new UpdateWorker(
      queue,
      postbacks,
      wrap(applyReportingUpdate({ hits: store, sources: async () => undefined })),
      { workerConcurrency: 2 },
      records,
    ).onApplicationBootstrap();
    await waitFor(async () => (await Promise.all(jobIds.map((jobId) => records.get(ACCOUNT, jobId)))).every((job) => job?.status === 'done'));
    const jobs = await Promise.all(jobIds.map(async (jobId) => (await records.get(ACCOUNT, jobId))!.counts));
    return { hits: (await store.getHits(ACCOUNT, HITS)).sort((a, b) => (a.hitId < b.hitId ? -1 : 1)), jobs };
  } finally {
    await Promise.all([queue.close(), postbacks.close()]);
    await store.close();
    await events.close();
    dir.remove();
  }
}

/** The same updates applied one at a time, in order, straight on a store: what the worker must come to. */
async function oneByOne() {
  const store = await openTempHitStore();
  await store.insertHits(HITS.map((hitId) => aHit({ hitId, accountId: ACCOUNT, idTrafficSource: 'organic' })));
  const apply = applyReportingUpdate({ hits: store, sources: async () => undefined });
  const jobs = [];
  for (const [i, { type, update }] of updates().entries())
    jobs.push((await apply({ jobId: `JOB${i}`, type, accountId: ACCOUNT, queuedAt: '2026-01-10T14:00:00.000Z', payload: update } as UpdateJob)).counts);
  const hits = (await store.getHits(ACCOUNT, HITS)).sort((a, b) => (a.hitId < b.hitId ? -1 : 1));
  await store.close();
  return { hits, jobs };
}

const comparable = ({ hits, jobs }: Awaited<ReturnType<typeof oneByOne>>) => ({
  conversions: hits.map((hit) => hit.conversions.map((c) => `${c.transactionId}:${c.payout}`)),
  customEvents: hits.map((hit) => hit.customEvents),
  jobs,
});

describe('small jobs of an account applied in groups (embedded queue, one process)', () => {
  it('come to the hits and job results of applying them one by one in acceptance order, several jobs a write', async () => {
    const groups: number[] = [];
    const applied = await drain((apply) =>
      Object.assign((job: UpdateJob) => apply(job), {
        group: {
          rows: apply.group!.rows,
          apply: (jobs: readonly UpdateJob[]) => {
            groups.push(jobs.length);
            return apply.group!.apply(jobs);
          },
        },
      }),
    );
    expect(comparable(applied)).toEqual(comparable(await oneByOne()));
    expect(Math.max(...groups)).toBeGreaterThan(1);
  });

  it('apply each job once when a group fails: its first job alone, the others in their turn', async () => {
    let failures = 0;
    const applied = await drain((apply) =>
      Object.assign((job: UpdateJob) => apply(job), {
        group: {
          rows: apply.group!.rows,
          apply: async (jobs: readonly UpdateJob[]) => {
            // The group's write fails (a disk gone for a moment): nothing of it is written.
            if (failures++ < 2) throw new Error('disk unavailable');
            return apply.group!.apply(jobs);
          },
        },
      }),
    );
    expect(failures).toBeGreaterThan(2);
    expect(comparable(applied)).toEqual(comparable(await oneByOne()));
  });
});
