import type Database from 'better-sqlite3';
import { hitDefaults, type Hit } from '@funnel/reporting-domain';
import { warehouseRow, type WarehouseRow } from '../hit-row';
import type { HitKeyIndex } from './hit-key-index';
import type { DuckDBConnection } from '@duckdb/node-api';

/** Hits copied per DuckDB transaction. */
export const IMPORT_CHUNK = 10_000;

/** A hit as the previous version's SQLite warehouse kept it (`reporting.sqlite`, table `hits`). */
interface SqliteHitRow {
  account_id: string;
  hit_id: string;
  visitor_id: string;
  id_funnel: string;
  id_funnel_group: string;
  id_traffic_source: string;
  id_node: string;
  id_page: string;
  country_code: string;
  ip: string;
  tracking_fields: string;
  time_ms: number;
  is_entrance: number;
  cost: string;
  conversions: string;
  custom_events: string;
  postback_called: number;
}

/** How far the import got, kept in DuckDB (`warehouse_meta`) with the data it copied. */
interface ImportState {
  batches: boolean;
  /** The last hit copied: (account, time, hitId), the order hits are copied in. */
  after: [string, number, string] | null;
  done: boolean;
}

const STATE_KEY = 'sqlite_import';

export interface SqliteImportTarget {
  sqlite: Database.Database;
  index: HitKeyIndex;
  /** The store's writer connection (nothing else writes while the store opens). */
  writer: DuckDBConnection;
  transaction<T>(work: () => Promise<T>): Promise<T>;
  append(rows: readonly WarehouseRow[]): Promise<void>;
}

/**
 * The previous version kept hits and applied job batches in `reporting.sqlite` (tables `hits`,
 * `applied_job_batches`). At open they are copied into DuckDB, IMPORT_CHUNK hits per transaction in
 * (account, time) order, each chunk committed with the position it reached, then the SQLite tables
 * are dropped. A crash mid-way resumes from the last committed chunk: nothing is copied twice. The
 * job queues in the same file are left alone.
 */
export async function importSqliteHits(target: SqliteImportTarget): Promise<void> {
  const { sqlite, writer } = target;
  const tables = sqlite.prepare<[], string>("SELECT name FROM sqlite_master WHERE type = 'table' AND name IN ('hits', 'applied_job_batches')").pluck().all();
  if (tables.length === 0) return;
  const state = await readState(writer);
  const save = (next: ImportState) => writer.run('INSERT OR REPLACE INTO warehouse_meta (key, value) VALUES ($1, $2)', [STATE_KEY, JSON.stringify(next)]);

  if (!state.done) {
    if (!state.batches && tables.includes('applied_job_batches')) {
      const batches = sqlite
        .prepare<[], { account_id: string; job_id: string; first_row: number; rows: string }>(
          'SELECT account_id, job_id, first_row, rows FROM applied_job_batches',
        )
        .all();
      await target.transaction(async () => {
        for (const batch of batches)
          await writer.run('INSERT INTO job_batches (account_id, job_id, first_row, rows) VALUES ($1, $2, $3, $4)', [
            batch.account_id,
            batch.job_id,
            batch.first_row,
            batch.rows,
          ]);
        state.batches = true;
        await save(state);
      });
    }
    if (tables.includes('hits')) {
      const first = sqlite.prepare<[number], SqliteHitRow>('SELECT * FROM hits ORDER BY account_id, time_ms, hit_id LIMIT ?');
      const next = sqlite.prepare<[string, number, string, number], SqliteHitRow>(
        'SELECT * FROM hits WHERE (account_id, time_ms, hit_id) > (?, ?, ?) ORDER BY account_id, time_ms, hit_id LIMIT ?',
      );
      for (;;) {
        const rows = state.after ? next.all(...state.after, IMPORT_CHUNK) : first.all(IMPORT_CHUNK);
        if (rows.length === 0) break;
        const hits = rows.map(hitOfSqliteRow);
        // Keys before hits, as every write does (see HitKeyIndex), with their sequence numbers.
        const firstSeq = target.index.reserve(hits.length);
        target.index.write(hits.map((hit, i) => ({ accountId: hit.accountId, hitId: hit.hitId, timeMs: rows[i].time_ms, seq: firstSeq + i })));
        const last = rows[rows.length - 1];
        await target.transaction(async () => {
          await target.append(hits.map((hit, i) => ({ ...warehouseRow(hit), hit_seq: firstSeq + i })));
          state.after = [last.account_id, last.time_ms, last.hit_id];
          await save(state);
        });
      }
    }
    await target.transaction(async () => {
      state.done = true;
      await save(state);
    });
  }
  sqlite.exec('DROP TABLE IF EXISTS hits; DROP TABLE IF EXISTS applied_job_batches');
}

async function readState(writer: DuckDBConnection): Promise<ImportState> {
  const reader = await writer.runAndReadAll('SELECT value FROM warehouse_meta WHERE key = $1', [STATE_KEY]);
  const [row] = reader.getRows();
  return row ? (JSON.parse(String(row[0])) as ImportState) : { batches: false, after: null, done: false };
}

function hitOfSqliteRow(row: SqliteHitRow): Hit {
  return {
    hitId: row.hit_id,
    visitorId: row.visitor_id,
    accountId: row.account_id,
    idFunnel: row.id_funnel,
    idFunnelGroup: row.id_funnel_group,
    idTrafficSource: row.id_traffic_source,
    idNode: row.id_node,
    idPage: row.id_page,
    countryCode: row.country_code,
    ip: row.ip,
    trackingFields: JSON.parse(row.tracking_fields),
    time: new Date(row.time_ms).toISOString(),
    isEntrance: row.is_entrance === 1,
    cost: row.cost,
    conversions: JSON.parse(row.conversions),
    customEvents: JSON.parse(row.custom_events),
    postbackCalled: row.postback_called === 1,
    ...hitDefaults(),
  };
}
