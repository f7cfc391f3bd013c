import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDbHitStore } from './duckdb-hit-store';

/** An empty embedded hit store in a directory of its own under the system's temp directory, removed when the store closes (tests). */
export async function openTempHitStore(): Promise<DuckDbHitStore> {
  const dataDir = mkdtempSync(join(tmpdir(), 'hit-store-'));
  const store = await DuckDbHitStore.open({ dataDir });
  const close = store.close.bind(store);
  store.close = async () => {
    await close();
    rmSync(dataDir, { recursive: true, force: true });
  };
  return store;
}
