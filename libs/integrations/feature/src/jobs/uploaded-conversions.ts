import { createHash } from 'node:crypto';
import type { EventStore, RecordedEvent } from '@funnel/eventstore';
import type { ReadStore } from '@funnel/readstore';
import { Projector } from '@funnel/projections';
import type { AdPlatform, GoalLink } from '@funnel/integrations-domain';

const DAY_MS = 86_400_000;
/** Kept past the longest upload window: a job waiting on the queue, a conversion time a little after its upload. */
export const UPLOAD_RECORD_MARGIN_DAYS = 7;
/** Records past their retention are deleted at start, then at most this often per process (as uploads run). */
export const UPLOAD_RECORD_PRUNE_INTERVAL_MS = 3_600_000;

/**
 * How long a record of a sent conversion is needed: a conversion is sent again only while a provider
 * still takes it (its upload window, `uploadMaxAgeDays` from the conversion's time: Google and
 * Microsoft 90 days, Meta and TikTok 7), so the longest window of the providers that upload, plus
 * UPLOAD_RECORD_MARGIN_DAYS, counted from the later of its upload and its conversion's time.
 * Infinity (kept for good) when one of them takes conversions of any age.
 */
export function uploadRecordRetentionMs(platforms: readonly AdPlatform[]): number {
  const windows = platforms.filter((p) => p.capabilities.conversionUpload).map((p) => p.capabilities.uploadMaxAgeDays);
  if (windows.some((days) => days === null)) return Infinity;
  return (Math.max(0, ...(windows as number[])) + UPLOAD_RECORD_MARGIN_DAYS) * DAY_MS;
}

/**
 * A batch the provider took, as versions before the records were kept in their own collection
 * stored it: an event on its upload job's stream (`integrationupload-<accountId>.<jobId>`). Those
 * events are still read at start (LegacyUploadsProjector); nothing appends them any more.
 */
export interface ConversionsUploaded {
  type: 'ConversionsUploaded';
  data: {
    accountId: string;
    idIntegration: string;
    adAccountId: string;
    goalId: string;
    eventIds: string[];
    accepted: number;
    rejected: number;
    uploadedAt: string;
  };
}

export const UploadStreams = {
  upload: (accountId: string, uploadJobId: string) => `integrationupload-${accountId}.${uploadJobId}`,
  prefixes: ['integrationupload-'],
};

/** A conversion sent to a goal (or about to be): its event id and its time as applied (ISO 8601). */
export interface SentConversion {
  eventId: string;
  occurredAt: string;
}

/** A batch the provider took: what `record` writes. */
export interface UploadedBatch extends Omit<ConversionsUploaded['data'], 'eventIds'> {
  conversions: readonly SentConversion[];
}

interface UploadedConversionDocument {
  _id: string;
  [key: string]: unknown;
  accountId: string;
  idIntegration: string;
  /** ISO 8601: when the provider took it. */
  uploadedAt: string;
  /**
   * ISO 8601: the later of uploadedAt and the conversion's time (moved on when a later job sends the
   * conversion with a later time): the record is deleted once this is older than the retention.
   */
  keptFrom: string;
  /** `YYYY-MM-DD` (UTC) of keptFrom: the hourly prune deletes whole days through an index (a scan would hold the embedded store). */
  keptDay: string;
}

type Goal = Pick<GoalLink, 'adAccountId' | 'goalId'>;

/** One conversion at one goal: a digest (event ids are free text of up to 256 characters). */
function uploadedId(accountId: string, idIntegration: string, goal: Goal, eventId: string): string {
  return createHash('sha256')
    .update(JSON.stringify([accountId, idIntegration, goal.adAccountId, goal.goalId, eventId]))
    .digest('base64url');
}

/** State no projection rebuilds (the log no longer holds it): a persistent collection. */
const collectionOf = (readStore: ReadStore) => readStore.collection<UploadedConversionDocument>('integration_uploaded_conversions', { persistent: true });

type UploadedCollection = ReturnType<typeof collectionOf>;

/** The later of two times (ISO 8601, any offset), as UTC ISO 8601; a time that does not parse counts as none. */
function later(first: string, second: string): string {
  const times = [Date.parse(first), Date.parse(second)].filter(Number.isFinite);
  return new Date(Math.max(...times)).toISOString();
}

/** The write of a batch's records: one upsert per conversion (a batch sent again writes nothing new). */
function recordsOf(batch: UploadedBatch) {
  const { accountId, idIntegration, adAccountId, goalId, conversions, uploadedAt } = batch;
  return conversions.map(({ eventId, occurredAt }) => {
    const keptFrom = later(uploadedAt, occurredAt);
    return {
      updateOne: {
        filter: { _id: uploadedId(accountId, idIntegration, { adAccountId, goalId }, eventId) },
        update: { $setOnInsert: { accountId, idIntegration, uploadedAt, keptFrom, keptDay: keptFrom.slice(0, 10) } },
        upsert: true,
      },
    };
  });
}

/** A batch of the upload events earlier versions appended: its conversions' times unknown (kept from the upload). */
const legacyBatch = ({ eventIds, ...data }: ConversionsUploaded['data']): UploadedBatch => ({
  ...data,
  conversions: eventIds.map((eventId) => ({ eventId, occurredAt: data.uploadedAt })),
});

/** Reads the upload events earlier versions appended into the records, those still within the retention. */
class LegacyUploadsProjector extends Projector {
  constructor(
    eventStore: EventStore,
    readStore: ReadStore,
    private readonly uploaded: UploadedCollection,
    private readonly oldestKept: () => string,
  ) {
    super({ name: 'integration-uploads', description: 'integration uploads projection', eventStore, readStore, streamNamePrefixes: UploadStreams.prefixes });
  }

  protected override async project(events: RecordedEvent[]): Promise<void> {
    const oldest = this.oldestKept();
    const operations = events
      .filter((event) => event.type === 'ConversionsUploaded')
      .map((event) => event.data as ConversionsUploaded['data'])
      .filter((data) => data.uploadedAt >= oldest)
      .flatMap((data) => recordsOf(legacyBatch(data)));
    if (operations.length) await this.uploaded.bulkWrite(operations);
  }
}

/**
 * What conversion uploads sent, so that each conversion reaches a goal once: one record per
 * conversion and goal, written as the provider takes each batch (before the next is sent) and read
 * by an upload before it sends (a retried job, a conversion applied again by a later job: nothing
 * sent twice). A process that dies between the provider's answer and the write sends that batch
 * again on the retry; the provider's own deduplication by event id takes it once. A record is kept
 * for the retention (uploadRecordRetentionMs) from the later of its upload and its conversion's time
 * (a later job that finds the conversion sent with a later time moves that on), after which no
 * provider would take its conversion again; older ones are deleted at start and then at most hourly
 * as uploads record batches.
 */
export class UploadedConversions {
  private readonly legacy: LegacyUploadsProjector;
  private readonly uploaded: UploadedCollection;
  private prunedAt = -Infinity;
  /** Every record of a day before this one (`YYYY-MM-DD`) is deleted; undefined until the first prune. */
  private prunedBefore: string | undefined;

  constructor(
    eventStore: EventStore,
    readStore: ReadStore,
    private readonly retentionMs: number,
    private readonly clock: () => number,
  ) {
    this.uploaded = collectionOf(readStore);
    this.legacy = new LegacyUploadsProjector(eventStore, readStore, this.uploaded, () => this.oldestKept());
  }

  /** Resolves once the records written by earlier versions are read (uploads read the records before they send) and the expired ones deleted. */
  async start(): Promise<void> {
    await this.uploaded.createIndex({ keptDay: 1 }, { name: 'kept_day' });
    await this.keepFromUpload();
    await this.legacy.start();
    await this.prune();
  }

  /** Records written before they had keptFrom (their conversion's time unknown): kept from their upload. */
  private async keepFromUpload(): Promise<void> {
    const older = await this.uploaded.find({ keptFrom: { $exists: false } }, { projection: { _id: 1, uploadedAt: 1 } });
    if (!older.length) return;
    await this.uploaded.bulkWrite(
      older.map((doc) => ({ updateOne: { filter: { _id: doc._id }, update: { $set: { keptFrom: doc.uploadedAt, keptDay: doc.uploadedAt.slice(0, 10) } } } })),
    );
  }

  stop(): Promise<void> {
    return this.legacy.onApplicationShutdown();
  }

  /**
   * Which of `conversions` were sent to the goal already (by event id). A record found for a
   * conversion whose time is now later than the record's keptFrom is kept from that time on: the
   * providers take it again until their window past that time ends.
   */
  async sent(accountId: string, idIntegration: string, goal: Goal, conversions: readonly SentConversion[]): Promise<Set<string>> {
    const byId = new Map(conversions.map((conversion) => [uploadedId(accountId, idIntegration, goal, conversion.eventId), conversion]));
    const found = await this.uploaded.find({ _id: { $in: [...byId.keys()] }, accountId }, { projection: { _id: 1, keptFrom: 1 } });
    const moved = found.flatMap((doc) => {
      const keptFrom = later(doc.keptFrom, byId.get(doc._id)!.occurredAt);
      if (keptFrom <= doc.keptFrom) return [];
      // Only ever later (another process may have moved it further).
      return [{ updateOne: { filter: { _id: doc._id, keptFrom: { $lt: keptFrom } }, update: { $set: { keptFrom, keptDay: keptFrom.slice(0, 10) } } } }];
    });
    if (moved.length) await this.uploaded.bulkWrite(moved);
    return new Set(found.map((doc) => byId.get(doc._id)!.eventId));
  }

  /** A batch the provider took, recorded (durably: a persistent collection) before this resolves. */
  async record(batch: UploadedBatch): Promise<void> {
    if (batch.conversions.length) await this.uploaded.bulkWrite(recordsOf(batch));
    if (this.clock() - this.prunedAt >= UPLOAD_RECORD_PRUNE_INTERVAL_MS) await this.prune();
  }

  /**
   * Deletes the records kept from before the retention; answers how many. The first prune of the
   * process looks at every record; later ones delete the days that left the retention since, through
   * the index (a record goes within a day of its keptFrom).
   */
  async prune(): Promise<number> {
    this.prunedAt = this.clock();
    if (!Number.isFinite(this.retentionMs)) return 0;
    const oldest = this.oldestKept();
    const day = oldest.slice(0, 10);
    const since = this.prunedBefore;
    this.prunedBefore = day;
    if (since === undefined) return (await this.uploaded.deleteMany({ keptFrom: { $lt: oldest } })).deletedCount;
    const days = daysFrom(since, day);
    return days.length ? (await this.uploaded.deleteMany({ keptDay: { $in: days } })).deletedCount : 0;
  }

  private oldestKept(): string {
    return Number.isFinite(this.retentionMs) ? new Date(this.clock() - this.retentionMs).toISOString() : '';
  }
}

/** The days (`YYYY-MM-DD`, UTC) from `first` up to `end`, not included. */
function daysFrom(first: string, end: string): string[] {
  const days: string[] = [];
  for (let at = Date.parse(`${first}T00:00:00Z`); ; at += DAY_MS) {
    const day = new Date(at).toISOString().slice(0, 10);
    if (day >= end) return days;
    days.push(day);
  }
}
