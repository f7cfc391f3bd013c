import type { SyncJobView } from '@funnel/contracts';
import type { ReadStore } from '@funnel/readstore';

/**
 * One sync job's status (`<accountId>.<jobId>`): written when it is queued and as it runs. State no
 * projection rebuilds, so a persistent collection: a restart keeps every status (the job itself is
 * on the durable queue, which runs it again when the process died while it ran).
 */
export interface SyncJobDocument {
  _id: string;
  [key: string]: unknown;
  accountId: string;
  job: SyncJobView;
}

export class SyncJobs {
  private readonly collection;

  constructor(readStore: ReadStore) {
    this.collection = readStore.collection<SyncJobDocument>('integration_sync_jobs', { persistent: true });
  }

  async put(accountId: string, job: SyncJobView): Promise<void> {
    await this.collection.bulkWrite([
      { replaceOne: { filter: { _id: `${accountId}.${job.jobId}` }, replacement: { _id: `${accountId}.${job.jobId}`, accountId, job }, upsert: true } },
    ]);
  }

  /** The status of a job just queued, unless its first run already wrote one (a consumer may take the job at once). */
  async create(accountId: string, job: SyncJobView): Promise<void> {
    const _id = `${accountId}.${job.jobId}`;
    await this.collection.bulkWrite([{ updateOne: { filter: { _id }, update: { $setOnInsert: { accountId, job } }, upsert: true } }]);
  }

  async get(accountId: string, jobId: string): Promise<SyncJobView | null> {
    const doc = await this.collection.findOne({ _id: `${accountId}.${jobId}`, accountId });
    return doc?.job ?? null;
  }

  async update(accountId: string, jobId: string, change: (job: SyncJobView) => SyncJobView, initial: () => SyncJobView): Promise<SyncJobView> {
    const next = change((await this.get(accountId, jobId)) ?? initial());
    await this.put(accountId, next);
    return next;
  }
}
