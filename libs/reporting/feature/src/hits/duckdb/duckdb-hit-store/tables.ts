// The warehouse's tables, created (and brought up to this version's columns) at open.
import type { DuckDBConnection } from '@duckdb/node-api';
import { MIDDLEWARE_COLUMNS, WAREHOUSE_COLUMNS } from '../../warehouse-schema';
import { STAGED_COLUMNS } from './updates';

/** Columns of an earlier version's `hits`, dropped at open. */
const RETIRED_COLUMNS = ['conversion_times', 'conversion_payouts'];

export async function createTables(connection: DuckDBConnection): Promise<void> {
  await connection.run(`CREATE TABLE IF NOT EXISTS hits (${WAREHOUSE_COLUMNS.map((column) => `${column.name} ${column.duckdb}`).join(', ')})`);
  // Columns added since (appended, in WAREHOUSE_COLUMNS' order, so the appender's order still holds;
  // DuckDB adds no column with a constraint: the DEFAULT fills the rows already there).
  for (const column of WAREHOUSE_COLUMNS.filter((candidate) => (MIDDLEWARE_COLUMNS as readonly string[]).includes(candidate.name)))
    await connection.run(`ALTER TABLE hits ADD COLUMN IF NOT EXISTS ${column.name} ${column.duckdb.replace(' NOT NULL', '')}`);
  // Columns an earlier version kept (conversion times and payouts as lists, now read from `conversions`):
  // the appender writes exactly WAREHOUSE_COLUMNS.
  await connection.run(`CREATE TABLE IF NOT EXISTS staged_updates (${STAGED_COLUMNS.map((column) => `${column.name} ${column.duckdb}`).join(', ')})`);
  for (const table of ['hits', 'staged_updates'])
    for (const column of RETIRED_COLUMNS) await connection.run(`ALTER TABLE ${table} DROP COLUMN IF EXISTS ${column}`);
  await connection.run(`CREATE TABLE IF NOT EXISTS job_batches (
    account_id VARCHAR NOT NULL,
    job_id     VARCHAR NOT NULL,
    first_row  INTEGER NOT NULL,
    rows       VARCHAR NOT NULL
  )`);
  await connection.run('CREATE TABLE IF NOT EXISTS warehouse_meta (key VARCHAR PRIMARY KEY, value VARCHAR NOT NULL)');
}
