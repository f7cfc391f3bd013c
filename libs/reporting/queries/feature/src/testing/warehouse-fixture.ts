import { DuckDBInstance } from '@duckdb/node-api';
import type { ClickHouseClient } from '@clickhouse/client';
import type { Hit } from '@funnel/reporting-domain';
import type { HitStore } from '@funnel/reporting-feature';
import { CUSTOM_EVENT_NUMBERS, TRACKING_SLOTS, VISITOR_COLUMNS, WAREHOUSE_COLUMNS, customEventColumn, trackingColumn } from '@funnel/reporting-feature';
import type { HitWarehouse } from '../engines/warehouse';
import type { VisitorDays } from '../service/report-queries';

/** A hit as a warehouse row (column -> value), as the stores write it. */
export function warehouseRowOf(hit: Hit): Record<string, unknown> {
  const row: Record<string, unknown> = {
    account_id: hit.accountId,
    hit_id: hit.hitId,
    visitor_id: hit.visitorId,
    id_funnel: hit.idFunnel,
    id_funnel_group: hit.idFunnelGroup,
    id_traffic_source: hit.idTrafficSource,
    id_node: hit.idNode,
    id_page: hit.idPage,
    node_type: hit.nodeType,
    id_offer_source: hit.idOfferSource,
    country_code: hit.countryCode,
    ip: hit.ip,
    time_ms: Date.parse(hit.time),
    is_entrance: hit.isEntrance,
    action: hit.action,
    previous_hit_id: hit.previousHitId,
    visitor_tags: hit.visitorTags,
    cost: hit.cost,
    conversions: JSON.stringify(hit.conversions),
    conversion_count: hit.conversions.length,
    revenue: hit.conversions.reduce((sum, c) => sum + Number(c.payout), 0).toFixed(6),
    postback_called: hit.postbackCalled,
    clicks: hit.clicks,
  };
  for (const slot of TRACKING_SLOTS) row[trackingColumn(slot)] = hit.trackingFields[slot] ?? '';
  for (const [field, column] of Object.entries(VISITOR_COLUMNS)) row[column] = hit.visitor[field as keyof Hit['visitor']] ?? '';
  for (const n of CUSTOM_EVENT_NUMBERS) row[customEventColumn(n)] = hit.customEvents[String(n)] ?? 0;
  return row;
}

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
          const row = warehouseRowOf(hit);
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

/** The hits table on ClickHouse as the store keeps it: a ReplacingMergeTree(version, deleted) sorted by (account_id, time, hit_id). */
export async function openClickHouseTestWarehouse(client: ClickHouseClient, table: string): Promise<TestWarehouse> {
  const columns = WAREHOUSE_COLUMNS.filter((c) => c.name !== 'time_ms').map((c) => `${c.name} ${c.clickhouse}`);
  await client.command({ query: `DROP TABLE IF EXISTS ${table}` });
  await client.command({
    query: `CREATE TABLE ${table} (${[...columns, "time DateTime64(3, 'UTC')", 'time_ms Int64 MATERIALIZED toUnixTimestamp64Milli(time)', 'version UInt64', 'deleted UInt8'].join(', ')})
      ENGINE = ReplacingMergeTree(version, deleted) PARTITION BY toYYYYMM(time) ORDER BY (account_id, time, hit_id)`,
  });
  return {
    warehouse: { engine: 'clickhouse', client, hitsTable: table },
    async insert(hits) {
      const values = hits.map((hit) => {
        const { time_ms, ...row } = warehouseRowOf(hit);
        return {
          ...row,
          time: new Date(Number(time_ms)).toISOString().replace('T', ' ').replace('Z', ''),
          is_entrance: hit.isEntrance ? 1 : 0,
          postback_called: hit.postbackCalled ? 1 : 0,
          version: 1,
          deleted: 0,
        };
      });
      await client.insert({ table, values, format: 'JSONEachRow' });
    },
    async close() {
      await client.command({ query: `DROP TABLE IF EXISTS ${table}` });
    },
  };
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
