import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as workerThreads from 'node:worker_threads';
import Database from 'better-sqlite3';
import { openPrivateSqlite } from '../private-sqlite';
import { StorageUnavailableError } from '../storage-health';
import { SlicedText, packRows } from './rows';
import { SqliteWriterThread } from './sqlite-writer-thread';

class RowsClosedError extends Error {}

describe('SqliteWriterThread: writes to a SQLite file from a worker thread', () => {
  let dir: string;
  let filename: string;
  let db: Database.Database;
  let writer: SqliteWriterThread;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'sqlite-writer-thread-'));
    filename = join(dir, 'rows.sqlite');
    db = openPrivateSqlite(filename);
    // loose: columns without a type, which keep a value as it is bound (text or number).
    db.exec('CREATE TABLE rows (id INTEGER PRIMARY KEY, text TEXT NOT NULL); CREATE TABLE loose (n, text)');
    writer = new SqliteWriterThread({
      filename,
      store: 'rows',
      statements: {
        insert: 'INSERT INTO rows (id, text) VALUES (?, ?)',
        loose: 'INSERT INTO loose (n, text) VALUES (?, ?)',
        upsert: 'INSERT INTO rows (id, text) VALUES (?, ?) ON CONFLICT (id) DO UPDATE SET text = excluded.text WHERE text <> excluded.text',
        // Leaves the file no room to grow: the writer's connection then fails as on a full disk.
        fill: `PRAGMA max_page_count = ${db.pragma('page_count', { simple: true }) as number}`,
      },
      closedError: () => new RowsClosedError('closed'),
    });
  });
  afterEach(async () => {
    await writer.close();
    if (db.open) db.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const rows = () => db.prepare('SELECT id, text, typeof(id) AS type FROM rows ORDER BY id').all();

  it('has the rows of a write committed when it resolves, in call order, and in the file when opened again', async () => {
    await Promise.all([
      writer.run('insert', [
        [1, 'a'],
        [2, 'b'],
      ]),
      writer.run('insert', [[3, 'c']]),
    ]);
    await writer.close();
    db.close();
    db = new Database(filename, { readonly: true });
    expect(rows()).toEqual([
      { id: 1, text: 'a', type: 'integer' },
      { id: 2, text: 'b', type: 'integer' },
      { id: 3, text: 'c', type: 'integer' },
    ]);
  });

  it('takes rows packed into one string, numbers kept numbers, and answers the rows changed, in all or each', async () => {
    expect(
      await writer.run(
        'upsert',
        packRows([
          [1, 'a'],
          [2, '{"b":"\\u0001"}'],
        ]),
      ),
    ).toBe(2);
    expect(
      await writer.runEach(
        'upsert',
        packRows([
          [2, '{"b":"\\u0001"}'],
          [3, 'c'],
          [1, 'a2'],
        ]),
      ),
    ).toEqual([0, 1, 1]);
    expect(rows()).toEqual([
      { id: 1, text: 'a2', type: 'integer' },
      { id: 2, text: '{"b":"\\u0001"}', type: 'integer' },
      { id: 3, text: 'c', type: 'integer' },
    ]);
    await writer.run(
      'loose',
      packRows([
        [7, '007'],
        [1.5, '1.5'],
      ]),
    );
    expect(db.prepare("SELECT n, typeof(n) = 'text' AS nText, text, typeof(text) = 'text' AS textText FROM loose ORDER BY rowid").all()).toEqual([
      { n: 7, nText: 0, text: '007', textText: 1 },
      { n: 1.5, nText: 0, text: '1.5', textText: 1 },
    ]);
  });

  it('refuses a packed write whose text holds a separator, writing none of its rows', async () => {
    await expect(
      writer.run(
        'insert',
        packRows([
          [1, 'a'],
          [2, 'b\u0001c'],
        ]),
      ),
    ).rejects.toThrow('a text holds a separator');
    expect(rows()).toEqual([]);
  });

  it('binds a text sent in slices joined', async () => {
    const text = 'x'.repeat(100_000);
    await writer.run('insert', [
      [1, new SlicedText([text, text, 'end'])],
      [2, 'b'],
      [3, new SlicedText(['c'])],
    ]);
    expect(rows()).toEqual([
      { id: 1, text: `${text}${text}end`, type: 'integer' },
      { id: 2, text: 'b', type: 'integer' },
      { id: 3, text: 'c', type: 'integer' },
    ]);
  });

  it('writes none of the rows of a write that fails, rejects it with the SQLite code, and keeps writing later writes', async () => {
    await writer.run('insert', [[1, 'a']]);
    await expect(
      writer.run('insert', [
        [2, 'b'],
        [1, 'again'],
      ]),
    ).rejects.toMatchObject({ code: 'SQLITE_CONSTRAINT_PRIMARYKEY' });
    await writer.run('insert', [[3, 'c']]);
    expect(rows()).toEqual([
      { id: 1, text: 'a', type: 'integer' },
      { id: 3, text: 'c', type: 'integer' },
    ]);
  });

  it('rejects a write the storage refuses with a StorageUnavailableError naming the store', async () => {
    await writer.run('fill', [[]]);
    const failure = await writer.run('insert', [[1, 'x'.repeat(100_000)]]).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(StorageUnavailableError);
    expect(failure).toMatchObject({ problem: 'full', store: 'rows', driverCode: 'SQLITE_FULL' });
    expect(rows()).toEqual([]);
  });

  it('refuses a statement it was not given', async () => {
    await expect(writer.run('delete', [[1]])).rejects.toThrow('no statement delete');
    await expect(writer.run('toString', [[1]])).rejects.toThrow('no statement toString');
  });

  it('writes what was asked before close, then refuses with the caller error', async () => {
    const last = writer.run('insert', [[1, 'a']]);
    await writer.close();
    await last;
    expect(rows()).toHaveLength(1);
    await expect(writer.run('insert', [[2, 'b']])).rejects.toBeInstanceOf(RowsClosedError);
    expect(rows()).toHaveLength(1);
  });

  it('once closed, starts no thread for a write', async () => {
    await writer.close();
    const threads = jest.spyOn(workerThreads, 'Worker');
    try {
      await expect(writer.run('insert', [[1, 'a']])).rejects.toBeInstanceOf(RowsClosedError);
      await expect(writer.runEach('upsert', packRows([[1, 'a']]))).rejects.toBeInstanceOf(RowsClosedError);
      writer.start();
      expect(threads).not.toHaveBeenCalled();
    } finally {
      threads.mockRestore();
    }
    expect(rows()).toEqual([]);
  });
});
