import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { openPrivateSqlite } from './private-sqlite';
import { SqliteWriterThread } from './sqlite-writer-thread';

describe('SqliteWriterThread: writes to a SQLite file from a worker thread', () => {
  let dir: string;
  let db: Database.Database;
  let writer: SqliteWriterThread;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'sqlite-writer-thread-'));
    const filename = join(dir, 'rows.sqlite');
    db = openPrivateSqlite(filename);
    db.exec('CREATE TABLE rows (id INTEGER PRIMARY KEY, text TEXT NOT NULL)');
    writer = new SqliteWriterThread({ filename, statements: { insert: 'INSERT INTO rows (id, text) VALUES (?, ?)' }, store: 'rows' });
  });
  afterEach(async () => {
    await writer.close();
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const rows = () => db.prepare('SELECT id, text FROM rows ORDER BY id').all();

  it('has the rows of a run committed when it resolves, in call order', async () => {
    await Promise.all([
      writer.run('insert', [
        [1, 'a'],
        [2, 'b'],
      ]),
      writer.run('insert', [[3, 'c']]),
    ]);
    expect(rows()).toEqual([
      { id: 1, text: 'a' },
      { id: 2, text: 'b' },
      { id: 3, text: 'c' },
    ]);
  });

  it('writes none of the rows of a run that fails, rejects it with the error, and keeps writing later runs', async () => {
    await writer.run('insert', [[1, 'a']]);
    await expect(
      writer.run('insert', [
        [2, 'b'],
        [1, 'again'],
      ]),
    ).rejects.toMatchObject({ code: 'SQLITE_CONSTRAINT_PRIMARYKEY' });
    await writer.run('insert', [[3, 'c']]);
    expect(rows()).toEqual([
      { id: 1, text: 'a' },
      { id: 3, text: 'c' },
    ]);
  });

  it('refuses a statement it was not given, and any run once closed', async () => {
    await expect(writer.run('delete', [[1]])).rejects.toThrow('no statement delete');
    const last = writer.run('insert', [[1, 'a']]);
    await writer.close();
    await last;
    expect(rows()).toHaveLength(1);
    await expect(writer.run('insert', [[2, 'b']])).rejects.toThrow('closed');
  });
});
