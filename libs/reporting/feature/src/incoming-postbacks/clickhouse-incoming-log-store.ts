import type { ClickHouseClient } from '@clickhouse/client';
import { openClickHouseLogTable, readClickHouse } from '../warehouse-log/clickhouse-log';
import { POSTBACK_LOG_QUERY_TIMEOUT_MS } from '../warehouse-log/log-query-timeout';
import { CLICKHOUSE_PLACEHOLDER, readWindowPage } from '../warehouse-log/log-window';
import { incomingLogSql, incomingRecordOf, incomingRowOf, INCOMING_LOG_COLUMNS } from './incoming-log-sql';
import type { IncomingLogEntry, IncomingLogPage, IncomingLogQuery, IncomingLogStore } from './incoming-log-store';

/**
 * The incoming postback log on ClickHouse: `<prefix>incoming_postback_log`, a
 * ReplacingMergeTree(version) ordered by (account_id, time_ms, postback_id); reads use FINAL. A row is
 * never updated in place: `received` inserts version 0, `resolved` the whole row again as version 1,
 * so the outcome wins whichever write lands first.
 */
export class ClickHouseIncomingLogStore implements IncomingLogStore {
  private constructor(
    private readonly client: ClickHouseClient,
    private readonly table: string,
  ) {}

  static async on(client: ClickHouseClient, options: { tablePrefix?: string } = {}): Promise<ClickHouseIncomingLogStore> {
    const table = await openClickHouseLogTable(client, 'incoming_postback_log', options.tablePrefix, INCOMING_LOG_COLUMNS, {
      engine: 'ReplacingMergeTree(version)',
      orderBy: ['account_id', 'time_ms', 'postback_id'],
    });
    return new ClickHouseIncomingLogStore(client, table);
  }

  received(entries: readonly IncomingLogEntry[]): Promise<void> {
    return this.insert(entries, 0);
  }

  resolved(entries: readonly IncomingLogEntry[]): Promise<void> {
    return this.insert(entries, 1);
  }

  private async insert(entries: readonly IncomingLogEntry[], version: number): Promise<void> {
    if (!entries.length) return;
    await this.client.insert({
      table: this.table,
      format: 'JSONEachRow',
      values: entries.map((e) => incomingRecordOf(e, version)),
    });
  }

  find(query: IncomingLogQuery, timeoutMs = POSTBACK_LOG_QUERY_TIMEOUT_MS): Promise<IncomingLogPage> {
    const sql = incomingLogSql(`${this.table} FINAL`, query, CLICKHOUSE_PLACEHOLDER);
    return readClickHouse(this.client, sql.params, (run) => readWindowPage(run, sql, query.start, incomingRowOf), timeoutMs);
  }

  /** The client is the hit store's: it closes it. */
  close(): Promise<void> {
    return Promise.resolve();
  }
}
