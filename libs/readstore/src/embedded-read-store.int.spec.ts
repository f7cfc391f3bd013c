import fc from 'fast-check';
import { Query } from 'mingo';
import { EmbeddedReadStore } from './embedded-read-store';
import { describeReadStoreContract } from './read-store.contract';
import { BulkOperation, Doc, Filter, ReadStoreBulkWriteError } from './read-store.port';

describeReadStoreContract('embedded', async () => {
  const store = new EmbeddedReadStore();
  return { store, cleanup: () => store.close() };
});

describe('EmbeddedReadStore', () => {
  it('is not durable', () => {
    expect(new EmbeddedReadStore().durable).toBe(false);
  });

  it('rejects a malformed batch before applying any of it, as the driver does', async () => {
    const items = new EmbeddedReadStore().collection('items');
    const batch = [
      { insertOne: { document: { _id: 'x' } } },
      { updateOne: { filter: { _id: 'x' }, update: { status: 'no operator' } } },
    ] as unknown as BulkOperation[];
    await expect(items.bulkWrite(batch)).rejects.toThrow(/atomic operators/);
    expect(await items.countDocuments()).toBe(0);
  });

  it('reports fields created inside a scalar as MongoDB does (PathNotViable)', async () => {
    const items = new EmbeddedReadStore().collection('items');
    await items.bulkWrite([{ insertOne: { document: { _id: 'x', meta: 'text' } } }]);
    const failure = await items.bulkWrite([{ updateOne: { filter: { _id: 'x' }, update: { $set: { 'meta.owner': 'ann' } } } }]).catch((error: ReadStoreBulkWriteError) => error.failures[0]);
    expect(failure).toMatchObject({ index: 0, code: 28 });
  });

  describe('index lookups agree with full scans', () => {
    // Small value domains so that filters hit; arrays, nested arrays, objects, null and missing
    // fields exercise MongoDB's multikey and null rules.
    const scalar = fc.oneof(fc.constantFrom('x', 'y', 'z'), fc.integer({ min: 0, max: 3 }), fc.boolean());
    const fieldValue = fc.oneof(
      { weight: 4, arbitrary: scalar },
      { weight: 1, arbitrary: fc.constant(null) },
      { weight: 2, arbitrary: fc.array(fc.oneof(scalar, fc.constant(null)), { maxLength: 3 }) },
      { weight: 1, arbitrary: fc.array(fc.array(scalar, { maxLength: 2 }), { maxLength: 2 }) },
      { weight: 1, arbitrary: fc.record({ c: scalar }) },
    );
    const nested = fc.oneof(fc.record({ c: fieldValue }, { requiredKeys: [] }), fc.array(fc.record({ c: scalar }, { requiredKeys: [] }), { maxLength: 3 }), scalar);
    const documentBody = fc.record({ a: fieldValue, k: scalar, b: nested }, { requiredKeys: [] });
    const documents = fc.array(documentBody, { maxLength: 40 }).map((bodies) => bodies.map((body, i): Doc => ({ _id: `d${i}`, ...body })));
    const condition = fc.oneof(
      scalar,
      fc.constant(null),
      scalar.map(($eq) => ({ $eq })),
      fc.array(scalar, { minLength: 1, maxLength: 3 }).map(($in) => ({ $in })),
      scalar.map(($ne) => ({ $ne })),
    );
    const filter = fc.record({ a: condition, k: condition, 'b.c': condition, _id: fc.constantFrom('d0', 'd1', 'd5') }, { requiredKeys: [] });
    const updates = fc.array(fc.tuple(fc.integer({ min: 0, max: 45 }), documentBody), { maxLength: 15 });

    const referenceIds = (docs: Doc[], query: Filter) =>
      new Query(query)
        .find<Doc>(docs)
        .all()
        .map((doc) => doc._id)
        .sort();

    it('returns what mingo returns over the same documents, with and without indexes', async () => {
      await fc.assert(
        fc.asyncProperty(documents, updates, fc.array(filter, { minLength: 1, maxLength: 8 }), async (initial, changes, filters) => {
          const indexed = new EmbeddedReadStore().collection('docs');
          const scanned = new EmbeddedReadStore().collection('docs');
          await indexed.createIndex({ a: 1 });
          await indexed.createIndex({ k: 1, a: 1 });
          await indexed.createIndex({ 'b.c': 1 });
          const inserts = initial.map((document): BulkOperation => ({ insertOne: { document } }));
          // Replacements move documents between index keys after the indexes were built.
          const replacements = changes.map(([n, body]): BulkOperation => ({ replaceOne: { filter: { _id: `d${n}` }, replacement: { _id: `d${n}`, ...body }, upsert: true } }));
          for (const collection of [indexed, scanned]) {
            await collection.bulkWrite(inserts);
            await collection.bulkWrite(replacements);
          }
          const current = await scanned.find({});
          for (const query of filters) {
            const expected = referenceIds(current, query);
            expect((await indexed.find(query)).map((doc) => doc._id).sort()).toEqual(expected);
            expect((await scanned.find(query)).map((doc) => doc._id).sort()).toEqual(expected);
            expect(await indexed.countDocuments(query)).toBe(expected.length);
          }
        }),
        { numRuns: 300 },
      );
    });
  });

  describe('performance', () => {
    // Generous bounds (shared 2-core machines); they catch an accidental full scan or recompile
    // per operation, which would be orders of magnitude slower.
    it('applies 100,000 guarded upserts in batches of 1,000 within budget', async () => {
      const items = new EmbeddedReadStore().collection('items');
      await items.createIndex({ accountId: 1 });
      await items.createIndex({ accountId: 1, kind: 1 });
      const batches = guardedBatches(100_000, 1_000);
      const started = performance.now();
      for (const batch of batches) await items.bulkWrite(batch);
      const elapsed = performance.now() - started;
      expect(await items.countDocuments()).toBe(100_000);
      expect(elapsed).toBeLessThan(3_000);
    });

    it('finds one document by _id among 100,000 in microseconds', async () => {
      const items = new EmbeddedReadStore().collection('items');
      for (const batch of guardedBatches(100_000, 10_000)) await items.bulkWrite(batch);
      const lookups = 20_000;
      const started = performance.now();
      for (let i = 0; i < lookups; i++) await items.findOne({ _id: `doc-${(i * 7919) % 100_000}`, accountId: `acc-${((i * 7919) % 100_000) % 500}` });
      const perLookupMicros = ((performance.now() - started) * 1000) / lookups;
      expect(perLookupMicros).toBeLessThan(50);
    });
  });
});

function guardedBatches(total: number, batchSize: number): BulkOperation[][] {
  const batches: BulkOperation[][] = [];
  for (let start = 0; start < total; start += batchSize) {
    const batch: BulkOperation[] = [];
    for (let i = start; i < Math.min(total, start + batchSize); i++) {
      const revision = 1;
      const doc = { _id: `doc-${i}`, accountId: `acc-${i % 500}`, kind: i % 3 === 0 ? 'page' : 'form', status: 'live', revision, title: `Item ${i}`, tags: ['a', 'b'] };
      batch.push({ replaceOne: { filter: { _id: doc._id, $or: [{ revision: { $lt: revision } }, { revision: { $exists: false } }] }, replacement: doc, upsert: true } });
    }
    batches.push(batch);
  }
  return batches;
}
