import { createHash } from 'node:crypto';
import type { EventStore, RecordedEvent } from '@funnel/eventstore';
import type { ReadStore } from '@funnel/readstore';
import { Projector } from '@funnel/projections';
import type { GoalLink } from '@funnel/integrations-domain';

/**
 * What conversion uploads sent, so that each conversion reaches a goal once: every batch the
 * provider took is an event on its upload job's stream (`integrationupload-<accountId>.<jobId>`,
 * durable), projected into one document per conversion and goal, which an upload reads before it
 * sends (a retried job, a conversion applied again by a later job: nothing sent twice). A process
 * that dies between the provider's answer and the append sends that batch again on the retry; the
 * provider's own deduplication by event id takes it once.
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

interface UploadedConversionDocument {
  _id: string;
  [key: string]: unknown;
  accountId: string;
  idIntegration: string;
  uploadedAt: string;
}

type Goal = Pick<GoalLink, 'adAccountId' | 'goalId'>;

/** One conversion at one goal: a digest (event ids are free text of up to 256 characters). */
function uploadedId(accountId: string, idIntegration: string, goal: Goal, eventId: string): string {
  return createHash('sha256')
    .update(JSON.stringify([accountId, idIntegration, goal.adAccountId, goal.goalId, eventId]))
    .digest('base64url');
}

const collectionOf = (readStore: ReadStore) => readStore.collection<UploadedConversionDocument>('integration_uploaded_conversions');

/** Projects the upload streams: a document per conversion sent to a goal (replays write nothing new). */
class UploadedConversionsProjector extends Projector {
  private readonly uploaded: ReturnType<typeof collectionOf>;

  constructor(eventStore: EventStore, readStore: ReadStore) {
    super({ name: 'integration-uploads', description: 'integration uploads projection', eventStore, readStore, streamNamePrefixes: UploadStreams.prefixes });
    this.uploaded = collectionOf(readStore);
  }

  protected override async project(events: RecordedEvent[]): Promise<void> {
    const operations = [];
    for (const event of events) {
      if (event.type !== 'ConversionsUploaded') continue;
      const { accountId, idIntegration, adAccountId, goalId, eventIds, uploadedAt } = event.data as ConversionsUploaded['data'];
      for (const eventId of eventIds) {
        const _id = uploadedId(accountId, idIntegration, { adAccountId, goalId }, eventId);
        operations.push({ updateOne: { filter: { _id }, update: { $setOnInsert: { accountId, idIntegration, uploadedAt } }, upsert: true } });
      }
    }
    if (operations.length) await this.uploaded.bulkWrite(operations);
  }
}

export class UploadedConversions {
  private readonly projector: UploadedConversionsProjector;
  private readonly uploaded: ReturnType<typeof collectionOf>;

  constructor(
    private readonly eventStore: EventStore,
    readStore: ReadStore,
  ) {
    this.projector = new UploadedConversionsProjector(eventStore, readStore);
    this.uploaded = collectionOf(readStore);
  }

  /** Resolves once the record has caught up with the log (uploads read it before they send). */
  start(): Promise<void> {
    return this.projector.start();
  }

  stop(): Promise<void> {
    return this.projector.onApplicationShutdown();
  }

  /** Which of `eventIds` were sent to the goal already. */
  async sent(accountId: string, idIntegration: string, goal: Goal, eventIds: readonly string[]): Promise<Set<string>> {
    const byId = new Map(eventIds.map((eventId) => [uploadedId(accountId, idIntegration, goal, eventId), eventId]));
    const found = await this.uploaded.find({ _id: { $in: [...byId.keys()] }, accountId }, { projection: { _id: 1 } });
    return new Set(found.map((doc) => byId.get(doc._id)!));
  }

  /** A batch the provider took, recorded on the upload job's stream; resolves once uploads read it. */
  async record(uploadJobId: string, data: ConversionsUploaded['data']): Promise<void> {
    const { position } = await this.eventStore.append(UploadStreams.upload(data.accountId, uploadJobId), [
      { type: 'ConversionsUploaded', data, metadata: { accountId: data.accountId, occurredAt: data.uploadedAt, schemaVersion: 1 } },
    ]);
    await this.projector.waitFor(position);
  }
}
