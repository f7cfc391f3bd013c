import { JobEvent, foldJob } from './job-record';
import { PostbackEvent, foldPostbacks } from './postback-record';

const queued: JobEvent = { type: 'ReportingJobQueued', data: { jobId: 'J', type: 'conversions', rows: 3, queuedAt: '2026-01-01T00:00:00.000Z' } };
const started = (at: string, attempt = 1): JobEvent => ({ type: 'ReportingJobStarted', data: { startedAt: at, attempt } });
const counts = { rows: 3, applied: 2, noop: 0, notFound: 1, failed: 0 };
const finished: JobEvent = { type: 'ReportingJobFinished', data: { status: 'done', finishedAt: '2026-01-01T00:00:05.000Z', counts, errors: [] } };

describe('job record', () => {
  it('goes queued -> running -> done, keeping the first start across redeliveries', () => {
    expect(foldJob([])).toBeUndefined();
    expect(foldJob([queued])).toMatchObject({ status: 'queued', startedAt: null, counts: { rows: 3, applied: 0 } });
    expect(foldJob([queued, started('2026-01-01T00:00:01.000Z'), started('2026-01-01T00:00:03.000Z', 2)])).toMatchObject({
      status: 'running',
      startedAt: '2026-01-01T00:00:01.000Z',
    });
    expect(foldJob([queued, started('2026-01-01T00:00:01.000Z'), finished])).toMatchObject({ status: 'done', finishedAt: '2026-01-01T00:00:05.000Z', counts });
  });

  it('is not reopened by a redelivery after it finished', () => {
    expect(foldJob([queued, started('2026-01-01T00:00:01.000Z'), finished, started('2026-01-01T00:00:09.000Z', 2)])).toMatchObject({ status: 'done' });
  });
});

describe('postback records', () => {
  const queuedPostbacks: PostbackEvent = {
    type: 'ReportingPostbacksQueued',
    data: {
      postbacks: [
        { deliveryId: 'J:0', hitId: 'h0', url: 'https://x/?token=********', action: 'call' },
        { deliveryId: 'J:1', hitId: 'h1', url: 'https://x/pixel', action: 'record' },
      ],
    },
  };
  const attempt = (deliveryId: string, n: number, outcome: 'delivered' | 'retrying' | 'failed', error: string | null = null): PostbackEvent => ({
    type: 'ReportingPostbackAttempted',
    data: { deliveryId, attempt: n, outcome, error },
  });

  it('lists each delivery once with its attempts, status and last error', () => {
    expect(foldPostbacks([queuedPostbacks, queuedPostbacks, attempt('J:0', 1, 'retrying', 'HTTP 500')])).toEqual([
      { hitId: 'h0', url: 'https://x/?token=********', status: 'queued', attempts: 1, lastError: 'HTTP 500' },
      { hitId: 'h1', url: 'https://x/pixel', status: 'recorded', attempts: 0, lastError: null },
    ]);
    expect(foldPostbacks([queuedPostbacks, attempt('J:0', 1, 'retrying', 'HTTP 500'), attempt('J:0', 2, 'delivered')])[0]).toMatchObject({
      status: 'delivered',
      attempts: 2,
      lastError: null,
    });
    expect(foldPostbacks([queuedPostbacks, attempt('J:0', 5, 'failed', 'HTTP 500')])[0]).toMatchObject({ status: 'failed', attempts: 5 });
  });

  it('keeps a delivered postback delivered when a late attempt of a redelivery is recorded', () => {
    expect(foldPostbacks([queuedPostbacks, attempt('J:0', 1, 'delivered'), attempt('J:0', 2, 'retrying', 'timeout')])[0]).toMatchObject({
      status: 'delivered',
      attempts: 1,
    });
  });
});
