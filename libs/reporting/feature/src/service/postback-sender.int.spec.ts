import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { createEventStore, type EventStore } from '@funnel/eventstore';
import { OutboundHttp } from '@funnel/platform';
import { eventually, tempDir } from '@funnel/testing';
import { EmbeddedJobQueue } from '../queue/embedded-job-queue';
import { JobRecords } from './job-records';
import { PostbackSender } from './postback-sender';
import type { PostbackPayload } from './reporting.tokens';

/** The postback sender on real parts: an embedded queue, the SQLite event log, OutboundHttp, a local receiver. */
describe('PostbackSender', () => {
  const dir = tempDir('postback-sender');
  let receiver: Server;
  let base: string;
  const answers: number[] = [];
  const calls: string[] = [];
  let events: EventStore;

  beforeAll(async () => {
    receiver = createServer((req, res) => {
      calls.push(req.url ?? '');
      res.writeHead(answers.shift() ?? 200).end();
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
    events = createEventStore({ dataDir: dir.path });
  });

  afterAll(async () => {
    await events.close();
    receiver.closeAllConnections();
    await new Promise((resolve) => receiver.close(resolve));
    dir.remove();
  });

  async function sendOne(name: string, url: string, allowPrivate: boolean) {
    const records = new JobRecords(events);
    const queue = new EmbeddedJobQueue<PostbackPayload>({
      name,
      subjectPrefix: 'p',
      filename: join(dir.path, 'queue.sqlite'),
      backoffMs: [50],
      maxAttempts: 5,
      pollIntervalMs: 20,
    });
    const http = new OutboundHttp({ allowPrivate });
    const sender = new PostbackSender(queue, http, { postbackConcurrency: 2 }, records);
    const jobId = `job-${name}`;
    const deliveryId = `${jobId}:0`;
    try {
      await records.postbacksQueued('ACCOUNT00001', jobId, [{ deliveryId, hitId: 'HIT000000001', url: `${url} (masked)`, action: 'call' }]);
      await sender.onApplicationBootstrap();
      await queue.enqueue([
        {
          jobId: deliveryId,
          type: 'postback',
          accountId: 'ACCOUNT00001',
          queuedAt: new Date().toISOString(),
          payload: { jobId, deliveryId, hitId: 'HIT000000001', url },
        },
      ]);
      return await eventually(async () => {
        const [listed] = await records.postbacks('ACCOUNT00001', jobId);
        expect(listed.status).not.toBe('queued');
        return listed;
      }, 20_000);
    } finally {
      await queue.close();
      await http.close();
    }
  }

  it('retries a failed delivery after its backoff and lists it delivered with its attempts', async () => {
    answers.push(503);
    const listed = await sendOne('retry', `${base}/pb?x=1`, true);
    expect(listed).toEqual({ hitId: 'HIT000000001', url: `${base}/pb?x=1 (masked)`, status: 'delivered', attempts: 2, lastError: null });
    expect(calls.filter((call) => call === '/pb?x=1')).toHaveLength(2);
  });

  it('gives up after 5 attempts', async () => {
    answers.push(500, 500, 500, 500, 500);
    expect(await sendOne('exhausted', `${base}/pb?x=2`, true)).toMatchObject({ status: 'failed', attempts: 5, lastError: 'HTTP 500' });
    expect(calls.filter((call) => call === '/pb?x=2')).toHaveLength(5);
  });

  it('fails at once, without connecting, when the SSRF rule refuses the address', async () => {
    const listed = await sendOne('refused', `${base}/pb?x=3`, false);
    expect(listed).toMatchObject({ status: 'failed', attempts: 1, lastError: expect.stringMatching(/^OUTBOUND\.ADDRESS_REFUSED/) });
    expect(calls).not.toContain('/pb?x=3');
  });
});
