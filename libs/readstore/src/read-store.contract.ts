import { BulkWriteResult, CheckpointPosition, Doc, DUPLICATE_KEY, Filter, ReadCollection, ReadStore, ReadStoreBulkWriteError } from './read-store.port';

/** Creates a fresh, empty store for one test; `cleanup` releases it (and drops what it wrote). */
export type ReadStoreContractFactory = () => Promise<{ store: ReadStore; cleanup(): Promise<void> }>;

type Item = Doc & {
  accountId?: string;
  kind?: string;
  status?: string;
  revision?: number;
  score?: number;
  tags?: string[];
  meta?: { owner: string; depth: number };
  archivedAt?: string | null;
};

const ITEMS: Item[] = [
  { _id: 'a1', accountId: 'acc1', kind: 'page', status: 'live', revision: 3, score: 10, tags: ['red', 'blue'], meta: { owner: 'ann', depth: 1 } },
  { _id: 'a2', accountId: 'acc1', kind: 'form', status: 'draft', revision: 1, score: 5, tags: ['blue'], meta: { owner: 'bob', depth: 2 } },
  { _id: 'a3', accountId: 'acc2', kind: 'page', status: 'live', revision: 7, score: 5, tags: [], meta: { owner: 'ann', depth: 3 }, archivedAt: null },
  {
    _id: 'a4',
    accountId: 'acc2',
    kind: 'page',
    status: 'archived',
    revision: 2,
    score: 1,
    tags: ['green'],
    meta: { owner: 'cy', depth: 1 },
    archivedAt: '2024-01-01',
  },
  { _id: 'a5', accountId: 'acc3', kind: 'form', status: 'live', revision: 4, score: 8, meta: { owner: 'bob', depth: 2 } },
];

const NO_WRITES: BulkWriteResult = { insertedCount: 0, matchedCount: 0, modifiedCount: 0, deletedCount: 0, upsertedCount: 0 };

/** The projector's idempotent write: applies only over an older revision (or a document without one). */
function guardedReplace(doc: Item & { revision: number }) {
  const filter = { _id: doc._id, $or: [{ revision: { $lt: doc.revision } }, { revision: { $exists: false } }] };
  return { replaceOne: { filter, replacement: doc, upsert: true } };
}

const ids = (docs: Doc[]) => docs.map((doc) => doc._id);

async function bulkWriteError(write: Promise<unknown>): Promise<ReadStoreBulkWriteError> {
  const error = await write.then(
    () => undefined,
    (rejection: unknown) => rejection,
  );
  expect(error).toBeInstanceOf(ReadStoreBulkWriteError);
  return error as ReadStoreBulkWriteError;
}

/**
 * The behaviour every ReadStore adapter must share, written against MongoDB's semantics.
 * Registers a jest `describe` block; call it from an adapter's spec file.
 */
export function describeReadStoreContract(adapterName: string, factory: ReadStoreContractFactory): void {
  describe(`ReadStore contract: ${adapterName}`, () => {
    let store: ReadStore;
    let cleanup: (() => Promise<void>) | undefined;

    beforeEach(async () => {
      ({ store, cleanup } = await factory());
    });

    afterEach(async () => {
      await cleanup?.();
      cleanup = undefined;
    });

    async function seeded(name = 'items'): Promise<ReadCollection<Item>> {
      const items = store.collection<Item>(name);
      await items.bulkWrite(ITEMS.map((document) => ({ insertOne: { document } })));
      return items;
    }

    describe('find', () => {
      it.each([
        ['equality', { accountId: 'acc1' }, ['a1', 'a2']],
        ['two equalities', { accountId: 'acc2', status: 'live' }, ['a3']],
        ['$in', { status: { $in: ['draft', 'archived'] } }, ['a2', 'a4']],
        ['$ne', { status: { $ne: 'live' } }, ['a2', 'a4']],
        ['$or', { $or: [{ kind: 'form' }, { score: { $gte: 10 } }] }, ['a1', 'a2', 'a5']],
        ['$exists: true (null counts as present)', { archivedAt: { $exists: true } }, ['a3', 'a4']],
        ['$exists: false', { archivedAt: { $exists: false } }, ['a1', 'a2', 'a5']],
        ['null matches null and missing', { archivedAt: null }, ['a1', 'a2', 'a3', 'a5']],
        ['nested field equality', { 'meta.owner': 'ann' }, ['a1', 'a3']],
        ['nested field comparison', { 'meta.depth': { $gt: 1 } }, ['a2', 'a3', 'a5']],
        ['array contains', { tags: 'blue' }, ['a1', 'a2']],
        ['array $in', { tags: { $in: ['green', 'red'] } }, ['a1', 'a4']],
        ['array $all', { tags: { $all: ['red', 'blue'] } }, ['a1']],
        ['array $size', { tags: { $size: 0 } }, ['a3']],
        ['_id $in', { _id: { $in: ['a5', 'a1', 'missing'] } }, ['a1', 'a5']],
        ['_id with another condition', { _id: 'a1', accountId: 'acc1' }, ['a1']],
        ['empty filter', {}, ['a1', 'a2', 'a3', 'a4', 'a5']],
        ['nothing matches', { accountId: 'nobody' }, []],
      ])('%s', async (_name, filter, expected) => {
        const items = await seeded();
        expect(ids(await items.find(filter, { sort: { _id: 1 } }))).toEqual(expected);
      });

      it('returns whole documents', async () => {
        const items = await seeded();
        expect(await items.find({ _id: { $in: ['a3', 'a5'] } }, { sort: { _id: 1 } })).toEqual([ITEMS[2], ITEMS[4]]);
      });

      it.each([
        ['one key descending, ties by _id', { score: -1, _id: 1 }, ['a1', 'a5', 'a2', 'a3', 'a4']],
        ['ascending then descending', { kind: 1, revision: -1 }, ['a5', 'a2', 'a3', 'a1', 'a4']],
        ['nested field, ties by _id descending', { 'meta.owner': 1, _id: -1 }, ['a3', 'a1', 'a5', 'a2', 'a4']],
      ] as const)('sorts: %s', async (_name, sort, expected) => {
        const items = await seeded();
        expect(ids(await items.find({}, { sort }))).toEqual(expected);
      });

      it('projects by inclusion, with or without _id', async () => {
        const items = await seeded();
        expect(await items.find({ _id: 'a1' }, { projection: { status: 1, 'meta.owner': 1 } })).toEqual([
          { _id: 'a1', status: 'live', meta: { owner: 'ann' } },
        ]);
        expect(await items.find({ _id: 'a1' }, { projection: { status: 1, _id: 0 } })).toEqual([{ status: 'live' }]);
      });

      it('projects by exclusion', async () => {
        const items = await seeded();
        const [doc] = await items.find({ _id: 'a2' }, { projection: { tags: 0, meta: 0 } });
        expect(doc).toEqual({ _id: 'a2', accountId: 'acc1', kind: 'form', status: 'draft', revision: 1, score: 5 });
      });

      it('sorts on fields the projection leaves out', async () => {
        const items = await seeded();
        expect(await items.find({}, { sort: { score: -1 }, projection: { _id: 1 }, limit: 2 })).toEqual([{ _id: 'a1' }, { _id: 'a5' }]);
      });

      it('applies skip and limit after sorting', async () => {
        const items = await seeded();
        expect(ids(await items.find({}, { sort: { _id: 1 }, skip: 1, limit: 2 }))).toEqual(['a2', 'a3']);
        expect(ids(await items.find({}, { sort: { _id: -1 }, limit: 1 }))).toEqual(['a5']);
        expect(ids(await items.find({}, { sort: { _id: 1 }, skip: 4 }))).toEqual(['a5']);
        expect(await items.find({}, { skip: 10 })).toEqual([]);
        expect(await items.find({ kind: 'page' }, { limit: 2 })).toHaveLength(2);
        expect(await items.find({}, { limit: 0 })).toHaveLength(5); // 0 means no limit
      });

      it('pages by key ($gt the last key, sorted, limited), finding each document once while others are written', async () => {
        // Keyset paging as the asset lists use it: an indexed filter, then `key > cursor`, sorted by key.
        const pages = store.collection<Doc & { accountId: string; key: string; status: string }>('pages');
        await pages.createIndex({ accountId: 1, status: 1 });
        const doc = (key: string, accountId = 'acc1') => ({ _id: `${accountId}:${key}`, accountId, key, status: 'live' });
        const existing = ['k03', 'k05', 'k07', 'k09', 'k11', 'k13', 'k15'];
        await pages.bulkWrite([...existing.map((k) => ({ insertOne: { document: doc(k) } })), { insertOne: { document: doc('k04', 'acc2') } }]);
        const seen: string[] = [];
        let cursor: string | undefined;
        for (let page = 0; page < 10; page++) {
          const filter: Filter = { accountId: 'acc1', status: 'live', ...(cursor === undefined ? {} : { key: { $gt: cursor } }) };
          const found = await pages.find(filter, { sort: { key: 1 }, limit: 3 });
          seen.push(...found.map((d) => d.key));
          if (found.length < 3) break;
          cursor = found[found.length - 1].key;
          // Between pages: new documents before and after the cursor, and an update of a seen one.
          await pages.bulkWrite([
            { insertOne: { document: doc(`k0${page}a`) } },
            { insertOne: { document: doc(`k2${page}`) } },
            { updateOne: { filter: { _id: 'acc1:k03' }, update: { $set: { status: 'live', touched: page } } } },
          ]);
        }
        expect(seen.filter((k) => existing.includes(k))).toEqual(existing);
        expect(new Set(seen).size).toBe(seen.length);
        expect(seen).toEqual([...seen].sort());
      });
    });

    describe('findOne', () => {
      it('finds by _id, or returns null', async () => {
        const items = await seeded();
        expect(await items.findOne({ _id: 'a2' })).toEqual(ITEMS[1]);
        expect(await items.findOne({ _id: 'missing' })).toBeNull();
      });

      it('applies the rest of the filter to the document found by _id', async () => {
        const items = await seeded();
        expect(await items.findOne({ _id: 'a1', accountId: 'acc1' })).toEqual(ITEMS[0]);
        expect(await items.findOne({ _id: 'a1', accountId: 'acc2' })).toBeNull();
      });

      it('takes the first by sort, and projects', async () => {
        const items = await seeded();
        expect(await items.findOne({ kind: 'page' }, { sort: { score: 1 } })).toEqual(ITEMS[3]);
        expect(await items.findOne({ kind: 'form' }, { sort: { score: -1 }, projection: { status: 1 } })).toEqual({ _id: 'a5', status: 'live' });
      });

      it('projects the document it finds without a sort, and answers a copy', async () => {
        const items = await seeded();
        expect(await items.findOne({ _id: 'a2' }, { projection: { revision: 1, status: 1 } })).toEqual({ _id: 'a2', status: 'draft', revision: 1 });
        expect(await items.findOne({ _id: 'a2' }, { projection: { _id: 0, tags: 0, meta: 0 } })).toEqual({
          accountId: 'acc1',
          kind: 'form',
          status: 'draft',
          revision: 1,
          score: 5,
        });
        expect(await items.findOne({ kind: 'form' }, { projection: { 'meta.owner': 1 } })).toEqual({ _id: 'a2', meta: { owner: 'bob' } });
        expect(await items.findOne({ _id: 'missing' }, { projection: { status: 1 } })).toBeNull();
        const found = await items.findOne({ _id: 'a1' }, { projection: { meta: 1 } });
        (found!.meta as { owner: string }).owner = 'changed';
        expect(await items.findOne({ _id: 'a1' })).toEqual(ITEMS[0]);
      });
    });

    describe('countDocuments', () => {
      it('counts all or matching documents', async () => {
        const items = await seeded();
        expect(await items.countDocuments()).toBe(5);
        expect(await items.countDocuments({})).toBe(5);
        expect(await items.countDocuments({ kind: 'page' })).toBe(3);
        expect(await items.countDocuments({ tags: 'blue', score: { $lt: 10 } })).toBe(1);
        expect(await store.collection('empty').countDocuments()).toBe(0);
      });
    });

    describe('bulkWrite', () => {
      it('applies every kind of operation and counts them', async () => {
        const items = await seeded();
        const result = await items.bulkWrite([
          { insertOne: { document: { _id: 'a6', accountId: 'acc4', kind: 'landing', status: 'live' } } },
          { updateOne: { filter: { _id: 'a1' }, update: { $set: { status: 'archived' }, $inc: { score: 1 }, $unset: { tags: '' } } } },
          {
            updateOne: { filter: { _id: 'n1' }, update: { $set: { status: 'new' }, $setOnInsert: { createdBy: 'upsert' }, $inc: { score: 2 } }, upsert: true },
          },
          { updateMany: { filter: { kind: 'form' }, update: { $set: { flagged: true } } } },
          { replaceOne: { filter: { _id: 'a3' }, replacement: { _id: 'a3', accountId: 'acc2', kind: 'page', status: 'replaced', revision: 8 } } },
          { replaceOne: { filter: { _id: 'n2' }, replacement: { _id: 'n2', status: 'fresh' }, upsert: true } },
          { deleteOne: { filter: { _id: 'a4' } } },
          { deleteMany: { filter: { accountId: 'nobody' } } },
        ]);
        expect(result).toEqual({ insertedCount: 1, matchedCount: 4, modifiedCount: 4, deletedCount: 1, upsertedCount: 2 });
        expect(await items.find({}, { sort: { _id: 1 } })).toEqual([
          { _id: 'a1', accountId: 'acc1', kind: 'page', status: 'archived', revision: 3, score: 11, meta: { owner: 'ann', depth: 1 } },
          { ...ITEMS[1], flagged: true },
          { _id: 'a3', accountId: 'acc2', kind: 'page', status: 'replaced', revision: 8 },
          { ...ITEMS[4], flagged: true },
          { _id: 'a6', accountId: 'acc4', kind: 'landing', status: 'live' },
          { _id: 'n1', status: 'new', createdBy: 'upsert', score: 2 },
          { _id: 'n2', status: 'fresh' },
        ]);
      });

      it('returns zero counts for an empty batch', async () => {
        expect(await store.collection('items').bulkWrite([])).toEqual(NO_WRITES);
      });

      it('ignores $setOnInsert when the update matches', async () => {
        const items = await seeded();
        const result = await items.bulkWrite([
          { updateOne: { filter: { _id: 'a2' }, update: { $set: { status: 'live' }, $setOnInsert: { createdBy: 'upsert' } }, upsert: true } },
        ]);
        expect(result).toEqual({ ...NO_WRITES, matchedCount: 1, modifiedCount: 1 });
        expect(await items.findOne({ _id: 'a2' })).toEqual({ ...ITEMS[1], status: 'live' });
      });

      it('seeds an upserted document from the equality conditions of the filter', async () => {
        const items = await seeded();
        await items.bulkWrite([
          { updateOne: { filter: { accountId: 'acc9', kind: 'page', score: { $gt: 3 } }, update: { $set: { status: 'seeded' } }, upsert: true } },
        ]);
        const created = await items.findOne({ accountId: 'acc9' }, { projection: { _id: 0 } });
        expect(created).toEqual({ accountId: 'acc9', kind: 'page', status: 'seeded' });
      });

      it('upserts with updateMany when nothing matches', async () => {
        const items = await seeded();
        const result = await items.bulkWrite([{ updateMany: { filter: { _id: 'n3' }, update: { $set: { status: 'new' } }, upsert: true } }]);
        expect(result).toEqual({ ...NO_WRITES, upsertedCount: 1 });
        expect(await items.findOne({ _id: 'n3' })).toEqual({ _id: 'n3', status: 'new' });
      });

      it('counts matched but unchanged documents as not modified', async () => {
        const items = await seeded();
        const result = await items.bulkWrite([
          { updateOne: { filter: { _id: 'a1' }, update: { $set: { status: 'live' } } } },
          { replaceOne: { filter: { _id: 'a2' }, replacement: ITEMS[1] } },
          { updateOne: { filter: { _id: 'missing' }, update: { $set: { status: 'live' } } } },
        ]);
        expect(result).toEqual({ ...NO_WRITES, matchedCount: 2 });
      });

      it('reports a stale guarded upsert as a duplicate key and still applies the other operations', async () => {
        const items = await seeded();
        const error = await bulkWriteError(
          items.bulkWrite([
            guardedReplace({ _id: 'a1', status: 'stale', revision: 2 }), // stored revision 3 is newer
            guardedReplace({ _id: 'a2', status: 'newer', revision: 5 }), // stored revision 1 is older
            guardedReplace({ _id: 'n1', status: 'first', revision: 1 }), // not stored yet
            guardedReplace({ _id: 'a3', status: 'same', revision: 7 }), // stored revision 7: a replay
          ]),
        );
        const failures = [...error.failures].sort((a, b) => a.index - b.index);
        expect(failures.map(({ index, code }) => ({ index, code }))).toEqual([
          { index: 0, code: DUPLICATE_KEY },
          { index: 3, code: DUPLICATE_KEY },
        ]);
        expect(error.result).toEqual({ ...NO_WRITES, matchedCount: 1, modifiedCount: 1, upsertedCount: 1 });
        expect(await items.findOne({ _id: 'a1' })).toEqual(ITEMS[0]);
        expect(await items.findOne({ _id: 'a2' })).toEqual({ _id: 'a2', status: 'newer', revision: 5 });
        expect(await items.findOne({ _id: 'n1' })).toEqual({ _id: 'n1', status: 'first', revision: 1 });
        expect(await items.findOne({ _id: 'a3' })).toEqual(ITEMS[2]);
      });

      it('applies a guarded upsert over a document without a revision', async () => {
        const items = store.collection<Item>('items');
        await items.bulkWrite([{ insertOne: { document: { _id: 'x1', status: 'legacy' } } }]);
        await items.bulkWrite([guardedReplace({ _id: 'x1', status: 'projected', revision: 1 })]);
        expect(await items.findOne({ _id: 'x1' })).toEqual({ _id: 'x1', status: 'projected', revision: 1 });
      });

      it('reports an insert of an existing _id as a duplicate key', async () => {
        const items = await seeded();
        const error = await bulkWriteError(
          items.bulkWrite([{ insertOne: { document: { _id: 'a1', status: 'again' } } }, { insertOne: { document: { _id: 'a7', status: 'new' } } }]),
        );
        expect(error.failures.map(({ index, code }) => ({ index, code }))).toEqual([{ index: 0, code: DUPLICATE_KEY }]);
        expect(error.result).toEqual({ ...NO_WRITES, insertedCount: 1 });
        expect(await items.countDocuments()).toBe(6);
      });

      it('reports operation errors with MongoDB codes', async () => {
        const items = await seeded();
        const error = await bulkWriteError(
          items.bulkWrite([
            { updateOne: { filter: { _id: 'a1' }, update: { $inc: { status: 1 } } } }, // $inc on a string: TypeMismatch
            { replaceOne: { filter: { _id: 'a2' }, replacement: { _id: 'other', status: 'x' } } }, // _id is immutable
            { updateOne: { filter: { _id: 'a3' }, update: { $set: { score: 1 }, $inc: { score: 1 } } } }, // conflicting operators
            { updateOne: { filter: { _id: 'a4' }, update: { $set: { status: 'ok' } } } },
            { updateOne: { filter: { _id: 'a5' }, update: { $set: { 'status.detail': 'x' } } } }, // a field inside a string: PathNotViable
          ]),
        );
        const codes = [...error.failures].sort((a, b) => a.index - b.index).map(({ index, code }) => [index, code]);
        expect(codes).toEqual([
          [0, 14],
          [1, 66],
          [2, 40],
          [4, 28],
        ]);
        expect(error.result).toEqual({ ...NO_WRITES, matchedCount: 1, modifiedCount: 1 });
        expect(await items.findOne({ _id: 'a1' })).toEqual(ITEMS[0]);
        expect(await items.findOne({ _id: 'a3' })).toEqual(ITEMS[2]);
        expect(await items.findOne({ _id: 'a5' })).toEqual(ITEMS[4]);
      });

      it('applies $set, $unset and $inc on nested paths, creating missing parents', async () => {
        const items = await seeded();
        const update = { $set: { 'stats.views': 1, 'meta.owner': 'zed' }, $unset: { 'meta.depth': '', missing: '' }, $inc: { score: -2, 'stats.clicks': 3 } };
        const result = await items.bulkWrite([
          { updateOne: { filter: { _id: 'a1' }, update } },
          { updateOne: { filter: { _id: 'a2' }, update: { $unset: { missing: '' }, $inc: { score: 0 } } } }, // changes nothing
        ]);
        expect(result).toEqual({ ...NO_WRITES, matchedCount: 2, modifiedCount: 1 });
        expect(await items.findOne({ _id: 'a1' })).toEqual({ ...ITEMS[0], score: 8, meta: { owner: 'zed' }, stats: { views: 1, clicks: 3 } });
        expect(await items.findOne({ _id: 'a2' })).toEqual(ITEMS[1]);
      });

      it('updates every matching document with updateMany', async () => {
        const items = await seeded();
        const result = await items.bulkWrite([{ updateMany: { filter: { status: 'live' }, update: { $inc: { revision: 1 }, $set: { 'meta.seen': true } } } }]);
        expect(result).toEqual({ ...NO_WRITES, matchedCount: 3, modifiedCount: 3 });
        const live = await items.find({ status: 'live' }, { sort: { _id: 1 }, projection: { revision: 1, meta: 1 } });
        expect(live).toEqual([
          { _id: 'a1', revision: 4, meta: { owner: 'ann', depth: 1, seen: true } },
          { _id: 'a3', revision: 8, meta: { owner: 'ann', depth: 3, seen: true } },
          { _id: 'a5', revision: 5, meta: { owner: 'bob', depth: 2, seen: true } },
        ]);
        expect(await items.countDocuments({ 'meta.seen': true })).toBe(3);
      });
    });

    describe('deleteMany', () => {
      it('deletes matching documents and reports how many', async () => {
        const items = await seeded();
        expect(await items.deleteMany({ kind: 'page' })).toEqual({ deletedCount: 3 });
        expect(ids(await items.find({}, { sort: { _id: 1 } }))).toEqual(['a2', 'a5']);
        expect(await items.deleteMany({ kind: 'page' })).toEqual({ deletedCount: 0 });
        expect(await items.deleteMany({})).toEqual({ deletedCount: 2 });
        expect(await items.countDocuments()).toBe(0);
      });
    });

    describe('indexes', () => {
      it('returns the index name, and creating it again is a no-op', async () => {
        const items = await seeded();
        expect(await items.createIndex({ accountId: 1, kind: -1 })).toBe('accountId_1_kind_-1');
        expect(await items.createIndex({ accountId: 1, kind: -1 })).toBe('accountId_1_kind_-1');
        expect(await items.createIndex({ status: 1 }, { name: 'by_status' })).toBe('by_status');
        expect(ids(await items.find({ accountId: 'acc2', kind: 'page' }, { sort: { _id: 1 } }))).toEqual(['a3', 'a4']);
        expect(ids(await items.find({ status: 'live' }, { sort: { _id: 1 } }))).toEqual(['a1', 'a3', 'a5']);
      });

      it('keeps index lookups in step with inserts, updates and deletes', async () => {
        const items = await seeded();
        await items.createIndex({ status: 1 });
        await items.bulkWrite([
          { updateOne: { filter: { _id: 'a1' }, update: { $set: { status: 'draft' } } } },
          { insertOne: { document: { _id: 'a8', status: 'draft' } } },
          { deleteOne: { filter: { _id: 'a2' } } },
        ]);
        expect(ids(await items.find({ status: 'draft' }, { sort: { _id: 1 } }))).toEqual(['a1', 'a8']);
        expect(ids(await items.find({ status: 'live' }, { sort: { _id: 1 } }))).toEqual(['a3', 'a5']);
      });

      it('enforces a unique index on inserts, updates and upserts', async () => {
        const users = store.collection('users');
        await users.createIndex({ email: 1 }, { unique: true });
        await users.bulkWrite([{ insertOne: { document: { _id: 'u1', email: 'ann@example.com' } } }]);
        const error = await bulkWriteError(
          users.bulkWrite([
            { insertOne: { document: { _id: 'u2', email: 'ann@example.com' } } },
            { insertOne: { document: { _id: 'u3', email: 'bob@example.com' } } },
          ]),
        );
        expect(error.failures.map(({ index, code }) => ({ index, code }))).toEqual([{ index: 0, code: DUPLICATE_KEY }]);
        expect(error.result).toEqual({ ...NO_WRITES, insertedCount: 1 });

        const update = await bulkWriteError(users.bulkWrite([{ updateOne: { filter: { _id: 'u3' }, update: { $set: { email: 'ann@example.com' } } } }]));
        expect(update.failures.map(({ code }) => code)).toEqual([DUPLICATE_KEY]);
        const upsert = await bulkWriteError(
          users.bulkWrite([{ replaceOne: { filter: { _id: 'u4' }, replacement: { _id: 'u4', email: 'bob@example.com' }, upsert: true } }]),
        );
        expect(upsert.failures.map(({ code }) => code)).toEqual([DUPLICATE_KEY]);
        expect(await users.find({}, { sort: { _id: 1 } })).toEqual([
          { _id: 'u1', email: 'ann@example.com' },
          { _id: 'u3', email: 'bob@example.com' },
        ]);

        // The same document may keep its own key.
        await users.bulkWrite([{ replaceOne: { filter: { _id: 'u1' }, replacement: { _id: 'u1', email: 'ann@example.com', name: 'Ann' } } }]);
        // A missing field is indexed as null, so only one document may lack it.
        await users.bulkWrite([{ insertOne: { document: { _id: 'u5' } } }]);
        const second = await bulkWriteError(users.bulkWrite([{ insertOne: { document: { _id: 'u6' } } }]));
        expect(second.failures.map(({ code }) => code)).toEqual([DUPLICATE_KEY]);
      });

      it('enforces a compound unique index on the combination of fields', async () => {
        const slugs = store.collection('slugs');
        await slugs.createIndex({ accountId: 1, slug: 1 }, { unique: true });
        await slugs.bulkWrite([
          { insertOne: { document: { _id: 's1', accountId: 'acc1', slug: 'home' } } },
          { insertOne: { document: { _id: 's2', accountId: 'acc2', slug: 'home' } } },
        ]);
        const error = await bulkWriteError(slugs.bulkWrite([{ insertOne: { document: { _id: 's3', accountId: 'acc1', slug: 'home' } } }]));
        expect(error.failures.map(({ code }) => code)).toEqual([DUPLICATE_KEY]);
      });

      it('refuses a unique index over existing duplicates', async () => {
        const items = await seeded();
        await expect(items.createIndex({ accountId: 1 }, { unique: true })).rejects.toMatchObject({ code: DUPLICATE_KEY });
        // Nothing was left half-built: duplicates are still accepted.
        await items.bulkWrite([{ insertOne: { document: { _id: 'a9', accountId: 'acc1' } } }]);
        expect(await items.countDocuments({ accountId: 'acc1' })).toBe(3);
      });
    });

    describe('isolation', () => {
      it('returns copies: changing a result does not change the store', async () => {
        const items = await seeded();
        const [found] = await items.find({ _id: 'a1' });
        found.status = 'mutated';
        found.tags?.push('mutated');
        (found.meta as { owner: string }).owner = 'mutated';
        const one = await items.findOne({ _id: 'a1' }, { projection: { meta: 1 } });
        (one?.meta as { owner: string }).owner = 'mutated';
        expect(await items.findOne({ _id: 'a1' })).toEqual(ITEMS[0]);
      });

      it('keeps no reference to written documents or update values', async () => {
        const items = store.collection<Item>('items');
        const document: Item = { _id: 'w1', tags: ['a'], meta: { owner: 'ann', depth: 1 } };
        const meta = { owner: 'bob', depth: 2 };
        await items.bulkWrite([{ insertOne: { document } }, { updateOne: { filter: { _id: 'w2' }, update: { $set: { meta } }, upsert: true } }]);
        document.tags?.push('b');
        meta.owner = 'mutated';
        expect(await items.findOne({ _id: 'w1' })).toEqual({ _id: 'w1', tags: ['a'], meta: { owner: 'ann', depth: 1 } });
        expect(await items.findOne({ _id: 'w2' })).toEqual({ _id: 'w2', meta: { owner: 'bob', depth: 2 } });
      });

      it('answers changeable copies of written values that were frozen, and updates them', async () => {
        const items = store.collection<Item>('items');
        const meta = Object.freeze({ owner: 'ann', depth: 1 });
        const document: Item = Object.freeze({ _id: 'f1', tags: Object.freeze(['a']) as string[], meta });
        await items.bulkWrite([{ replaceOne: { filter: { _id: 'f1' }, replacement: document, upsert: true } }]);
        const found = await items.findOne({ _id: 'f1' });
        found!.tags!.push('b');
        (found!.meta as { owner: string }).owner = 'mutated';
        await items.bulkWrite([{ updateOne: { filter: { _id: 'f1' }, update: { $set: { 'meta.depth': 2 }, $push: { tags: 'c' } } } }]);
        expect(await items.findOne({ _id: 'f1' })).toEqual({ _id: 'f1', tags: ['a', 'c'], meta: { owner: 'ann', depth: 2 } });
        expect(meta).toEqual({ owner: 'ann', depth: 1 });
      });

      it('keeps collections apart by name', async () => {
        await seeded('first');
        const second = store.collection<Item>('second');
        await second.bulkWrite([{ insertOne: { document: { _id: 'a1', status: 'other' } } }]);
        expect(await store.collection('first').countDocuments()).toBe(5);
        expect(await second.find({})).toEqual([{ _id: 'a1', status: 'other' }]);
        await second.deleteMany({});
        expect(await store.collection('first').countDocuments()).toBe(5);
      });
    });

    describe('checkpoints', () => {
      const at = (commit: bigint, prepare: bigint): CheckpointPosition => ({ commit, prepare });

      it('has no checkpoint before the first advance', async () => {
        expect(await store.checkpoints.get('projector')).toBeNull();
      });

      it('stores an advance and refuses an equal or older position', async () => {
        expect(await store.checkpoints.advance('projector', at(10n, 5n))).toBe(true);
        expect(await store.checkpoints.get('projector')).toEqual(at(10n, 5n));
        expect(await store.checkpoints.advance('projector', at(10n, 5n))).toBe(false);
        expect(await store.checkpoints.advance('projector', at(9n, 50n))).toBe(false);
        expect(await store.checkpoints.advance('projector', at(10n, 4n))).toBe(false);
        expect(await store.checkpoints.get('projector')).toEqual(at(10n, 5n));
      });

      it('compares by commit, then by prepare', async () => {
        await store.checkpoints.advance('projector', at(10n, 5n));
        expect(await store.checkpoints.advance('projector', at(10n, 6n))).toBe(true);
        expect(await store.checkpoints.advance('projector', at(11n, 0n))).toBe(true);
        expect(await store.checkpoints.get('projector')).toEqual(at(11n, 0n));
      });

      it('keeps 64-bit positions exact and projectors apart', async () => {
        const far = at(2n ** 62n + 1n, 2n ** 62n - 1n);
        await store.checkpoints.advance('one', far);
        await store.checkpoints.advance('two', at(1n, 1n));
        expect(await store.checkpoints.get('one')).toEqual(far);
        expect(await store.checkpoints.get('two')).toEqual(at(1n, 1n));
        expect(await store.checkpoints.advance('one', at(2n ** 62n + 1n, 2n ** 62n))).toBe(true);
      });

      it('forgets a checkpoint on reset', async () => {
        await store.checkpoints.advance('projector', at(10n, 5n));
        await store.checkpoints.reset('projector');
        expect(await store.checkpoints.get('projector')).toBeNull();
        expect(await store.checkpoints.advance('projector', at(1n, 1n))).toBe(true);
        await store.checkpoints.reset('never-advanced');
      });
    });
  });
}
