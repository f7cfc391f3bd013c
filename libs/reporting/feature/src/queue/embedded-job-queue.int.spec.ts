import { spawn } from 'node:child_process';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '@funnel/testing';
import { EmbeddedJobQueue } from './embedded-job-queue';
import { appendRawJobs } from './job-queue-baseline';
import type { JobDelivery } from './job-queue';
import { describeJobQueueContract, waitFor } from './job-queue.contract';

describeJobQueueContract('embedded (SQLite)', async () => {
  const dir = tempDir('embedded-job-queue');
  const filename = join(dir.path, 'queue.sqlite');
  return {
    open: async (options) => new EmbeddedJobQueue({ ...options, filename, pollIntervalMs: 100 }),
    // Nothing runs besides the file: closing every instance and reopening it is the restart.
    restart: async () => undefined,
    cleanup: async () => dir.remove(),
  };
});

describe('EmbeddedJobQueue', () => {
  const options = { name: 'REPORTING_UPDATES', subjectPrefix: 'reporting.updates', ackWaitMs: 1000 };
  /** A lease no test outlives: a job found again within the test was released, not timed out. */
  const LONG_LEASE_MS = 600_000;
  const envelope = (jobId: string, accountId = 'account-1') => ({
    jobId,
    type: 'conversions',
    accountId,
    payload: { rows: 3 },
    queuedAt: '2026-01-01T00:00:00.000Z',
  });

  /** Starts fixtures/crash-mid-job.ts on the file: it takes the first job and dies (or, `hold`, keeps it); resolves with its delivery. */
  async function childTakingFirstJob(filename: string, mode: 'crash' | 'hold') {
    const child = spawn(
      process.execPath,
      [
        '-r',
        './tools/register.js',
        join(__dirname, 'fixtures', 'crash-mid-job.ts'),
        filename,
        options.name,
        options.subjectPrefix,
        String(LONG_LEASE_MS),
        mode,
      ],
      { cwd: join(__dirname, '../../../../..'), stdio: ['ignore', 'pipe', 'inherit'] },
    );
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.once('exit', (_code, killedBy) => resolve(killedBy)));
    const line = await new Promise<string>((resolve, reject) => {
      let stdout = '';
      child.stdout.on('data', (chunk: Buffer) => {
        stdout += chunk.toString();
        if (stdout.includes('\n')) resolve(stdout.split('\n')[0]);
      });
      child.once('exit', () => reject(new Error(`the child exited before taking a job: ${stdout}`)));
    });
    return { child, exited, delivery: JSON.parse(line) as JobDelivery };
  }

  it('gives the job of a process killed mid-job to the next process at once, its lease released, and the account order kept', async () => {
    const dir = tempDir('embedded-job-queue-crash');
    const filename = join(dir.path, 'queue.sqlite');
    const producer = new EmbeddedJobQueue({ ...options, filename });
    await producer.enqueue([envelope('job-1'), envelope('job-2')]);
    await producer.close();

    const { delivery, exited } = await childTakingFirstJob(filename, 'crash');
    expect(await exited).toBe('SIGKILL');
    expect(delivery).toMatchObject({ job: { jobId: 'job-1' }, attempt: 1 });

    // The dead process's lease has 10 minutes left: the restarted consumer releases it at start.
    const restarted = new EmbeddedJobQueue({ ...options, ackWaitMs: LONG_LEASE_MS, filename, pollIntervalMs: 50 });
    expect(await restarted.depth()).toBe(2);
    const deliveries: JobDelivery[] = [];
    await restarted.consume(
      async (d) => {
        if (!(await d.untilFirstOfAccount(10_000))) throw new Error(`${d.job.jobId} ran before an earlier job of its account`);
        deliveries.push(d);
      },
      { concurrency: 2 },
    );
    await waitFor(async () => deliveries.length === 2 && (await restarted.depth()) === 0);
    expect(deliveries).toEqual([
      { job: envelope('job-1'), attempt: 2 },
      { job: envelope('job-2'), attempt: 1 },
    ]);
    await restarted.close();
    dir.remove();
  });

  it('refuses a second process consuming the file while the first runs, and takes over once it died', async () => {
    const dir = tempDir('embedded-job-queue-owner');
    const filename = join(dir.path, 'queue.sqlite');
    const producer = new EmbeddedJobQueue({ ...options, filename });
    await producer.enqueue([envelope('job-1')]);
    await producer.close();

    const { child, exited } = await childTakingFirstJob(filename, 'hold');
    const second = new EmbeddedJobQueue({ ...options, ackWaitMs: LONG_LEASE_MS, filename, pollIntervalMs: 50 });
    const deliveries: JobDelivery[] = [];
    await expect(second.consume(async (d) => void deliveries.push(d))).rejects.toThrow(/consumed by another running process/);
    // Enqueueing needs no ownership.
    expect(await second.enqueue([envelope('job-2')])).toEqual({ duplicates: [] });

    child.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');
    await second.consume(async (d) => void deliveries.push(d));
    await waitFor(async () => deliveries.length === 2 && (await second.depth()) === 0);
    expect(deliveries.map((d) => [d.job.jobId, d.attempt])).toEqual([
      ['job-1', 2],
      ['job-2', 1],
    ]);
    await second.close();
    dir.remove();
  });

  it('writes a multi-MB job while the event loop keeps running (a worker thread), refusing its id again as a duplicate', async () => {
    const dir = tempDir('embedded-job-queue-large');
    const queue = new EmbeddedJobQueue({ ...options, filename: join(dir.path, 'queue.sqlite') });
    const rows = Array.from({ length: 10_000 }, (_, i) => ({ hitId: `hit-${i}`, transactionId: `${i}-${'é'.repeat(250)}`, payout: i }));
    const large = { ...envelope('job-large'), payload: { rows } };
    let turns = 0;
    let counting = true;
    const turn = () => {
      if (!counting) return;
      turns += 1;
      setImmediate(turn);
    };
    setImmediate(turn);
    // Stringifying stays on the event loop; the INSERT of the ~5 MB row does not.
    const stored = await queue.enqueue([large]);
    counting = false;
    expect(stored).toEqual({ duplicates: [] });
    expect(turns).toBeGreaterThan(0);
    expect(await queue.enqueue([large, envelope('job-small')])).toEqual({ duplicates: ['job-large'] });
    const deliveries: JobDelivery[] = [];
    await queue.consume(async (d) => void deliveries.push(d));
    await waitFor(() => deliveries.length === 2);
    expect(deliveries.map((d) => d.job)).toEqual([large, envelope('job-small')]);
    await queue.close();
    dir.remove();
  });

  it('keeps each queue in its own table of a file shared with other data, readable by its owner only', async () => {
    const dir = tempDir('embedded-job-queue-shared');
    const filename = join(dir.path, 'data.sqlite');
    const updates = new EmbeddedJobQueue({ ...options, filename });
    const postbacks = new EmbeddedJobQueue({ ...options, name: 'REPORTING_POSTBACKS', subjectPrefix: 'reporting.postbacks', filename });
    const envelope = { jobId: 'same-id', type: 'postback', accountId: 'account-1', payload: {}, queuedAt: '2026-01-01T00:00:00.000Z' };
    expect(await updates.enqueue([envelope])).toEqual({ duplicates: [] });
    expect(await postbacks.enqueue([envelope])).toEqual({ duplicates: [] });
    expect([await updates.depth(), await postbacks.depth()]).toEqual([1, 1]);
    expect(statSync(filename).mode & 0o777).toBe(0o600);
    await Promise.all([updates.close(), postbacks.close()]);
  });

  it('accepts a job id again once its dedupe window passed and the job was handled', async () => {
    const dir = tempDir('embedded-job-queue-window');
    const queue = new EmbeddedJobQueue({ ...options, filename: join(dir.path, 'queue.sqlite'), dedupeWindowMs: 200 });
    const envelope = { jobId: 'job-1', type: 'reset', accountId: 'account-1', payload: { n: 1 }, queuedAt: '2026-01-01T00:00:00.000Z' };
    await queue.enqueue([envelope]);
    await new Promise((resolve) => setTimeout(resolve, 250));
    // Still queued: refused whatever its age.
    expect(await queue.enqueue([envelope])).toEqual({ duplicates: ['job-1'] });
    const deliveries: JobDelivery[] = [];
    await queue.consume(async (delivery) => void deliveries.push(delivery));
    await waitFor(async () => (await queue.depth()) === 0);
    expect(await queue.enqueue([{ ...envelope, payload: { n: 2 } }])).toEqual({ duplicates: [] });
    await waitFor(() => deliveries.length === 2);
    expect(deliveries.map((d) => [d.job.payload, d.attempt])).toEqual([
      [{ n: 1 }, 1],
      [{ n: 2 }, 1],
    ]);
    await queue.close();
  });

  it('refuses bad names and types before storing anything', async () => {
    const dir = tempDir('embedded-job-queue-names');
    const filename = join(dir.path, 'queue.sqlite');
    expect(() => new EmbeddedJobQueue({ ...options, name: 'x"; DROP TABLE y; --', filename })).toThrow(/letters, digits/);
    const queue = new EmbeddedJobQueue({ ...options, filename });
    const envelope = { jobId: 'job-1', type: 'conversions', accountId: 'account-1', payload: {}, queuedAt: '2026-01-01T00:00:00.000Z' };
    await expect(queue.enqueue([envelope, { ...envelope, jobId: 'job-2', type: 'a.b' }])).rejects.toThrow(/type "a.b"/);
    expect(await queue.depth()).toBe(0);
    await queue.close();
    await expect(queue.enqueue([envelope])).rejects.toThrow(/closed/);
  });
});

describe('appendRawJobs', () => {
  it('appends the given number of jobs carrying payloads of the given size', async () => {
    const dir = tempDir('embedded-job-queue-baseline');
    const queue = new EmbeddedJobQueue<string>({ name: 'BASELINE', subjectPrefix: 'baseline', filename: join(dir.path, 'queue.sqlite') });
    const result = await appendRawJobs(queue, { count: 20, payload: 1000, parallel: 4 });
    expect(result).toMatchObject({ jobs: 20, bytes: 20_000 });
    expect(await queue.depth()).toBe(20);
    const payloads: string[] = [];
    await queue.consume(async (delivery) => void payloads.push(delivery.job.payload));
    await waitFor(() => payloads.length === 20);
    expect(new Set(payloads)).toEqual(new Set(['x'.repeat(1000)]));
    await queue.close();
  });
});
