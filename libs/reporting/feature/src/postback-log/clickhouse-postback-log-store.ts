import type { ClickHouseClient } from '@clickhouse/client';
import { openClickHouseLogTable, readClickHouse } from '../warehouse-log/clickhouse-log';
import { columnNames } from '../warehouse-log/log-table';
import { CLICKHOUSE_PLACEHOLDER, readWindowPage } from '../warehouse-log/log-window';
import {
  POSTBACK_LOG_QUERY_TIMEOUT_MS,
  statusAfter,
  type DecidedPostback,
  type PostbackAttempt,
  type PostbackLogPage,
  type PostbackLogQuery,
  type PostbackLogStore,
} from './postback-log-store';
import { logRowOf, POSTBACK_LOG_COLUMNS, postbackLogSql } from './postback-log-sql';

export interface ClickHousePostbackLogOptions {
  /** Table name prefix (default `reporting_`, as the hit store's); tests use their own. */
  tablePrefix?: string;
  /** Close the client with the store (when the store opened it). */
  ownsClient?: boolean;
}

const COLUMNS = columnNames(POSTBACK_LOG_COLUMNS, 'clickhouse');

/**
 * The postback log on ClickHouse, written the ClickHouse way: a row is never updated in place.
 * `<prefix>postback_log` is a ReplacingMergeTree(version) ordered by (account_id, time_ms, job_id,
 * row_index), so a window query reads one account's time range; reads use FINAL and see the
 * latest version of each row only.
 *
 * - `decided` inserts version 0 of the postbacks its job has not logged yet (looked up through the
 *   `job_id` bloom filter), so a redelivered job keeps each row's first time.
 * - `attempted` inserts the next version server-side (INSERT ... SELECT from the current row with
 *   FINAL), version 2 x attempt for a retry and 2 x attempt + 1 for a final outcome, so a later
 *   attempt always wins; the SELECT's guards (not delivered, attempts not past this one) keep the
 *   per-job listing's rules.
 */
export class ClickHousePostbackLogStore implements PostbackLogStore {
  private constructor(
    private readonly client: ClickHouseClient,
    private readonly table: string,
    private readonly ownsClient: boolean,
  ) {}

  static async on(client: ClickHouseClient, options: ClickHousePostbackLogOptions = {}): Promise<ClickHousePostbackLogStore> {
    const table = await openClickHouseLogTable(client, 'postback_log', options.tablePrefix, POSTBACK_LOG_COLUMNS, {
      engine: 'ReplacingMergeTree(version)',
      orderBy: ['account_id', 'time_ms', 'job_id', 'row_index'],
      indexes: ['job_id_bloom job_id TYPE bloom_filter GRANULARITY 4'],
    });
    return new ClickHousePostbackLogStore(client, table, options.ownsClient ?? false);
  }

  async decided(postbacks: readonly DecidedPostback[]): Promise<void> {
    const byJob = new Map<string, DecidedPostback[]>();
    for (const p of postbacks) {
      const key = `${p.accountId}\n${p.jobId}`;
      const rows = byJob.get(key);
      if (rows) rows.push(p);
      else byJob.set(key, [p]);
    }
    for (const rows of byJob.values()) {
      const { accountId, jobId } = rows[0];
      const logged = await this.client.query({
        query: `SELECT DISTINCT row_index FROM ${this.table} WHERE account_id = {account:String} AND job_id = {job:String}`,
        query_params: { account: accountId, job: jobId },
        format: 'JSONEachRow',
      });
      const known = new Set((await logged.json<{ row_index: number }>()).map((r) => Number(r.row_index)));
      const fresh = rows.filter((p) => !known.has(p.rowIndex));
      if (!fresh.length) continue;
      await this.client.insert({
        table: this.table,
        format: 'JSONEachRow',
        values: fresh.map((p) => ({
          account_id: p.accountId,
          job_id: p.jobId,
          row_index: p.rowIndex,
          time_ms: p.timeMs,
          hit_id: p.hitId,
          id_traffic_source: p.idTrafficSource,
          id_funnel: p.idFunnel,
          url: p.url,
          kind: p.kind,
          status: p.status,
          attempts: 0,
          last_error: null,
          updated_ms: p.timeMs,
          version: 0,
        })),
      });
    }
  }

  async attempted(a: PostbackAttempt): Promise<void> {
    await this.client.command({
      query: `INSERT INTO ${this.table} (${COLUMNS})
        SELECT account_id, job_id, row_index, time_ms, hit_id, id_traffic_source, id_funnel, url, kind,
               {status:String}, {attempt:UInt32}, {error:Nullable(String)}, {at:Int64}, {version:UInt64}
        FROM ${this.table} FINAL
        WHERE account_id = {account:String} AND job_id = {job:String} AND row_index = {row:UInt32}
          AND status != 'delivered' AND attempts <= {attempt:UInt32}`,
      query_params: {
        status: statusAfter(a.outcome),
        attempt: a.attempt,
        error: a.error,
        at: a.atMs,
        version: a.attempt * 2 + (a.outcome === 'retrying' ? 0 : 1),
        account: a.accountId,
        job: a.jobId,
        row: a.rowIndex,
      },
    });
  }

  find(query: PostbackLogQuery, timeoutMs = POSTBACK_LOG_QUERY_TIMEOUT_MS): Promise<PostbackLogPage> {
    const sql = postbackLogSql(`${this.table} FINAL`, query, CLICKHOUSE_PLACEHOLDER);
    return readClickHouse(this.client, sql.params, (run) => readWindowPage(run, sql, query.start, logRowOf), timeoutMs);
  }

  async close(): Promise<void> {
    if (this.ownsClient) await this.client.close();
  }
}
