import { join } from 'node:path';
import { ServiceError, parseCustomEventsUpdate } from '@funnel/contracts';
import { createEventStore, type EventStore } from '@funnel/eventstore';
import { tempDir } from '@funnel/testing';
import { EmbeddedJobQueue } from '../queue/embedded-job-queue';
import { IdempotencyKeys, JobRecords } from './job-records';
import { ReportingUpdates } from './reporting-updates';
import type { UpdatePayload } from './reporting.tokens';

/** Accepting updates on real parts: the SQLite event log (job records, keys) and an embedded queue. */
describe('ReportingUpdates', () => {
  const dir = tempDir('reporting-updates');
  let events: EventStore;
  let queue: EmbeddedJobQueue<UpdatePayload>;
  let updates: ReportingUpdates;
  const context = (accountId: string) => ({ accountId, userId: 'u', permissions: ['reporting:write'], correlationId: 'c' });
  const update = (eventNumber: number) => ({
    type: 'customevents' as const,
    update: parseCustomEventsUpdate({ hits: [{ hitId: 'HIT000000001', eventNumber, time: '2026-01-10T12:00:00Z' }] }),
  });

  beforeAll(() => {
    events = createEventStore({ dataDir: dir.path });
    queue = new EmbeddedJobQueue<UpdatePayload>({ name: 'updates', subjectPrefix: 'u', filename: join(dir.path, 'queue.sqlite') });
    const records = new JobRecords(events);
    updates = new ReportingUpdates(queue, records, new IdempotencyKeys(events));
  });

  afterAll(async () => {
    await queue.close();
    await events.close();
    dir.remove();
  });

  it('records and queues one job per accepted update', async () => {
    const before = await queue.depth();
    const accepted = await updates.accept(context('ACCOUNT00001'), update(1));
    expect(await queue.depth()).toBe(before + 1);
    expect(await new JobRecords(events).get('ACCOUNT00001', accepted.jobIds[0])).toMatchObject({ status: 'queued', type: 'customevents', counts: { rows: 1 } });
    expect(await new JobRecords(events).get('ACCOUNT00002', accepted.jobIds[0])).toBeUndefined();
  });

  it('gives two racing requests with one key the same job, queued once', async () => {
    const before = await queue.depth();
    const [a, b] = await Promise.all([
      updates.accept(context('ACCOUNT00001'), update(2), 'race-key'),
      updates.accept(context('ACCOUNT00001'), update(2), 'race-key'),
    ]);
    expect(a).toEqual(b);
    expect(await queue.depth()).toBe(before + 1);
  });

  it('keeps keys per account, refuses a key reused with another update, and a malformed key', async () => {
    const mine = await updates.accept(context('ACCOUNT00001'), update(3), 'shared-key');
    const theirs = await updates.accept(context('ACCOUNT00002'), update(3), 'shared-key');
    expect(theirs.jobIds).not.toEqual(mine.jobIds);
    await expect(updates.accept(context('ACCOUNT00001'), update(4), 'shared-key')).rejects.toMatchObject({
      status: 409,
      code: 'REPORTING.IDEMPOTENCY_KEY_REUSED',
    });
    const bad = await updates.accept(context('ACCOUNT00001'), update(3), 'has space').catch((error: ServiceError) => error);
    expect(bad).toMatchObject({ status: 400, details: [expect.objectContaining({ field: 'Idempotency-Key' })] });
  });
});
