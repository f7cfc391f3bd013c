import { promisify } from 'node:util';
import { gunzip, gzip } from 'node:zlib';
import {
  AckPolicy,
  DeliverPolicy,
  DiscardPolicy,
  Events,
  RetentionPolicy,
  StorageType,
  nanos,
  type Consumer,
  type ConsumerConfig,
  type ConsumerMessages,
  type JetStreamClient,
  type JetStreamManager,
  type JsMsg,
  type NatsConnection,
  type StreamConfig,
  headers as natsHeaders,
} from 'nats';
import {
  AccountChanges,
  QueueDelivery,
  assertEnqueueable,
  consumerSlots,
  keepAliveEvery,
  report,
  resolveQueueOptions,
  runDelivery,
  type DeliveryOutcome,
  type DeliverySlots,
  type ResolvedQueueOptions,
} from './job-delivery';
import { JobTooLargeError, type JobConsumerOptions, type JobDelivery, type JobEnvelope, type JobQueue, type JobQueueOptions } from './job-queue';

export interface JetStreamJobQueueOptions extends JobQueueOptions {
  /**
   * A connected client, e.g. `connect(natsClientOptions(NATS_URL, natsAccessOptions(access)).options)`
   * with @funnel/platform's helpers; the queue never closes it.
   */
  connection: NatsConnection;
  /** The one durable pull consumer every replica shares (default `workers`). */
  durableName?: string;
  /** Stream replicas in a NATS cluster (default 1). */
  replicas?: number;
  /** How long an enqueue waits for the stream to acknowledge each job (default 5000). */
  publishTimeoutMs?: number;
  /** Jobs whose JSON is larger than this many bytes are stored gzip-compressed (default 64 KiB). */
  compressAboveBytes?: number;
  /**
   * Longest a delivery in `untilFirstOfAccount` waits between two looks at the stream (default
   * 100): a job of the account acknowledged by this process wakes it at once, one acknowledged by
   * another replica is seen at the next look.
   */
  accountPollMs?: number;
}

const DEFAULT_DURABLE_NAME = 'workers';
const DEFAULT_ACCOUNT_POLL_MS = 100;
const DEFAULT_PUBLISH_TIMEOUT_MS = 5000;
/** A pull request waits this long for jobs before the next one: an idle replica sends one request per period. */
const PULL_EXPIRES_MS = 10_000;
/** Wait after a failed pull (server down, consumer missing) before the next. */
const PULL_RETRY_MS = 1000;
const STREAM_NAME_IN_USE = 10058;
const NO_MESSAGE_FOUND = 10037;
const ACCOUNT_TOKEN = /^[A-Za-z0-9_-]+$/;
const DEFAULT_COMPRESS_ABOVE_BYTES = 64 * 1024;
/** The header that marks a gzip-compressed job (and nothing else: a job without it is plain JSON). */
export const JOB_ENCODING_HEADER = 'Content-Encoding';
/**
 * Room left under `max_payload` for the message's headers (Nats-Msg-Id, Nats-Expected-Stream,
 * Content-Encoding): the server counts them in the payload.
 */
const HEADER_ROOM_BYTES = 1024;
const gzipAsync = promisify(gzip);
const gunzipAsync = promisify(gunzip);

/**
 * Durable job queue on a JetStream work-queue stream (file storage) named `options.name`, subjects
 * `<subjectPrefix>.>`, with one durable pull consumer shared by every replica (a work-queue stream
 * refuses overlapping consumers). The job id is the `Nats-Msg-Id`, so the stream's
 * `duplicate_window` (dedupeWindowMs) refuses a second job with the same id.
 *
 * Leases and backoff: the consumer's `ack_wait` is the lease (a job whose process died is delivered
 * again after ackWaitMs), renewed with the message's in-progress signal every ackWaitMs / 3 while
 * the handler runs (up to maxRunMs) or waits; a handler failure naks with the backoff as delay. The consumer's own
 * `backoff` list is not used: the server takes it as the ack deadline of each delivery, so a
 * handler still running after backoff[0] would get its job delivered a second time.
 * `max_deliver` is maxAttempts + 1: the extra delivery only happens when the last attempt's process
 * died, and then exhausts the job (onExhausted, `term`) instead of leaving it in the stream.
 *
 * Size: a job's JSON above `compressAboveBytes` is stored gzip-compressed (header
 * `Content-Encoding: gzip`); a job still larger than the server's `max_payload` (less room for the
 * headers) is refused with a JobTooLargeError before anything is published.
 */
export class JetStreamJobQueue<P = unknown> implements JobQueue<P> {
  private readonly options: ResolvedQueueOptions;
  private readonly nc: NatsConnection;
  private readonly durableName: string;
  private readonly replicas: number;
  private readonly publishTimeoutMs: number;
  private readonly compressAboveBytes: number;
  private readonly accountPollMs: number;
  private readonly accountChanges = new AccountChanges();
  /** The stream sequence of each delivery this queue handed out. */
  private readonly positions = new WeakMap<JobDelivery<unknown>, number>();
  private readonly encoder = new TextEncoder();
  private readonly decoder = new TextDecoder();
  private setup: Promise<{ jsm: JetStreamManager; js: JetStreamClient }> | undefined;
  private consuming = false;
  private loop: Promise<void> | undefined;
  private fetching: ConsumerMessages | undefined;
  private readonly inFlight = new Set<Promise<void>>();
  /** Jobs are decoded one after the other, so handlers start in delivery order even when some are compressed. */
  private decoding: Promise<unknown> = Promise.resolve();
  private wake: (() => void) | undefined;
  private statusEvents: AsyncIterable<unknown> | undefined;
  private closing = false;
  private closed: Promise<void> | undefined;

  constructor(options: JetStreamJobQueueOptions) {
    this.options = resolveQueueOptions(options);
    this.nc = options.connection;
    this.durableName = options.durableName ?? DEFAULT_DURABLE_NAME;
    this.replicas = options.replicas ?? 1;
    this.publishTimeoutMs = options.publishTimeoutMs ?? DEFAULT_PUBLISH_TIMEOUT_MS;
    this.compressAboveBytes = options.compressAboveBytes ?? DEFAULT_COMPRESS_ABOVE_BYTES;
    this.accountPollMs = options.accountPollMs ?? DEFAULT_ACCOUNT_POLL_MS;
  }

  /** The largest job this queue stores, in bytes as stored (compressed when large): the server's max_payload less the headers' room. */
  private maxJobBytes(): number | undefined {
    const maxPayload = this.nc.info?.max_payload;
    return maxPayload === undefined ? undefined : maxPayload - HEADER_ROOM_BYTES;
  }

  /** The job as published: JSON, gzip-compressed above the threshold; refused when still over the server's bound. */
  private async encode(job: JobEnvelope<P>): Promise<{ data: Uint8Array; compressed: boolean }> {
    const json = this.encoder.encode(JSON.stringify(job));
    const compressed = json.length > this.compressAboveBytes;
    const data = compressed ? new Uint8Array(await gzipAsync(json)) : json;
    const limit = this.maxJobBytes();
    if (limit !== undefined && data.length > limit) throw new JobTooLargeError(job.jobId, data.length, limit);
    return { data, compressed };
  }

  /** `<prefix>.<type>.<accountId>`: a job's account is a subject token, so its earlier jobs are found by subject. */
  private subjectOf(type: string, accountId: string): string {
    return `${this.options.subjectPrefix}.${type}.${accountId}`;
  }

  async enqueue(jobs: readonly JobEnvelope<P>[]): Promise<{ duplicates: string[] }> {
    if (this.closing) throw new Error(`job queue ${this.options.name} is closed`);
    jobs.forEach(assertEnqueueable);
    for (const job of jobs) {
      if (!ACCOUNT_TOKEN.test(job.accountId))
        throw new Error(`job ${job.jobId}: account ${JSON.stringify(job.accountId)} must be letters, digits, _ and - only`);
    }
    // Every job is encoded (and checked against the bound) before any is published.
    const encoded = await Promise.all(jobs.map((job) => this.encode(job)));
    const { js } = await this.ready();
    // Published together, in order, on one connection: the stream stores them in this order.
    const acks = await Promise.all(
      jobs.map((job, i) =>
        js.publish(this.subjectOf(job.type, job.accountId), encoded[i].data, {
          msgID: job.jobId,
          timeout: this.publishTimeoutMs,
          expect: { streamName: this.options.name },
          ...(encoded[i].compressed ? { headers: gzipHeaders() } : {}),
        }),
      ),
    );
    return { duplicates: jobs.filter((_, i) => acks[i].duplicate).map((job) => job.jobId) };
  }

  async consume(handler: (delivery: JobDelivery<P>) => Promise<void>, options: JobConsumerOptions<P> = {}): Promise<void> {
    if (this.closing) throw new Error(`job queue ${this.options.name} is closed`);
    if (this.consuming) throw new Error(`job queue ${this.options.name} already has a consumer`);
    const slots = consumerSlots(options, () => this.wake?.());
    this.consuming = true;
    try {
      const consumer = await this.bind(options);
      this.watchReconnects();
      this.loop = this.pull(consumer, handler, options, slots);
    } catch (error) {
      this.consuming = false;
      throw error;
    }
  }

  /**
   * Finds the durable consumer (creating stream and consumer first), waiting out an unreachable
   * server (timeouts, no responders while JetStream starts) but failing on an API error.
   */
  private async bind(options: JobConsumerOptions<P>): Promise<Consumer> {
    for (;;) {
      try {
        const { js } = await this.ready();
        return await js.consumers.get(this.options.name, this.durableName);
      } catch (error) {
        if (this.closing || apiErrorCode(error) !== undefined) throw error;
        report(options, error);
        await this.pause(PULL_RETRY_MS);
      }
    }
  }

  /**
   * A restarted server forgot the pending pull request: end it at once on reconnecting, so the
   * loop pulls again instead of waiting for the request to expire.
   */
  private watchReconnects(): void {
    const events = this.nc.status();
    this.statusEvents = events;
    void (async () => {
      for await (const event of events) {
        if (this.closing) break;
        if (event.type === Events.Reconnect) this.fetching?.stop();
      }
    })().catch(() => undefined);
  }

  /** Sleeps, cut short by close(). */
  private pause(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }

  async depth(): Promise<number> {
    const { jsm } = await this.ready();
    return (await jsm.streams.info(this.options.name)).state.messages;
  }

  close(): Promise<void> {
    this.closed ??= (async () => {
      this.closing = true;
      this.fetching?.stop();
      (this.statusEvents as { stop?: () => void } | undefined)?.stop?.();
      this.wake?.();
      await this.loop;
      while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
    })();
    return this.closed;
  }

  /** Creates the stream and the consumer, or brings existing ones to these options (every replica does this). */
  private ready(): Promise<{ jsm: JetStreamManager; js: JetStreamClient }> {
    this.setup ??= (async () => {
      const jsm = await this.nc.jetstreamManager();
      const { name, subjectPrefix, dedupeWindowMs, ackWaitMs, maxAttempts } = this.options;
      const stream: Partial<StreamConfig> & { name: string } = {
        name,
        subjects: [`${subjectPrefix}.>`],
        retention: RetentionPolicy.Workqueue,
        storage: StorageType.File,
        // No limits are set; should someone add one, refuse new jobs rather than drop accepted ones.
        discard: DiscardPolicy.New,
        duplicate_window: nanos(dedupeWindowMs),
        num_replicas: this.replicas,
      };
      try {
        await jsm.streams.add(stream);
      } catch (error) {
        // Same name, other settings (e.g. a changed dedupe window): update what may be updated.
        if (apiErrorCode(error) !== STREAM_NAME_IN_USE) throw error;
        await jsm.streams.update(name, stream);
      }
      const consumer: Partial<ConsumerConfig> = {
        durable_name: this.durableName,
        ack_policy: AckPolicy.Explicit,
        ack_wait: nanos(ackWaitMs),
        max_deliver: maxAttempts + 1,
        deliver_policy: DeliverPolicy.All,
        filter_subject: `${subjectPrefix}.>`,
      };
      try {
        await jsm.consumers.add(name, consumer);
      } catch (error) {
        const existing = await jsm.consumers.info(name, this.durableName).catch(() => undefined);
        if (!existing) throw error;
        await jsm.consumers.update(name, this.durableName, { ack_wait: consumer.ack_wait, max_deliver: consumer.max_deliver });
      }
      return { jsm, js: this.nc.jetstream() };
    })().catch((error: unknown) => {
      // NATS may be down at startup: the next call tries again.
      this.setup = undefined;
      throw error;
    });
    return this.setup;
  }

  /** Pulls as many jobs as there are free slots, waiting for a slot when all are busy. */
  private async pull(consumer: Consumer, handler: (delivery: JobDelivery<P>) => Promise<void>, options: JobConsumerOptions<P>, slots: DeliverySlots) {
    while (!this.closing) {
      const free = slots.free(this.inFlight.size);
      if (free <= 0) {
        await new Promise<void>((resolve) => (this.wake = resolve));
        continue;
      }
      // The slots are taken for the whole pull: a waiting handler that resumes meanwhile waits for one.
      slots.take(free);
      let received = 0;
      try {
        this.fetching = await consumer.fetch({ max_messages: free, expires: PULL_EXPIRES_MS });
        if (this.closing) this.fetching.stop();
        for await (const message of this.fetching) {
          received += 1;
          this.start(message, handler, options, slots);
        }
      } catch (error) {
        if (this.closing) break;
        report(options, error);
        await this.pause(PULL_RETRY_MS);
      } finally {
        this.fetching = undefined;
        for (; received < free; received++) slots.give();
      }
    }
  }

  /** Runs one pulled message in the slot its pull took. */
  private start(message: JsMsg, handler: (delivery: JobDelivery<P>) => Promise<void>, options: JobConsumerOptions<P>, slots: DeliverySlots): void {
    const decoded = this.decoding.then(() => this.decode(message));
    this.decoding = decoded.catch(() => undefined);
    const running: Promise<void> = decoded
      .then(
        (job) => {
          const delivery = new QueueDelivery(job, message.info.deliveryCount, {
            slots,
            keepAlive: () => message.working(),
            keepAliveEveryMs: keepAliveEvery(this.options),
            maxRunMs: this.options.maxRunMs,
            onError: (error) => report(options, error, delivery),
            isFirstOfAccount: () => this.isFirstOfAccount(job.accountId, message.info.streamSequence),
            isNextOfAccountAfter: async (earlier) => {
              const after = this.positions.get(earlier);
              if (after === undefined || after >= message.info.streamSequence || earlier.job.accountId !== job.accountId) return false;
              return this.isFirstOfAccount(job.accountId, message.info.streamSequence, after + 1);
            },
            accountChanges: this.accountChanges,
            accountPollMs: this.accountPollMs,
          });
          this.positions.set(delivery, message.info.streamSequence);
          const stopKeepingAlive = delivery.keepAlive();
          return runDelivery(delivery, handler, options, this.options)
            .then((outcome) => this.settle(message, outcome))
            .catch((error: unknown) => report(options, error, delivery))
            .finally(() => {
              stopKeepingAlive();
              this.accountChanges.changed(job.accountId);
            });
        },
        (error: unknown) => {
          // Not a job this queue wrote: nothing can ever handle it. Reported here, terminated without a
          // reason: nats-server 2.9 ignores a reasoned term and delivers the message again each ack wait.
          report(options, error);
          message.term();
        },
      )
      .finally(() => {
        this.inFlight.delete(running);
        slots.give();
      });
    this.inFlight.add(running);
  }

  /**
   * The account's oldest job still in the work-queue stream (acknowledged jobs are removed) from
   * stream sequence `from` on is this one.
   */
  private async isFirstOfAccount(accountId: string, sequence: number, from = 1): Promise<boolean> {
    const { jsm } = await this.ready();
    try {
      // The server's STREAM.MSG.GET takes `next_by_subj` (nats-server 2.9+); the client's type does not name it.
      const request = { seq: from, next_by_subj: this.subjectOf('*', accountId) } as unknown as { seq: number };
      const oldest = await jsm.streams.getMessage(this.options.name, request);
      return oldest.seq >= sequence;
    } catch (error) {
      if (apiErrorCode(error) === NO_MESSAGE_FOUND) return true;
      throw error;
    }
  }

  private async decode(message: JsMsg): Promise<JobEnvelope<P>> {
    const encoding = message.headers?.get(JOB_ENCODING_HEADER);
    const data = encoding === 'gzip' ? new Uint8Array(await gunzipAsync(message.data)) : message.data;
    return JSON.parse(this.decoder.decode(data)) as JobEnvelope<P>;
  }

  private async settle(message: JsMsg, outcome: DeliveryOutcome): Promise<void> {
    if (outcome.kind === 'retry') message.nak(outcome.delayMs);
    else if (outcome.kind === 'remove') message.term();
    // Confirmed, so a job is gone from the stream before its slot takes the next one.
    else await message.ackAck();
  }
}

function apiErrorCode(error: unknown): number | undefined {
  const apiError = (error as { api_error?: { err_code?: number } } | undefined)?.api_error;
  return apiError?.err_code;
}

function gzipHeaders() {
  const h = natsHeaders();
  h.set(JOB_ENCODING_HEADER, 'gzip');
  return h;
}
