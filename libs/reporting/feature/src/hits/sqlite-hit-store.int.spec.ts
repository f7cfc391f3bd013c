import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHitStore } from './create-hit-store';
import { contractHit, describeHitStoreContract } from './hit-store.contract';
import { SqliteHitStore } from './sqlite-hit-store';

describeHitStoreContract('SQLite', async () => {
  const store = new SqliteHitStore({ filename: ':memory:' });
  return { store, cleanup: () => store.close() };
});

describe('SqliteHitStore', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'hit-store-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('is what createHitStore picks without CLICKHOUSE_URL: a private reporting.sqlite under the data directory that survives a reopen', async () => {
    const dataDir = join(dir, 'data');
    const store = await createHitStore({ dataDir });
    expect(store).toBeInstanceOf(SqliteHitStore);
    await store.insertHits([contractHit(1)]);
    await store.commitRows('ACCOUNT00001', 'JOB000000001', [contractHit(1, { cost: '4' })], [{ rowIndex: 0, outcome: 'applied', hits: 1, postbacks: [] }]);
    await store.close();
    expect(statSync(join(dataDir, 'reporting.sqlite')).mode & 0o777).toBe(0o600);

    const reopened = await createHitStore({ dataDir });
    expect(await reopened.getHits('ACCOUNT00001', [contractHit(1).hitId])).toEqual([contractHit(1, { cost: '4' })]);
    expect(await reopened.appliedRows('ACCOUNT00001', 'JOB000000001')).toHaveLength(1);
    await reopened.close();
  });
});
