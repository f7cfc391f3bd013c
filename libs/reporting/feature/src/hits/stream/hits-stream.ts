import { HitsStream } from '@funnel/contracts';
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

/** The stream HITS and reporting's durable consumer of it. */
export interface HitsStreamSettings {
  /** Default HitsStream.name. */
  stream?: string;
  /** Default HitsStream.subjectPrefix: the stream takes `<prefix>.*` (`hits.<accountId>`). */
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

/**
 * Creates the stream HITS, or brings an existing one to these settings: a work queue on file
 * storage (a hit leaves it once reporting acknowledged it, i.e. once the warehouse stored it), hits
 * older than maxAgeMs dropped, new hits refused (never stored ones dropped) beyond maxBytes, the
 * publishes' `Nats-Msg-Id` (the hit id) deduplicated within duplicateWindowMs. Then the durable pull
 * consumer: explicit acknowledgements, redelivered after ackWaitMs, never given up (a hit is never
 * dropped for failing too often: the warehouse was down).
 */
export async function ensureHitsStream(jsm: JetStreamManager, settings: HitsStreamSettings): Promise<void> {
  const name = settings.stream ?? HitsStream.name;
  const durableName = settings.durableName ?? HitsStream.durableName;
  const subjects = [`${settings.subjectPrefix ?? HitsStream.subjectPrefix}.*`];
  const stream: Partial<StreamConfig> & { name: string } = {
    name,
    subjects,
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
