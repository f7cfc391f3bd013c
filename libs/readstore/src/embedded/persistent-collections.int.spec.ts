import { statSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir, type TempDir } from '@funnel/testing';
import { createReadStore } from '../create-read-store';
import { EmbeddedReadStore } from './embedded-read-store';

describe('EmbeddedReadStore: persistent collections (state no projection rebuilds)', () => {
  let dir: TempDir;
  let file: string;
  const open: EmbeddedReadStore[] = [];
  const store = () => {
    const opened = new EmbeddedReadStore({ stateFile: file });
    open.push(opened);
    return opened;
  };

  beforeEach(() => {
    dir = tempDir('read-state');
    file = join(dir.path, 'readstate.sqlite');
  });

  afterEach(async () => {
    for (const opened of open.splice(0)) await opened.close();
    dir.remove();
  });

  it('keeps what every kind of write left across a restart; the other collections start empty, as projections rebuild them', async () => {
    const first = store();
    const jobs = first.collection('jobs', { persistent: true });
    await jobs.bulkWrite([
      { insertOne: { document: { _id: 'a', status: 'queued', at: new Date('2026-03-01T00:00:00Z'), parts: [{ n: 1 }] } } },
      { insertOne: { document: { _id: 'b', status: 'queued' } } },
      { insertOne: { document: { _id: 'c', status: 'queued' } } },
      { updateOne: { filter: { _id: 'd' }, update: { $set: { status: 'running' }, $inc: { attempts: 1 } }, upsert: true } },
    ]);
    await jobs.bulkWrite([
      { updateOne: { filter: { _id: 'a' }, update: { $set: { status: 'done' } } } },
      { replaceOne: { filter: { _id: 'b' }, replacement: { _id: 'b', status: 'failed' } } },
      { deleteOne: { filter: { _id: 'c' } } },
    ]);
    await jobs.deleteMany({ status: 'running' });
    await first.collection('projected').bulkWrite([{ insertOne: { document: { _id: 'p' } } }]);
    await first.close();

    const second = store();
    expect(await second.collection('jobs', { persistent: true }).find({}, { sort: { _id: 1 } })).toEqual([
      { _id: 'a', status: 'done', at: new Date('2026-03-01T00:00:00Z'), parts: [{ n: 1 }] },
      { _id: 'b', status: 'failed' },
    ]);
    expect(await second.collection('projected').countDocuments()).toBe(0);
    // The file holds every account's operational state: its owner's alone.
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it('is what createReadStore gives with a state file', async () => {
    const first = (await createReadStore({ stateFile: file })) as EmbeddedReadStore;
    open.push(first);
    await first.collection('counters', { persistent: true }).bulkWrite([{ insertOne: { document: { _id: 'x', count: 3 } } }]);
    await first.close();
    expect(await store().collection('counters', { persistent: true }).findOne({ _id: 'x' })).toEqual({ _id: 'x', count: 3 });
  });

  it('indexes what it loaded: a unique index refuses a duplicate of a document written before the restart', async () => {
    const first = store();
    await first.collection('keys', { persistent: true }).bulkWrite([{ insertOne: { document: { _id: 'k1', email: 'a@example.com' } } }]);
    await first.close();
    const keys = store().collection('keys', { persistent: true });
    await keys.createIndex({ email: 1 }, { unique: true });
    await expect(keys.bulkWrite([{ insertOne: { document: { _id: 'k2', email: 'a@example.com' } } }])).rejects.toMatchObject({
      failures: [{ code: 11000 }],
    });
    expect(await keys.find({ email: 'a@example.com' })).toEqual([{ _id: 'k1', email: 'a@example.com' }]);
  });

  it('a write its file refuses changes nothing, in memory or on disk (the caller gets the error)', async () => {
    const first = store();
    const jobs = first.collection('jobs', { persistent: true });
    await jobs.createIndex({ status: 1 }, { name: 'by_status' });
    await jobs.bulkWrite([{ insertOne: { document: { _id: 'a', status: 'queued' } } }]);
    await first.close();
    // A closed file refuses every write, as a full disk would.
    await expect(
      jobs.bulkWrite([
        { updateOne: { filter: { _id: 'a' }, update: { $set: { status: 'done' } } } },
        { insertOne: { document: { _id: 'b', status: 'queued' } } },
      ]),
    ).rejects.toThrow(/not stored/);
    await expect(jobs.deleteMany({})).rejects.toThrow(/not stored/);
    expect(await jobs.find({})).toEqual([{ _id: 'a', status: 'queued' }]);
    expect(await jobs.find({ status: 'queued' })).toEqual([{ _id: 'a', status: 'queued' }]);
    expect(await jobs.find({ status: 'done' })).toEqual([]);
    expect(await store().collection('jobs', { persistent: true }).find({})).toEqual([{ _id: 'a', status: 'queued' }]);
  });

  it('refuses to open one collection name both as persistent and not', () => {
    const opened = store();
    opened.collection('jobs', { persistent: true });
    expect(() => opened.collection('jobs')).toThrow(/both as persistent and not/);
    // Without a state file too: the mistake shows in tests that run without one.
    const memory = new EmbeddedReadStore();
    memory.collection('jobs');
    expect(() => memory.collection('jobs', { persistent: true })).toThrow(/both as persistent and not/);
  });
});
