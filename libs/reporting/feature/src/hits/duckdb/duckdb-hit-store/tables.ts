// The warehouse's tables, created (and brought up to this version's columns) at open.
import type { DuckDBConnection } from '@duckdb/node-api';
import { UPDATED_FIELDS, type UpdatedField } from '../../hit-store';
import { CUSTOM_EVENT_NUMBERS, MIDDLEWARE_COLUMNS, WAREHOUSE_COLUMNS, customEventColumn } from '../../warehouse-schema';

/** Columns of an earlier version's `hits`, dropped at open. */
const RETIRED_COLUMNS = ['conversion_times', 'conversion_payouts'];

/**
 * The hit's sequence number (see HitKeyIndex): the apply path's reads and updates find their rows by
 * it, an integer, instead of the id's text (scanning and hashing 12-character ids cost each statement
 * about 3x more for the same rows). Only this store has it, after WAREHOUSE_COLUMNS; NULL only in a
 * warehouse of the previous version until its open numbers its hits (see DuckDbHitStore.numberHits).
 */
export const HIT_SEQ = { name: 'hit_seq', duckdb: 'BIGINT' };
/** The columns of `hits`, in the appender's order. */
export const HITS_COLUMNS = [...WAREHOUSE_COLUMNS, HIT_SEQ];

/** The columns a reporting update changes, staged per commit and written with one UPDATE (those of the fields a commit stores). */
const UPDATE_COLUMNS = ['cost', 'conversions', 'conversion_count', 'revenue', ...CUSTOM_EVENT_NUMBERS.map(customEventColumn), 'postback_called'];
const UPDATED_FIELD_OF_COLUMN: Record<string, UpdatedField> = {
  cost: 'cost',
  conversions: 'conversions',
  conversion_count: 'conversions',
  revenue: 'conversions',
  postback_called: 'conversions',
  ...Object.fromEntries(CUSTOM_EVENT_NUMBERS.map((n) => [customEventColumn(n), 'customEvents' as const])),
};

/** The name of a set of updated fields, in UPDATED_FIELDS' order. */
export function stagingKey(fields: ReadonlySet<UpdatedField>): string {
  return UPDATED_FIELDS.filter((field) => fields.has(field)).join('_');
}

/**
 * Where a commit stages its hits' new states for its UPDATE, by the fields it stores (`stagingKey`):
 * a TEMP table of the writer (nothing of it is logged or stored) of the sequence number and the
 * columns of those fields only, so a conversions job stages 5 columns, not 16.
 */
export const STAGINGS: ReadonlyMap<string, { table: string; columns: readonly { name: string; duckdb: string }[] }> = new Map(
  // Every non-empty subset of UPDATED_FIELDS (field j is in subset i when bit j of i + 1 is set).
  Array.from({ length: 2 ** UPDATED_FIELDS.length - 1 }, (_, i) => UPDATED_FIELDS.filter((__, j) => ((i + 1) >> j) & 1)).map((fields) => {
    const key = stagingKey(new Set(fields));
    const columns = WAREHOUSE_COLUMNS.filter((column) => UPDATE_COLUMNS.includes(column.name) && fields.includes(UPDATED_FIELD_OF_COLUMN[column.name]));
    return [key, { table: `staged_${key}`, columns: [HIT_SEQ, ...columns.map((column) => ({ ...column, duckdb: column.duckdb.split(' ')[0] }))] }];
  }),
);

/** Creates the tables on the store's writer (the staging tables are TEMP tables of that connection). */
export async function createTables(writer: DuckDBConnection): Promise<void> {
  await writer.run(`CREATE TABLE IF NOT EXISTS hits (${HITS_COLUMNS.map((column) => `${column.name} ${column.duckdb}`).join(', ')})`);
  // Columns added since (appended, in HITS_COLUMNS' order, so the appender's order still holds;
  // DuckDB adds no column with a constraint: the DEFAULT fills the rows already there).
  for (const column of HITS_COLUMNS.filter((candidate) => [...MIDDLEWARE_COLUMNS, HIT_SEQ.name].includes(candidate.name)))
    await writer.run(`ALTER TABLE hits ADD COLUMN IF NOT EXISTS ${column.name} ${column.duckdb.replace(' NOT NULL', '')}`);
  // Columns an earlier version kept (conversion times and payouts as lists, now read from `conversions`):
  // the appender writes exactly HITS_COLUMNS.
  for (const column of RETIRED_COLUMNS) await writer.run(`ALTER TABLE hits DROP COLUMN IF EXISTS ${column}`);
  // The previous version's staging table (by hit id).
  await writer.run('DROP TABLE IF EXISTS staged_updates');
  for (const { table, columns } of STAGINGS.values())
    await writer.run(`CREATE TEMP TABLE ${table} (${columns.map((column) => `${column.name} ${column.duckdb}`).join(', ')})`);
  await writer.run(`CREATE TABLE IF NOT EXISTS job_batches (
    account_id VARCHAR NOT NULL,
    job_id     VARCHAR NOT NULL,
    first_row  INTEGER NOT NULL,
    rows       VARCHAR NOT NULL
  )`);
  await writer.run('CREATE TABLE IF NOT EXISTS warehouse_meta (key VARCHAR PRIMARY KEY, value VARCHAR NOT NULL)');
}
