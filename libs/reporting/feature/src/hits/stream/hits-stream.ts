import { HitsStream, hitBatchesStreamOf } from '@funnel/contracts';
import {
  AckPolicy,
  DeliverPolicy,
  DiscardPolicy,
  RetentionPolicy,
  StorageType,
  nanos,
  type ConsumerConfig,
  type JetStreamManager,
  type StreamConfig,
} from 'nats';

/** The streams HITS and HITS_BATCHES and reporting's durable consumers of them. */
export interface HitsStreamSettings {
  /** Default HitsStream.name. */
  stream?: string;
  /** Default HitsStream.subjectPrefix: the stream takes `<prefix>.*` (`hits.<accountId>`), its batches' stream `<prefix>.batch.*`. */
  subjectPrefix?: string;
  /** Default HitsStream.durableName: one consumer shared by every reporting replica. */
  durableName?: string;
  maxAgeMs: number;
  /** 0: no bound of its own. */
  maxBytes: number;
  duplicateWindowMs: number;
  /** Stream replicas in a NATS cluster (default 1). */
  replicas?: number;
  /** A delivered hit not acknowledged within this time is delivered again (default 60 s). */
  ackWaitMs?: number;
  /** Hits delivered and not yet acknowledged at most (default 20,000; above the ingest batch). */
  maxAckPending?: number;
}

const STREAM_NAME_IN_USE = 10058;

/** A stream of hits and its durable consumer, by name. */
export interface HitsStreamNames {
  stream: string;
  subjectPrefix: string;
  durableName: string;
}

/** The two streams the edge's hits come by: HITS (one hit a message, older edges) and HITS_BATCHES (one request's hits a message). */
export function hitsStreamsOf(settings: Pick<HitsStreamSettings, 'stream' | 'subjectPrefix' | 'durableName'>): [HitsStreamNames, HitsStreamNames] {
  const stream = settings.stream ?? HitsStream.name;
  const subjectPrefix = settings.subjectPrefix ?? HitsStream.subjectPrefix;
  const batches = hitBatchesStreamOf(stream, subjectPrefix);
  return [
    { stream, subjectPrefix, durableName: settings.durableName ?? HitsStream.durableName },
    { stream: batches.name, subjectPrefix: batches.subjectPrefix, durableName: batches.durableName },
  ];
}

/**
 * Creates the streams HITS and HITS_BATCHES (hitsStreamsOf), or brings existing ones to these
 * settings: each a work queue on file storage (a message leaves it once reporting acknowledged it,
 * i.e. once the warehouse stored its hits), messages older than maxAgeMs dropped, new ones refused
 * (never stored ones dropped) beyond maxBytes, the publishes' `Nats-Msg-Id` deduplicated within
 * duplicateWindowMs. Then each one's durable pull consumer: explicit acknowledgements, redelivered
 * after ackWaitMs, never given up (a hit is never dropped for failing too often: the warehouse was down).
 */
export async function ensureHitsStream(jsm: JetStreamManager, settings: HitsStreamSettings): Promise<void> {
  for (const names of hitsStreamsOf(settings)) await ensureStream(jsm, names, settings);
}

async function ensureStream(jsm: JetStreamManager, { stream: name, subjectPrefix, durableName }: HitsStreamNames, settings: HitsStreamSettings): Promise<void> {
  const stream: Partial<StreamConfig> & { name: string } = {
    name,
    subjects: [`${subjectPrefix}.*`],
    retention: RetentionPolicy.Workqueue,
    storage: StorageType.File,
    discard: DiscardPolicy.New,
    max_age: nanos(settings.maxAgeMs),
    max_bytes: settings.maxBytes > 0 ? settings.maxBytes : -1,
    duplicate_window: nanos(settings.duplicateWindowMs),
    num_replicas: settings.replicas ?? 1,
  };
  try {
    await jsm.streams.add(stream);
  } catch (error) {
    if (apiErrorCode(error) !== STREAM_NAME_IN_USE) throw error;
    await jsm.streams.update(name, stream);
  }
  const consumer: Partial<ConsumerConfig> = {
    durable_name: durableName,
    ack_policy: AckPolicy.Explicit,
    ack_wait: nanos(settings.ackWaitMs ?? 60_000),
    max_ack_pending: settings.maxAckPending ?? 20_000,
    max_deliver: -1,
    deliver_policy: DeliverPolicy.All,
  };
  const existing = await jsm.consumers.info(name, durableName).catch(() => undefined);
  if (!existing) await jsm.consumers.add(name, consumer);
  else await jsm.consumers.update(name, durableName, { ack_wait: consumer.ack_wait, max_ack_pending: consumer.max_ack_pending });
}

export function apiErrorCode(error: unknown): number | undefined {
  return (error as { api_error?: { err_code?: number } } | undefined)?.api_error?.err_code;
}
