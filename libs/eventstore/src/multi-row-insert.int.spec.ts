import Database from 'better-sqlite3';
import { MultiRowInsert, ROWS_PER_INSERT } from './multi-row-insert';

interface Key {
  account: string;
  id: string;
  time: number;
}

describe('MultiRowInsert (many rows a statement)', () => {
  let db: Database.Database;
  let upsert: MultiRowInsert<Key>;
  const keys = (count: number, time = 1, from = 0): Key[] =>
    Array.from({ length: count }, (_, i) => ({ account: `A${(from + i) % 3}`, id: `H${String(from + i).padStart(11, '0')}`, time: time + from + i }));
  const stored = () => db.prepare('SELECT account, id, time FROM keys ORDER BY id').all() as Key[];

  beforeEach(() => {
    db = new Database(':memory:');
    db.exec('CREATE TABLE keys (account TEXT NOT NULL, id TEXT NOT NULL, time INTEGER NOT NULL, PRIMARY KEY (account, id)) WITHOUT ROWID');
    upsert = new MultiRowInsert<Key>(db, 'INSERT INTO keys (account, id, time)', 3, 'ON CONFLICT DO UPDATE SET time = excluded.time', (key, params) =>
      params.push(key.account, key.id, key.time),
    );
  });
  afterEach(() => db.close());

  it.each([0, 1, ROWS_PER_INSERT - 1, ROWS_PER_INSERT, ROWS_PER_INSERT + 1, 3 * ROWS_PER_INSERT + 7])('inserts %i rows, each once, in order', (count) => {
    expect(upsert.run(keys(count))).toBe(count);
    expect(stored()).toEqual(keys(count));
  });

  it('applies its tail to every row, across statements (an upsert moves the rows it finds)', () => {
    upsert.run(keys(120));
    expect(upsert.run(keys(130, 1000, 60))).toBe(130);
    expect(stored()).toEqual([...keys(60), ...keys(130, 1000, 60)]);
  });

  it('inserts what an OR IGNORE leaves, counting only those', () => {
    const ignoring = new MultiRowInsert<Key>(db, 'INSERT OR IGNORE INTO keys (account, id, time)', 3, '', (key, params) =>
      params.push(key.account, key.id, key.time),
    );
    ignoring.run(keys(70));
    expect(ignoring.run(keys(100, 5))).toBe(30);
    expect(stored()).toEqual([...keys(70), ...keys(30, 5, 70)]);
  });

  it("refuses a row of another width; a statement that fails rolls back the rows before it with the caller's transaction", () => {
    const short = new MultiRowInsert<Key>(db, 'INSERT INTO keys (account, id, time)', 3, '', (key, params) => params.push(key.account, key.id));
    expect(() => short.run(keys(2))).toThrow(/3 values/);
    const run = db.transaction((rows: Key[]) => upsert.run(rows));
    expect(() => run([...keys(60), { account: 'A0', id: 'H1', time: null as unknown as number }])).toThrow(/NOT NULL/);
    expect(stored()).toEqual([]);
  });
});
