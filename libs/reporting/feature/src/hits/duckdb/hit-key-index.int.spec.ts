import { join } from 'node:path';
import { openPrivateSqlite } from '@funnel/eventstore';
import { tempDir, type TempDir } from '@funnel/testing';
import { HitKeyIndex } from './hit-key-index';

describe('HitKeyIndex sequence numbers', () => {
  let dir: TempDir;
  beforeEach(() => (dir = tempDir('hit-key-index')));
  afterEach(() => dir.remove());

  /** Every number of `count` reservations of `size` from `reserve`. */
  const numbersOf = (reserve: (count: number) => number, sizes: readonly number[]) =>
    sizes.flatMap((size) => {
      const first = reserve(size);
      return Array.from({ length: size }, (_, i) => first + i);
    });

  it('are never handed out twice: not by two indexes on one file, not after a reopen, not for a reservation larger than a block', () => {
    const file = join(dir.path, 'reporting.sqlite');
    const first = openPrivateSqlite(file);
    const second = openPrivateSqlite(file);
    const a = new HitKeyIndex(first);
    const b = new HitKeyIndex(second);
    const sizes = [4, 1, 1000, 3, 70_000, 7];
    const numbers = [
      ...numbersOf((count) => a.reserve(count), sizes),
      ...numbersOf((count) => b.reserve(count), sizes),
      ...numbersOf((count) => a.reserve(count), sizes),
    ];
    first.close();
    second.close();
    const reopened = openPrivateSqlite(file);
    numbers.push(...numbersOf((count) => new HitKeyIndex(reopened).reserve(count), sizes));
    reopened.close();
    expect(numbers.every((number) => Number.isSafeInteger(number) && number > 0)).toBe(true);
    expect(new Set(numbers).size).toBe(numbers.length);
  });

  it('are written with their keys and found by locate, in their account only', () => {
    const sqlite = openPrivateSqlite(join(dir.path, 'reporting.sqlite'));
    const index = new HitKeyIndex(sqlite);
    const seq = index.reserve(2);
    index.write([
      { accountId: 'A', hitId: 'h1', timeMs: 1_000, seq },
      { accountId: 'A', hitId: 'h2', timeMs: 2_000, seq: seq + 1 },
    ]);
    expect(index.locate('A', ['h1', 'h2', 'h3'])).toEqual(
      new Map([
        ['h1', { timeMs: 1_000, seq }],
        ['h2', { timeMs: 2_000, seq: seq + 1 }],
      ]),
    );
    expect(index.locate('B', ['h1']).size).toBe(0);
    sqlite.close();
  });
});
