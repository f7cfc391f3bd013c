import {
  AnyBulkWriteOperation,
  Collection,
  Db,
  Filter as MongoFilter,
  FindOptions as MongoFindOptions,
  Long,
  MongoBulkWriteError,
  MongoClient,
  MongoServerError,
  Sort,
} from 'mongodb';
import {
  BulkOperation,
  BulkWriteResult,
  CheckpointPosition,
  CheckpointStore,
  CollectionOptions,
  Doc,
  DUPLICATE_KEY,
  Filter,
  FindOptions,
  ReadCollection,
  ReadStore,
  ReadStoreBulkWriteError,
  SortSpec,
} from './read-store.port';

export interface MongoReadStoreOptions {
  url: string;
  /** Defaults to the database named in the URL (the driver's rule, which falls back to "test"). */
  dbName?: string;
}

/**
 * ReadStore on MongoDB. The port mirrors the driver's Collection, so this adapter mostly passes
 * calls through; it adds unordered bulk writes with failures mapped to ReadStoreBulkWriteError, and
 * checkpoints kept in the `checkpoints` collection.
 */
export class MongoReadStore implements ReadStore {
  readonly durable = true;
  readonly checkpoints: CheckpointStore;
  private readonly client: MongoClient;
  private readonly db: Db;

  /** Connects lazily: the driver opens its pool on the first operation. Use `connect` to fail fast. */
  constructor(options: MongoReadStoreOptions) {
    this.client = new MongoClient(options.url);
    this.db = this.client.db(options.dbName);
    this.checkpoints = new MongoCheckpointStore(this.db.collection<CheckpointDocument>(CHECKPOINTS_COLLECTION));
  }

  /** Creates the store and checks the server answers before returning it. */
  static async connect(options: MongoReadStoreOptions): Promise<MongoReadStore> {
    const store = new MongoReadStore(options);
    try {
      await store.client.connect();
      await store.db.command({ ping: 1 });
    } catch (error) {
      await store.client.close().catch(() => undefined);
      throw error;
    }
    return store;
  }

  /** Every MongoDB collection persists: `options.persistent` changes nothing here. */
  collection<T extends Doc = Doc>(name: string, _options?: CollectionOptions): ReadCollection<T> {
    return new MongoReadCollection<T>(this.db.collection<T>(name));
  }

  async close(): Promise<void> {
    await this.client.close();
  }
}

const CHECKPOINTS_COLLECTION = 'checkpoints';

class MongoReadCollection<T extends Doc> implements ReadCollection<T> {
  constructor(private readonly collection: Collection<T>) {}

  async find(filter: Filter, options: FindOptions = {}): Promise<T[]> {
    const documents = await this.collection.find(filter as MongoFilter<T>, driverOptions(options)).toArray();
    return documents as T[];
  }

  async findOne(filter: Filter, options: Pick<FindOptions, 'projection' | 'sort'> = {}): Promise<T | null> {
    const document = await this.collection.findOne(filter as MongoFilter<T>, driverOptions(options));
    return document as T | null;
  }

  async countDocuments(filter: Filter = {}): Promise<number> {
    return this.collection.countDocuments(filter as MongoFilter<T>);
  }

  async bulkWrite(operations: BulkOperation<T>[]): Promise<BulkWriteResult> {
    // The driver refuses an empty batch; the port treats it as a write of nothing.
    if (operations.length === 0) return { insertedCount: 0, matchedCount: 0, modifiedCount: 0, deletedCount: 0, upsertedCount: 0 };
    try {
      const result = await this.collection.bulkWrite(operations as unknown as AnyBulkWriteOperation<T>[], { ordered: false });
      return countsOf(result);
    } catch (error) {
      if (!(error instanceof MongoBulkWriteError)) throw error;
      const writeErrors = Array.isArray(error.writeErrors) ? error.writeErrors : [error.writeErrors];
      // A write-concern failure without per-operation errors is not something callers can sort out per operation.
      if (writeErrors.length === 0) throw error;
      const failures = writeErrors.map((writeError) => ({
        index: writeError.index,
        code: writeError.code,
        message: writeError.errmsg ?? error.message,
      }));
      throw new ReadStoreBulkWriteError(failures, countsOf(error.result));
    }
  }

  async deleteMany(filter: Filter): Promise<{ deletedCount: number }> {
    const { deletedCount } = await this.collection.deleteMany(filter as MongoFilter<T>);
    return { deletedCount };
  }

  async createIndex(keys: SortSpec, options: { unique?: boolean; name?: string } = {}): Promise<string> {
    return this.collection.createIndex(keys, { ...(options.unique !== undefined && { unique: options.unique }), ...(options.name && { name: options.name }) });
  }
}

/** The driver's find options, with only the keys the caller set. */
function driverOptions(options: FindOptions): MongoFindOptions {
  const { sort, projection, limit, skip } = options;
  return {
    ...(sort && { sort: sort as Sort }),
    ...(projection && { projection }),
    ...(limit !== undefined && { limit }),
    ...(skip !== undefined && { skip }),
  };
}

function countsOf(result: BulkWriteResult): BulkWriteResult {
  const { insertedCount, matchedCount, modifiedCount, deletedCount, upsertedCount } = result;
  return { insertedCount, matchedCount, modifiedCount, deletedCount, upsertedCount };
}

/** Positions are stored as int64 (Long) so MongoDB compares them numerically. */
interface CheckpointDocument {
  _id: string;
  commit: Long;
  prepare: Long;
}

class MongoCheckpointStore implements CheckpointStore {
  constructor(private readonly collection: Collection<CheckpointDocument>) {}

  async get(projectorName: string): Promise<CheckpointPosition | null> {
    const document = await this.collection.findOne({ _id: projectorName });
    if (!document) return null;
    return { commit: toBigInt(document.commit), prepare: toBigInt(document.prepare) };
  }

  async advance(projectorName: string, position: CheckpointPosition): Promise<boolean> {
    const commit = toLong(position.commit);
    const prepare = toLong(position.prepare);
    // Matches only a stored position earlier than the new one; compare-and-set in one round trip.
    const filter: MongoFilter<CheckpointDocument> = {
      _id: projectorName,
      $or: [{ commit: { $lt: commit } }, { commit, prepare: { $lt: prepare } }],
    };
    const update = { $set: { commit, prepare } };
    try {
      const result = await this.collection.updateOne(filter, update, { upsert: true });
      return result.matchedCount + result.upsertedCount > 0;
    } catch (error) {
      if (!isDuplicateKey(error)) throw error;
      // The upsert met an existing checkpoint: either a later one (refused) or one inserted
      // concurrently since the filter ran, which the retry without upsert compares properly.
      const retry = await this.collection.updateOne(filter, update);
      return retry.matchedCount > 0;
    }
  }

  async reset(projectorName: string): Promise<void> {
    await this.collection.deleteOne({ _id: projectorName });
  }
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

function toLong(value: bigint): Long {
  if (value < INT64_MIN || value > INT64_MAX) throw new RangeError(`Checkpoint position ${value} does not fit in a signed 64-bit integer`);
  return Long.fromBigInt(value);
}

/** The driver returns int64 as a number when it fits in a double exactly, else as a Long. */
function toBigInt(value: Long | number | bigint): bigint {
  if (typeof value === 'bigint') return value;
  if (typeof value === 'number') return BigInt(value);
  return value.toBigInt();
}

function isDuplicateKey(error: unknown): boolean {
  return error instanceof MongoServerError && error.code === DUPLICATE_KEY;
}
