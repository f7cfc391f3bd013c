import type { DuckDBConnection } from '@duckdb/node-api';
import type { ClickHouseClient } from '@clickhouse/client';
import { ReportingQueryErrorCodes, ServiceError } from '@funnel/contracts';
import { CLICKHOUSE_DIALECT, DUCKDB_DIALECT, type Dialect } from '../sql/dialect';
import type { BuiltQuery } from '../sql/drilldown-sql';

/**
 * A read handle on the hit warehouse (what the hit store exposes to the queries): DuckDB
 * connections of the store's instance, or a ClickHouse client (a server's, or chdb's in tests) and
 * the hits table (a ReplacingMergeTree read with FINAL, live rows `deleted = 0`).
 */
export type HitWarehouse =
  | { engine: 'duckdb'; connect(): Promise<DuckDBConnection>; hitsTable?: string }
  | { engine: 'clickhouse'; client: Pick<ClickHouseClient, 'query'>; hitsTable: string };

export type WarehouseRow = Record<string, unknown>;

/** Runs the queries' SQL on one engine, each within a time limit. */
export interface WarehouseRunner {
  dialect: Dialect;
  table: string;
  rows(query: BuiltQuery): Promise<WarehouseRow[]>;
}

/** Default query time limit (`REPORTING_QUERY_TIMEOUT_MS`). */
export const DEFAULT_QUERY_TIMEOUT_MS = 20_000;

export function queryTimeout(timeoutMs: number): ServiceError {
  return new ServiceError(
    503,
    ReportingQueryErrorCodes.QUERY_TIMEOUT,
    `the report took longer than ${timeoutMs} ms and was stopped; narrow the window or the groupings`,
  );
}

/** A runner on `warehouse`: DuckDB interrupts a query past `timeoutMs`; ClickHouse stops it (max_execution_time) and the request is aborted. */
export function warehouseRunner(warehouse: HitWarehouse, timeoutMs = DEFAULT_QUERY_TIMEOUT_MS): WarehouseRunner {
  if (warehouse.engine === 'duckdb') {
    return {
      dialect: DUCKDB_DIALECT,
      table: warehouse.hitsTable ?? 'hits',
      async rows({ sql, params }) {
        const connection = await warehouse.connect();
        let timedOut = false;
        const timer = setTimeout(() => {
          timedOut = true;
          connection.interrupt();
        }, timeoutMs);
        try {
          const reader = await connection.runAndReadAll(sql, params);
          return reader.getRowObjectsJson() as WarehouseRow[];
        } catch (error) {
          if (timedOut) throw queryTimeout(timeoutMs);
          throw error;
        } finally {
          clearTimeout(timer);
          connection.closeSync();
        }
      },
    };
  }
  const { client, hitsTable } = warehouse;
  return {
    dialect: CLICKHOUSE_DIALECT,
    table: hitsTable,
    async rows({ sql, params }) {
      const abort = new AbortController();
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        abort.abort();
      }, timeoutMs + 1000);
      try {
        const result = await client.query({
          query: sql,
          query_params: params,
          format: 'JSONEachRow',
          abort_signal: abort.signal,
          clickhouse_settings: { max_execution_time: Math.max(1, Math.ceil(timeoutMs / 1000)), timeout_overflow_mode: 'throw' },
        });
        return (await result.json()) as WarehouseRow[];
      } catch (error) {
        if (timedOut || /TIMEOUT_EXCEEDED|Timeout exceeded/i.test(String((error as Error)?.message))) throw queryTimeout(timeoutMs);
        throw error;
      } finally {
        clearTimeout(timer);
      }
    },
  };
}
