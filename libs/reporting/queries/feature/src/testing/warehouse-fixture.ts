import { DuckDBInstance } from '@duckdb/node-api';
import type { Hit } from '@funnel/reporting-domain';
import { WAREHOUSE_COLUMNS, warehouseRow, type HitStore } from '@funnel/reporting-feature';
import type { HitWarehouse } from '../engines/warehouse';
import type { VisitorDays } from '../service/report-queries';

/** A warehouse to run the queries on in tests: its read handle, a loader of hits, and close. */
export interface TestWarehouse {
  warehouse: HitWarehouse;
  /** The store's visitor index, where it has one. */
  visitorDays?: VisitorDays;
  insert(hits: readonly Hit[]): Promise<void>;
  close(): Promise<void>;
}

/** An in-memory DuckDB with the hits table of WAREHOUSE_COLUMNS (the store's DDL). */
export async function openDuckDbTestWarehouse(): Promise<TestWarehouse> {
  const instance = await DuckDBInstance.create(':memory:');
  const writer = await instance.connect();
  await writer.run(`CREATE TABLE hits (${WAREHOUSE_COLUMNS.map((c) => `${c.name} ${c.duckdb}`).join(', ')})`);
  return {
    warehouse: { engine: 'duckdb', connect: () => instance.connect() },
    async insert(hits) {
      // Batched INSERTs of literals of the generated hits (the store itself writes with its appender).
      const columns = WAREHOUSE_COLUMNS.map((c) => c.name);
      for (let i = 0; i < hits.length; i += 500) {
        const values = hits.slice(i, i + 500).map((hit) => {
          const row = warehouseRow(hit);
          return `(${columns.map((column) => sqlLiteral(row[column])).join(', ')})`;
        });
        await writer.run(`INSERT INTO hits (${columns.join(', ')}) VALUES ${values.join(', ')}`);
      }
    },
    async close() {
      writer.closeSync();
      instance.closeSync();
    },
  };
}

/** A test-only literal (the fixture's own generated values). */
function sqlLiteral(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(sqlLiteral).join(', ')}]`;
  if (typeof value === 'boolean') return value ? 'TRUE' : 'FALSE';
  if (typeof value === 'number') return String(value);
  return `'${String(value).replace(/'/g, "''")}'`;
}

/** The queries on a hit store as it runs (its own tables, written through insertHits), closed with it. */
export function storeTestWarehouse(store: HitStore, close: () => Promise<void> = () => store.close()): TestWarehouse {
  return {
    warehouse: store.warehouse,
    visitorDays: store.visitorDays?.bind(store),
    async insert(hits) {
      for (let i = 0; i < hits.length; i += 1000) await store.insertHits(hits.slice(i, i + 1000));
    },
    close,
  };
}
