import { appendFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir, type TempDir } from '@funnel/testing';
import { IngestLog } from './ingest-log';

const rows = (text: string) => Buffer.from(text);
const clicks = [{ accountId: 'ACCOUNT00001', ids: ['HIT000000001'], counts: [1], times: [0] }];

describe('IngestLog', () => {
  let dir: TempDir;
  let filename: string;
  beforeEach(() => {
    dir = tempDir('ingest-log');
    filename = join(dir.path, 'reporting.duckdb.ingest');
  });
  afterEach(() => dir.remove());

  it('appends to one file until rotated, reads entries of both in id order, and empties each once DuckDB holds all of its own', () => {
    const log = IngestLog.open(filename);
    const [first, second] = IngestLog.files(filename);
    expect([log.append(rows('a'), []), log.append(rows('b'), clicks)]).toEqual([1, 2]);
    log.rotate();
    expect(log.append(rows('c'), [])).toBe(3);
    expect(log.idsAfter(0)).toEqual([1, 2, 3]);
    expect(log.entry(2)).toEqual({ id: 2, rows: rows('b'), clicks });
    expect(log.entry(3).rows).toEqual(rows('c'));
    // DuckDB holds 1..2: the first file is emptied, the second keeps 3.
    log.removeThrough(2);
    expect(statSync(first).size).toBe(0);
    expect(statSync(second).size).toBeGreaterThan(0);
    expect(log.idsAfter(0)).toEqual([3]);
    log.rotate();
    expect(log.append(rows('d'), [])).toBe(4);
    log.close();

    // Reopened: both files read, appends go on after the newest entry, in its file.
    const reopened = IngestLog.open(filename);
    expect(reopened.idsAfter(2)).toEqual([3, 4]);
    expect(reopened.entry(4).rows).toEqual(rows('d'));
    expect(reopened.append(rows('e'), [])).toBe(5);
    reopened.removeThrough(3);
    expect(statSync(second).size).toBe(0);
    expect(reopened.idsAfter(0)).toEqual([4, 5]);
    reopened.removeThrough(5);
    expect([statSync(first).size, statSync(second).size]).toEqual([0, 0]);
    reopened.close();
  });

  it('cuts off, at open, an entry a crash cut short in either file', () => {
    const log = IngestLog.open(filename);
    log.append(rows('a'), []);
    log.rotate();
    log.append(rows('b'), []);
    log.close();
    const [first, second] = IngestLog.files(filename);
    const sizes = [statSync(first).size, statSync(second).size];
    // A header and part of an entry, never acknowledged.
    for (const file of [first, second]) appendFileSync(file, Buffer.from([0x48, 0x49, 0x4c, 0x31, 0, 0, 0, 0, 0, 0, 0x10, 0x40]));
    const reopened = IngestLog.open(filename);
    expect([statSync(first).size, statSync(second).size]).toEqual(sizes);
    expect(reopened.idsAfter(0)).toEqual([1, 2]);
    expect(reopened.append(rows('c'), [])).toBe(3);
    reopened.close();
  });
});
