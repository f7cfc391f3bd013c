import type { Hit } from '@funnel/reporting-domain';
import type { JobEnvelope } from '../queue/job-queue';
import type { UpdatePayload, UpdatesQueue } from '../service/reporting.tokens';
import { IncomingIntake, IncomingOutcomes } from './incoming-batches';
import type { IncomingLogEntry, IncomingLogStore } from './incoming-log-store';

const entry = (n: number, more: Partial<IncomingLogEntry> = {}): IncomingLogEntry => ({
  accountId: 'acc',
  postbackId: `pb${n}`,
  timeMs: 1_700_000_000_000 + n,
  source: 'postback',
  hitId: `hit${n}`,
  transactionId: '',
  revenue: '1',
  payout: '1',
  ip: '127.0.0.1',
  outcome: 'queued',
  reason: null,
  jobId: `job${n}`,
  idFunnel: '',
  idTrafficSource: '',
  updatedMs: 0,
  ...more,
});

const job = (n: number): JobEnvelope<UpdatePayload> => ({
  jobId: `job${n}`,
  type: 'conversions',
  accountId: 'acc',
  queuedAt: new Date(0).toISOString(),
  payload: { hits: [{ hitId: `hit${n}`, payout: '1', transactionId: '' }] } as unknown as UpdatePayload,
});

function recorder(options: { failEnqueue?: boolean } = {}) {
  const writes: string[] = [];
  const queue = {
    enqueue: async (jobs: readonly JobEnvelope<UpdatePayload>[]) => {
      if (options.failEnqueue) throw new Error('disk full');
      writes.push(`enqueue ${jobs.map((j) => j.jobId).join(',')}`);
      return { duplicates: [] };
    },
  } as unknown as UpdatesQueue;
  const resolvedRows: IncomingLogEntry[][] = [];
  const log = {
    received: async (entries: readonly IncomingLogEntry[]) => void writes.push(`received ${entries.map((e) => e.postbackId).join(',')}`),
    resolved: async (entries: readonly IncomingLogEntry[]) => {
      resolvedRows.push(entries.map((e) => ({ ...e })));
      writes.push(`resolved ${entries.map((e) => e.postbackId).join(',')}`);
    },
  } as unknown as IncomingLogStore;
  return { writes, queue, log, resolvedRows };
}

describe('incoming postbacks: concurrent postbacks share their writes', () => {
  it('keeps concurrent postbacks with one enqueue, then one log write, and answers each once both are done', async () => {
    const { writes, queue, log } = recorder();
    const intake = new IncomingIntake(queue, log);
    const answered: number[] = [];
    const kept = [1, 2, 3].map((n) => intake.keep({ entry: entry(n), job: job(n) }).then(() => answered.push(n)));
    // An invalid postback has no job: only its row is written, in the same log write.
    kept.push(intake.keep({ entry: entry(4, { outcome: 'invalid', jobId: null }) }).then(() => answered.push(4)));
    expect(answered).toEqual([]);
    await Promise.all(kept);
    expect(writes).toEqual(['enqueue job1,job2,job3', 'received pb1,pb2,pb3,pb4']);
    expect(answered.sort()).toEqual([1, 2, 3, 4]);
    expect(intake.writes).toBe(1);
  });

  it('refuses every postback of a batch whose enqueue failed, and logs none of them', async () => {
    const { writes, queue, log } = recorder({ failEnqueue: true });
    const intake = new IncomingIntake(queue, log);
    const results = await Promise.allSettled([1, 2].map((n) => intake.keep({ entry: entry(n), job: job(n) })));
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect(writes).toEqual([]);
  });

  it('writes the outcomes of concurrent jobs as one log write, looking up the hits of the rows that lack their funnel once per account', async () => {
    const { queue: _queue, log, writes, resolvedRows } = recorder();
    const lookups: Array<[string, readonly string[]]> = [];
    const hits = {
      getHits: async (accountId: string, hitIds: readonly string[]) => {
        lookups.push([accountId, [...hitIds]]);
        return hitIds.filter((id) => id !== 'hit2').map((hitId) => ({ hitId, idFunnel: `f-${hitId}`, idTrafficSource: `ts-${hitId}` }) as Hit);
      },
    };
    const outcomes = new IncomingOutcomes(log, hits);
    await Promise.all([
      outcomes.resolve(entry(1, { outcome: 'applied' })),
      outcomes.resolve(entry(2, { outcome: 'applied' })),
      outcomes.resolve(entry(3, { outcome: 'unknownHit' })),
      outcomes.resolve(entry(5, { outcome: 'applied', idFunnel: 'known', idTrafficSource: 'known-ts' })),
    ]);
    expect(lookups).toEqual([['acc', ['hit1', 'hit2']]]);
    expect(writes).toEqual(['resolved pb1,pb2,pb3,pb5']);
    expect(resolvedRows[0].map((e) => [e.postbackId, e.outcome, e.idFunnel, e.idTrafficSource])).toEqual([
      ['pb1', 'applied', 'f-hit1', 'ts-hit1'],
      ['pb2', 'applied', '', ''],
      ['pb3', 'unknownHit', '', ''],
      ['pb5', 'applied', 'known', 'known-ts'],
    ]);
  });
});
