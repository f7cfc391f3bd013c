/**
 * The read-model port: the subset of the MongoDB driver's Collection that projections and queries
 * use, with the driver's semantics (filters, update operators, upserts, duplicate-key errors),
 * plus projection checkpoints. Adapters: MongoDB and embedded (mingo).
 */

export type Doc = { _id: string } & Record<string, unknown>;
/** A MongoDB query filter ({ field: value }, $in, $ne, $or, $exists ...). */
export type Filter = Record<string, unknown>;
/** A MongoDB update document using operators: $set, $unset, $setOnInsert, $inc. */
export type UpdateSpec = Record<string, Record<string, unknown>>;
export type SortSpec = Record<string, 1 | -1>;
export type ProjectionSpec = Record<string, 0 | 1>;

export interface FindOptions {
  sort?: SortSpec;
  projection?: ProjectionSpec;
  limit?: number;
  skip?: number;
}

export type BulkOperation<T extends Doc = Doc> =
  | { insertOne: { document: T } }
  | { updateOne: { filter: Filter; update: UpdateSpec; upsert?: boolean } }
  | { updateMany: { filter: Filter; update: UpdateSpec; upsert?: boolean } }
  | { replaceOne: { filter: Filter; replacement: T; upsert?: boolean } }
  | { deleteOne: { filter: Filter } }
  | { deleteMany: { filter: Filter } };

export interface BulkWriteResult {
  insertedCount: number;
  matchedCount: number;
  modifiedCount: number;
  deletedCount: number;
  upsertedCount: number;
}

export interface BulkWriteFailure {
  /** Index of the failed operation in the submitted list. */
  index: number;
  /** MongoDB error code; 11000 is a duplicate key. */
  code: number;
  message: string;
}

/**
 * Thrown by bulkWrite when operations fail. As with the driver's unordered bulk writes, every other
 * operation is still applied; `result` counts what was.
 */
export class ReadStoreBulkWriteError extends Error {
  constructor(
    readonly failures: BulkWriteFailure[],
    readonly result: BulkWriteResult,
  ) {
    super(`bulkWrite: ${failures.length} operation(s) failed: ${failures[0]?.message ?? ''}`);
    this.name = 'ReadStoreBulkWriteError';
  }
}

export const DUPLICATE_KEY = 11000;

export interface ReadCollection<T extends Doc = Doc> {
  find(filter: Filter, options?: FindOptions): Promise<T[]>;
  findOne(filter: Filter, options?: Pick<FindOptions, 'projection' | 'sort'>): Promise<T | null>;
  countDocuments(filter?: Filter): Promise<number>;
  /** Unordered: every operation is attempted; failures raise ReadStoreBulkWriteError afterwards. */
  bulkWrite(operations: BulkOperation<T>[]): Promise<BulkWriteResult>;
  deleteMany(filter: Filter): Promise<{ deletedCount: number }>;
  createIndex(keys: SortSpec, options?: { unique?: boolean; name?: string }): Promise<string>;
}

/** A projection checkpoint: the last global log position a projector has fully applied. */
export interface CheckpointPosition {
  readonly commit: bigint;
  readonly prepare: bigint;
}

export interface CheckpointStore {
  get(projectorName: string): Promise<CheckpointPosition | null>;
  /** Compare-and-set: stores the position only when it is later than the stored one. Returns whether it stored. */
  advance(projectorName: string, position: CheckpointPosition): Promise<boolean>;
  /** Forget a checkpoint (used before a deliberate full rebuild). */
  reset(projectorName: string): Promise<void>;
}

export interface CollectionOptions {
  /**
   * The collection holds state that no projection rebuilds from the event log (job statuses,
   * counters, last-use times): it must survive a restart as it is. MongoDB keeps every collection;
   * the embedded store writes such a collection through to its state file (when it has one) before
   * a write resolves, and loads it back when the collection is first opened after a start. Every
   * opening of a collection name must say the same.
   */
  persistent?: boolean;
}

export interface ReadStore {
  collection<T extends Doc = Doc>(name: string, options?: CollectionOptions): ReadCollection<T>;
  readonly checkpoints: CheckpointStore;
  /**
   * True when the models survive a restart (MongoDB); false when projections must rebuild theirs
   * from the log (embedded: only `persistent` collections are kept, in its state file).
   */
  readonly durable: boolean;
  close(): Promise<void>;
}

/** Nest injection token for the ReadStore port. */
export const READ_STORE = Symbol.for('funnel.ReadStore');
