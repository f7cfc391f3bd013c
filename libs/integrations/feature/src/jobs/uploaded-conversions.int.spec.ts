import { join } from 'node:path';
import { SqliteEventStore } from '@funnel/eventstore';
import type { AdPlatform } from '@funnel/integrations-domain';
import { EmbeddedReadStore } from '@funnel/readstore';
import { tempDir, type TempDir } from '@funnel/testing';
import {
  type ConversionsUploaded,
  type UploadedBatch,
  UPLOAD_RECORD_MARGIN_DAYS,
  UPLOAD_RECORD_PRUNE_INTERVAL_MS,
  UploadStreams,
  UploadedConversions,
  uploadRecordRetentionMs,
} from './uploaded-conversions';

const DAY = 86_400_000;
const ACCOUNT = 'ACCOUNT00001';
const GOAL = { adAccountId: 'A1', goalId: 'G1' };
const platformWith = (uploadMaxAgeDays: number | null, conversionUpload = true) => ({ capabilities: { conversionUpload, uploadMaxAgeDays } }) as AdPlatform;

describe('uploadRecordRetentionMs', () => {
  it('is the longest upload window of the providers that upload, plus the margin; for good when one takes any age', () => {
    expect(uploadRecordRetentionMs([platformWith(7), platformWith(90), platformWith(null, false)])).toBe((90 + UPLOAD_RECORD_MARGIN_DAYS) * DAY);
    expect(uploadRecordRetentionMs([platformWith(7), platformWith(null)])).toBe(Infinity);
  });
});

describe('UploadedConversions: records of sent conversions, kept for the retention', () => {
  let dir: TempDir;
  let eventStore: SqliteEventStore;
  let readStore: EmbeddedReadStore;
  let now: number;
  const clock = () => now;
  const RETENTION = 10 * DAY;
  const opened: UploadedConversions[] = [];

  const legacyBatch = (eventIds: string[], uploadedAt = new Date(now).toISOString()): ConversionsUploaded['data'] => ({
    accountId: ACCOUNT,
    idIntegration: 'INTEGRATION1',
    ...GOAL,
    eventIds,
    accepted: eventIds.length,
    rejected: 0,
    uploadedAt,
  });
  /** A batch taken now of conversions that happened an hour before (or at `occurredAt`). */
  const batch = (eventIds: string[], occurredAt = new Date(now - 3_600_000).toISOString()): UploadedBatch => {
    const { eventIds: _, ...data } = legacyBatch(eventIds);
    return { ...data, conversions: eventIds.map((eventId) => ({ eventId, occurredAt })) };
  };
  /** Which of the conversions (at `occurredAt`, by default an hour before their first upload) were sent. */
  const sent = (uploaded: UploadedConversions, eventIds: string[], occurredAt = '2026-03-12T09:00:00.000Z') =>
    uploaded
      .sent(
        ACCOUNT,
        'INTEGRATION1',
        GOAL,
        eventIds.map((eventId) => ({ eventId, occurredAt })),
      )
      .then((set) => [...set].sort());
  async function start(): Promise<UploadedConversions> {
    const uploaded = new UploadedConversions(eventStore, readStore, RETENTION, clock);
    opened.push(uploaded);
    await uploaded.start();
    return uploaded;
  }
  /** The same files opened again, as after a restart of the process. */
  async function restart(): Promise<void> {
    for (const uploaded of opened.splice(0)) await uploaded.stop();
    await readStore.close();
    await eventStore.close();
    eventStore = new SqliteEventStore({ filename: join(dir.path, 'events.sqlite'), pollIntervalMs: 10 });
    readStore = new EmbeddedReadStore({ stateFile: join(dir.path, 'readstate.sqlite') });
  }

  beforeEach(() => {
    dir = tempDir('uploaded-conversions');
    eventStore = new SqliteEventStore({ filename: join(dir.path, 'events.sqlite'), pollIntervalMs: 10 });
    readStore = new EmbeddedReadStore({ stateFile: join(dir.path, 'readstate.sqlite') });
    now = Date.parse('2026-03-12T10:00:00Z');
  });

  afterEach(async () => {
    for (const uploaded of opened.splice(0)) await uploaded.stop();
    await readStore.close();
    await eventStore.close();
    dir.remove();
  });

  it('answers what was sent across a restart, and appends nothing to the event log', async () => {
    const uploaded = await start();
    await uploaded.record(batch(['E1', 'E2']));
    expect(await sent(uploaded, ['E1', 'E2', 'E3'])).toEqual(['E1', 'E2']);
    await restart();
    expect(await sent(await start(), ['E1', 'E2', 'E3'])).toEqual(['E1', 'E2']);
    expect(await eventStore.headPosition()).toMatchObject({ commit: -1n });
  });

  it('deletes the records older than the retention as uploads record batches (at most once per interval) and at start', async () => {
    const uploaded = await start();
    await uploaded.record(batch(['OLD']));
    now += RETENTION - DAY;
    await uploaded.record(batch(['NEWER']));
    // Past the retention of the first, within the interval since the last look: still there.
    now += 2 * DAY;
    expect(await sent(uploaded, ['OLD', 'NEWER'])).toEqual(['NEWER', 'OLD']);
    now += UPLOAD_RECORD_PRUNE_INTERVAL_MS;
    await uploaded.record(batch(['LATEST']));
    expect(await sent(uploaded, ['OLD', 'NEWER', 'LATEST'])).toEqual(['LATEST', 'NEWER']);
    // The next one expires while the process is down: gone after the restart.
    now += RETENTION - 2 * DAY;
    await restart();
    const restarted = await start();
    expect(await sent(restarted, ['OLD', 'NEWER', 'LATEST'])).toEqual(['LATEST']);
    expect(await readStore.collection('integration_uploaded_conversions', { persistent: true }).countDocuments()).toBe(1);
  });

  it('reads the upload events earlier versions appended, those still within the retention', async () => {
    const append = (jobId: string, data: ConversionsUploaded['data']) =>
      eventStore.append(UploadStreams.upload(ACCOUNT, jobId), [{ type: 'ConversionsUploaded', data, metadata: { accountId: ACCOUNT } }]);
    await append('UPLOADJOB001', legacyBatch(['EXPIRED'], new Date(now - RETENTION - DAY).toISOString()));
    await append('UPLOADJOB002', legacyBatch(['KEPT'], new Date(now - DAY).toISOString()));
    const uploaded = await start();
    expect(await sent(uploaded, ['EXPIRED', 'KEPT'])).toEqual(['KEPT']);
  });

  it("keeps a record for the retention past its conversion's time when a later send finds that time moved past the upload", async () => {
    const uploaded = await start();
    const uploadedAt = now;
    await uploaded.record(batch(['MOVED', 'STILL']));
    // A later job applies MOVED again with a time 5 days after the upload: found sent, and kept from then on.
    now += 6 * DAY;
    const movedTo = new Date(uploadedAt + 5 * DAY).toISOString();
    expect(await uploaded.sent(ACCOUNT, 'INTEGRATION1', GOAL, [{ eventId: 'MOVED', occurredAt: movedTo }]).then((set) => [...set])).toEqual(['MOVED']);
    // Past the upload's retention, within the moved time's: only MOVED is left, also across a restart.
    now = uploadedAt + RETENTION + DAY + UPLOAD_RECORD_PRUNE_INTERVAL_MS;
    await uploaded.record(batch(['LATEST']));
    expect(await sent(uploaded, ['MOVED', 'STILL'])).toEqual(['MOVED']);
    await restart();
    expect(await sent(await start(), ['MOVED', 'STILL'])).toEqual(['MOVED']);
    // Once the retention past the moved time ends, it goes too.
    now = uploadedAt + 5 * DAY + RETENTION + DAY;
    await restart();
    expect(await sent(await start(), ['MOVED', 'STILL'])).toEqual([]);
  });

  it('keeps records written before they held keptFrom from their upload', async () => {
    const documents = readStore.collection('integration_uploaded_conversions', { persistent: true });
    const uploaded = await start();
    await uploaded.record(batch(['OLDER']));
    await documents.bulkWrite([{ updateMany: { filter: {}, update: { $unset: { keptFrom: '', keptDay: '' } } } }]);
    await restart();
    const restarted = await start();
    expect(await sent(restarted, ['OLDER'])).toEqual(['OLDER']);
    now += RETENTION + DAY;
    await restart();
    expect(await sent(await start(), ['OLDER'])).toEqual([]);
  });
});
