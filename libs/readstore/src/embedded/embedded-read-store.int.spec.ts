import fc from 'fast-check';
import { Query, update as applyMingoUpdate } from 'mingo';
import { createReadStore } from '../create-read-store';
import { EmbeddedReadStore } from './embedded-read-store';
import { describeReadStoreContract } from '../read-store.contract';
import { BulkOperation, Doc, Filter, ReadStoreBulkWriteError, UpdateSpec } from '../read-store.port';

describeReadStoreContract('embedded', async () => {
  const store = new EmbeddedReadStore();
  return { store, cleanup: () => store.close() };
});

describe('EmbeddedReadStore', () => {
  it('is not durable, and is what createReadStore picks without a MongoDB URL', async () => {
    expect(new EmbeddedReadStore().durable).toBe(false);
    expect(await createReadStore({})).toBeInstanceOf(EmbeddedReadStore);
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
    const nested = fc.oneof(
      fc.record({ c: fieldValue }, { requiredKeys: [] }),
      fc.array(fc.record({ c: scalar }, { requiredKeys: [] }), { maxLength: 3 }),
      scalar,
    );
    const documentBody = fc.record({ a: fieldValue, k: scalar, b: nested }, { requiredKeys: [] });
    const documents = fc
      .array(documentBody, { minLength: 10, maxLength: 40, size: '+1' })
      .map((bodies) => bodies.map((body, i): Doc => ({ _id: `d${i}`, ...body })));
    const condition = fc.oneof(
      scalar,
      fc.constant(null),
      scalar.map(($eq) => ({ $eq })),
      fc.array(scalar, { minLength: 1, maxLength: 3 }).map(($in) => ({ $in })),
      scalar.map(($ne) => ({ $ne })),
    );
    // _id only now and then: with it the _id fast path answers and the indexes are not consulted.
    const randomFilter = fc
      .tuple(fc.record({ a: condition, k: condition, 'b.c': condition }, { requiredKeys: [] }), fc.option(fc.constantFrom('d0', 'd1', 'd5'), { freq: 8 }))
      .map(([conditions, id]): Filter => (id === null ? conditions : { ...conditions, _id: id }));
    // Writes after the indexes exist move documents between index keys, or out of the collection.
    const documentId = fc.integer({ min: 0, max: 45 }).map((n) => `d${n}`);
    const laterWrite = fc.oneof(
      fc
        .tuple(documentId, documentBody)
        .map(([_id, body]): BulkOperation => ({ replaceOne: { filter: { _id }, replacement: { _id, ...body }, upsert: true } })),
      fc
        .tuple(documentId, fc.constantFrom('a', 'k', 'b.c'), fieldValue)
        .map(([_id, path, value]): BulkOperation => ({ updateOne: { filter: { _id }, update: { $set: { [path]: value } } } })),
      documentId.map((_id): BulkOperation => ({ deleteOne: { filter: { _id } } })),
    );
    // Every single-field and {k, a} equality the indexes can answer, so a key the index misses cannot hide.
    const everyValue: unknown[] = ['x', 'y', 'z', 0, 1, 2, 3, true, false];
    const exhaustiveLookups: Filter[] = [
      ...['a', 'k', 'b.c'].flatMap((path) => everyValue.map((value) => ({ [path]: value }))),
      ...everyValue.flatMap((k) => everyValue.map((a) => ({ k, a }))),
      ...['a', 'b.c'].map((path) => ({ [path]: { $in: ['x', 1, true] } })),
    ];

    const referenceIds = (docs: Doc[], query: Filter) =>
      new Query(query)
        .find<Doc>(docs)
        .all()
        .map((doc) => doc._id)
        .sort();

    it('returns what mingo returns over the same documents, with and without indexes', async () => {
      await fc.assert(
        fc.asyncProperty(documents, fc.array(laterWrite, { maxLength: 15 }), fc.array(randomFilter, { maxLength: 8 }), async (initial, writes, filters) => {
          const indexed = new EmbeddedReadStore().collection('docs');
          const scanned = new EmbeddedReadStore().collection('docs');
          await indexed.createIndex({ a: 1 });
          await indexed.createIndex({ k: 1, a: 1 });
          await indexed.createIndex({ 'b.c': 1 });
          const inserts = initial.map((document): BulkOperation => ({ insertOne: { document } }));
          for (const collection of [indexed, scanned]) {
            await collection.bulkWrite(inserts);
            await collection.bulkWrite(writes).catch(() => undefined); // e.g. $set inside a scalar; the same for both
          }
          const current = await scanned.find({});
          expect(await indexed.find({})).toEqual(current);
          // One assertion per run (jest's expect is the slow part here); a failure shows the query.
          const actual: unknown[] = [];
          const expected: unknown[] = [];
          for (const query of [...exhaustiveLookups, ...filters]) {
            const ids = referenceIds(current, query);
            expected.push({ query, indexed: ids, scanned: ids, count: ids.length });
            actual.push({
              query,
              indexed: (await indexed.find(query)).map((doc) => doc._id).sort(),
              scanned: (await scanned.find(query)).map((doc) => doc._id).sort(),
              count: await indexed.countDocuments(query),
            });
          }
          expect(actual).toEqual(expected);
        }),
        { numRuns: 100 },
      );
    });
  });

  describe('update operators agree with mingo', () => {
    // $set, $unset and $inc are applied without mingo for speed (see applyDirectly); mingo is the
    // reference here. Failures MongoDB reports but mingo skips silently (codes 14, 28) are left to the contract.
    const leaf = fc.oneof(fc.constantFrom('x', 'y'), fc.integer({ min: -2, max: 2 }), fc.constant(null), fc.boolean());
    const value = fc.oneof(leaf, fc.array(leaf, { maxLength: 3 }), fc.record({ m: leaf, k: leaf }, { requiredKeys: [] }));
    const body = fc.record(
      { a: value, n: fc.record({ m: value, k: leaf }, { requiredKeys: [] }), arr: fc.array(value, { maxLength: 3 }) },
      { requiredKeys: [] },
    );
    const path = fc.constantFrom('a', 'b', 'n', 'n.m', 'n.k', 'n.z', 'n.m.k', 'x.y.z', 'arr.0', 'arr.1', 'arr.4');
    const operation = fc.oneof(
      fc.dictionary(path, value, { minKeys: 1, maxKeys: 3 }).map(($set) => ({ $set })),
      fc.dictionary(path, fc.constant(''), { minKeys: 1, maxKeys: 2 }).map(($unset) => ({ $unset })),
      fc.dictionary(path, fc.integer({ min: -1, max: 2 }), { minKeys: 1, maxKeys: 2 }).map(($inc) => ({ $inc })),
    );
    const updateSpec = fc.array(operation, { minLength: 1, maxLength: 3 }).map((operations) => Object.assign({}, ...operations) as UpdateSpec);

    it('produces the documents and modified counts mingo does', async () => {
      await fc.assert(
        fc.asyncProperty(body, updateSpec, async (fields, update) => {
          const items = new EmbeddedReadStore().collection('items');
          const original: Doc = { _id: 'u', ...fields };
          await items.bulkWrite([{ insertOne: { document: original } }]);
          const outcome = await items.bulkWrite([{ updateOne: { filter: { _id: 'u' }, update } }]).catch((error: ReadStoreBulkWriteError) => error);
          if (outcome instanceof ReadStoreBulkWriteError) {
            expect([14, 28, 40]).toContain(outcome.failures[0].code);
            expect(await items.findOne({ _id: 'u' })).toEqual(original);
            return;
          }
          const expected = structuredClone(original);
          applyMingoUpdate(expected, update, undefined, undefined, { cloneMode: 'deep' });
          // mingo pads arrays with holes where MongoDB (and BSON) put nulls; JSON makes them nulls.
          const after = JSON.parse(JSON.stringify(expected));
          expect(await items.findOne({ _id: 'u' })).toEqual(after);
          // As in MongoDB, a document counts as modified when its content changed (mingo also
          // reports a $set of an equal array or object as a change, so its flag is not the oracle).
          const changed = JSON.stringify(after) !== JSON.stringify(JSON.parse(JSON.stringify(original)));
          expect(outcome.modifiedCount).toBe(changed ? 1 : 0);
        }),
        { numRuns: 500 },
      );
    });
  });

  describe('projections agree with mingo', () => {
    // Top-level projections are applied without mingo for speed; mingo is the reference.
    const value = fc.oneof(
      fc.constantFrom('x', 'y'),
      fc.integer(),
      fc.constant(null),
      fc.array(fc.integer(), { maxLength: 2 }),
      fc.record({ m: fc.integer() }),
    );
    const body = fc.record({ a: value, b: value, c: value, d: value }, { requiredKeys: [] });
    const projection = fc.oneof(
      fc.record({ a: fc.constant(1 as const), b: fc.constant(1 as const), _id: fc.constantFrom(0 as const, 1 as const) }, { requiredKeys: [] }),
      // (mingo rejects _id: 1 beside exclusions, so that pair is not compared.)
      fc.record({ a: fc.constant(0 as const), c: fc.constant(0 as const), _id: fc.constant(0 as const) }, { requiredKeys: [] }),
      fc.record({ _id: fc.constantFrom(0 as const, 1 as const) }),
      fc.record({ 'a.m': fc.constantFrom(0 as const, 1 as const), d: fc.constantFrom(0 as const, 1 as const) }, { requiredKeys: [] }),
    );

    it("returns the fields mingo returns, in the documents' order (as MongoDB does)", async () => {
      // Fields in varying orders: copies are made by code generated per field order met.
      const ordered = fc
        .tuple(body, fc.boolean())
        .map(([fieldValues, reversed]) => (reversed ? Object.fromEntries(Object.entries(fieldValues).reverse()) : fieldValues));
      await fc.assert(
        fc.asyncProperty(fc.array(ordered, { minLength: 1, maxLength: 5 }), projection, async (bodies, fields) => {
          const docs = bodies.map((fieldValues, i): Doc => ({ _id: `p${i}`, ...fieldValues }));
          const items = new EmbeddedReadStore().collection('items');
          await items.bulkWrite(docs.map((document): BulkOperation => ({ insertOne: { document } })));
          const expected = await Promise.resolve()
            .then(() => new Query({}).find(docs, fields).all())
            .catch((error: Error) => error.message);
          const actual = await items.find({}, { projection: fields }).catch((error: Error) => error.message);
          expect(actual).toEqual(expected);
          // (mingo, which applies the projections of paths here, lists an inclusion's fields in the
          // projection's order; MongoDB and this store's top-level projections in the document's.)
          if (!Array.isArray(actual) || !Array.isArray(expected) || Object.keys(fields).some((field) => field.includes('.'))) return;
          const inDocumentOrder = (i: number) => Object.keys(docs[i]).filter((field) => field in (expected[i] as Doc));
          expect(actual.map((doc) => Object.keys(doc))).toEqual(docs.map((_doc, i) => inDocumentOrder(i)));
          for (const [i, doc] of docs.entries()) {
            const one = await items.findOne({ _id: doc._id }, { projection: fields });
            expect(one).toEqual(expected[i]);
            expect(Object.keys(one ?? {})).toEqual(inDocumentOrder(i));
          }
        }),
        { numRuns: 300 },
      );
    });

    it("copies a document's fields whatever their names (quotes, backslashes, line breaks, Object's own names)", async () => {
      const items = new EmbeddedReadStore().collection('items');
      const odd = ['a"b', 'c\\d', 'e\nf', '\u2028', "'", 'a${b}', 'constructor', 'toString', 'hasOwnProperty'];
      const doc: Doc = { _id: 'odd' };
      odd.forEach((field, i) => (doc[field] = i));
      await items.bulkWrite([{ insertOne: { document: doc } }]);
      const kept = Object.fromEntries(odd.map((field) => [field, 1 as const]));
      const [withOdd] = await items.find({ _id: 'odd' }, { projection: { ...kept, _id: 0 } });
      expect(Object.entries(withOdd)).toEqual(odd.map((field, i) => [field, i]));
      const [all] = await items.find({ _id: 'odd' }, { projection: { 'a"b': 0 } });
      expect(Object.entries(all)).toEqual([['_id', 'odd'], ...odd.slice(1).map((field, i) => [field, i + 1])]);
      expect(Object.getPrototypeOf(all)).toBe(Object.prototype);
    });
  });

  describe('sorts agree with mingo', () => {
    // Mostly strings (the fast path), sometimes another type or a missing field (mingo's way).
    const key = fc.oneof(
      { weight: 8, arbitrary: fc.constantFrom('', 'a', 'b', 'B', 'ab', 'é', '\u{1F600}', '\uFF41', 'a b') },
      { weight: 1, arbitrary: fc.oneof(fc.integer({ min: -1, max: 1 }), fc.constant(null), fc.boolean()) },
    );
    const body = fc.record({ a: key, b: key, n: fc.record({ a: key }) }, { requiredKeys: ['n'] });
    const sortSpec = fc
      .uniqueArray(fc.constantFrom('a', 'b', 'n.a', '_id'), { minLength: 1, maxLength: 3 })
      .chain((fields) => fc.tuple(...fields.map((field) => fc.constantFrom<1 | -1>(1, -1).map((order) => [field, order] as const))))
      .map((entries) => Object.fromEntries(entries) as Record<string, 1 | -1>);

    it('returns the documents in the order mingo sorts them, equal keys in stored order', async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(body, { maxLength: 30 }), sortSpec, async (bodies, sort) => {
          const collection = new EmbeddedReadStore().collection('docs');
          const docs = bodies.map((fields, i) => ({ _id: `d${i}`, ...fields }));
          if (docs.length) await collection.bulkWrite(docs.map((document): BulkOperation => ({ insertOne: { document } })));
          const expected = new Query({}).find<Doc>(docs).sort(sort).all();
          expect((await collection.find({}, { sort })).map((doc) => doc._id)).toEqual(expected.map((doc) => doc._id));
        }),
        { numRuns: 300 },
      );
    });
  });

  describe('a large answer does not hold the event loop', () => {
    it('lets other callbacks run between slices of the copies it makes (10,000 documents: at least 19 times)', async () => {
      const collection = new EmbeddedReadStore().collection('assets');
      const operations: BulkOperation[] = [];
      for (let i = 0; i < 10_000; i++) {
        const id = `tag-${String((i * 7919) % 10_000).padStart(5, '0')}`;
        operations.push({ insertOne: { document: { _id: id, accountId: 'A', kind: 'visitortag', assetId: id, record: { idTag: id, tagName: `Tag ${i}` } } } });
      }
      await collection.bulkWrite(operations);

      let turns = 0;
      let finding = true;
      const turn = () => {
        turns++;
        if (finding) setImmediate(turn);
      };
      setImmediate(turn);
      const found = await collection.find({ accountId: 'A', kind: 'visitortag', status: { $ne: 'deleted' } }, { sort: { assetId: 1 } });
      finding = false;

      expect(found).toHaveLength(10_000);
      expect(found[0]._id).toBe('tag-00000');
      expect(found[9_999]._id).toBe('tag-09999');
      // At most 500 copies a turn: 20 slices, with a turn of the loop between each two.
      expect(turns).toBeGreaterThanOrEqual(19);
      // The answer is private: changing it changes nothing stored.
      (found[0].record as { tagName: string }).tagName = 'changed';
      expect((await collection.findOne({ _id: 'tag-00000' }))?.record).toEqual({ idTag: 'tag-00000', tagName: 'Tag 0' });
    });
  });

  describe('cost does not grow with the collection (no scans, no recompiles)', () => {
    // Relative, not absolute: each measure is compared with the same work on a collection 10 or 100
    // times smaller, in the same test, so a loaded machine slows both sides alike. A full scan or a
    // per-operation recompile would make the large side 10 to 100 times slower.
    async function msFor(work: () => Promise<void>): Promise<number> {
      const started = performance.now();
      await work();
      return performance.now() - started;
    }

    it('guarded upserts into 100,000 documents cost about what they cost into 10,000', async () => {
      const timePerBatch = async (total: number) => {
        const items = new EmbeddedReadStore().collection('items');
        await items.createIndex({ accountId: 1 });
        await items.createIndex({ accountId: 1, kind: 1 });
        const batches = guardedBatches(total, 1_000);
        const ms = await msFor(async () => {
          for (const batch of batches) await items.bulkWrite(batch);
        });
        expect(await items.countDocuments()).toBe(total);
        return ms / batches.length;
      };
      await timePerBatch(2_000); // warm-up
      const small = await timePerBatch(10_000);
      const large = await timePerBatch(100_000);
      expect(large / small).toBeLessThan(5);
    });

    it('finds one document by _id among 100,000 at about the cost among 1,000', async () => {
      const timePerLookup = async (total: number) => {
        const items = new EmbeddedReadStore().collection('items');
        for (const batch of guardedBatches(total, 10_000)) await items.bulkWrite(batch);
        const lookups = 20_000;
        const ms = await msFor(async () => {
          for (let i = 0; i < lookups; i++) await items.findOne({ _id: `doc-${(i * 7919) % total}`, accountId: `acc-${((i * 7919) % total) % 500}` });
        });
        return ms / lookups;
      };
      await timePerLookup(1_000); // warm-up
      const small = await timePerLookup(1_000);
      const large = await timePerLookup(100_000);
      // Memory locality alone costs a few times more among 100,000; a scan would cost about 100 times more.
      expect(large / small).toBeLessThan(20);
    });
  });
});

function guardedBatches(total: number, batchSize: number): BulkOperation[][] {
  const batches: BulkOperation[][] = [];
  for (let start = 0; start < total; start += batchSize) {
    const batch: BulkOperation[] = [];
    for (let i = start; i < Math.min(total, start + batchSize); i++) {
      const revision = 1;
      const doc = {
        _id: `doc-${i}`,
        accountId: `acc-${i % 500}`,
        kind: i % 3 === 0 ? 'page' : 'form',
        status: 'live',
        revision,
        title: `Item ${i}`,
        tags: ['a', 'b'],
      };
      batch.push({
        replaceOne: { filter: { _id: doc._id, $or: [{ revision: { $lt: revision } }, { revision: { $exists: false } }] }, replacement: doc, upsert: true },
      });
    }
    batches.push(batch);
  }
  return batches;
}
