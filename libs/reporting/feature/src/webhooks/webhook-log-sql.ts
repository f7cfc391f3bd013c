import { WEBHOOK_SUMMARY_MAX, type WebhookLogQuery } from './webhook-log-store';

/**
 * The summary's and failures' SQL over the table and a WHERE, in the dialect of each engine:
 * `p95` is nearest-rank (the ceil(0.95 n)-th smallest latency), the same in both; `total` counts
 * the attempts (rowsTotal), whatever the number of (config, node) pairs the summary stops at.
 */
export function webhookSummarySql(table: string, where: string, engine: 'duckdb' | 'clickhouse'): { summary: string; failures: string; total: string } {
  const p95 =
    engine === 'duckdb'
      ? 'list_sort(list(latency_ms))[CAST(ceil(0.95 * count(*)) AS BIGINT)]'
      : 'arraySort(groupArray(latency_ms))[toUInt64(ceil(0.95 * count()))]';
  const distinct = engine === 'duckdb' ? 'count(DISTINCT delivery_id)' : 'uniqExact(delivery_id)';
  const statusText = engine === 'duckdb' ? "coalesce(CAST(http_status AS VARCHAR), 'none')" : "ifNull(toString(http_status), 'none')";
  return {
    summary: `SELECT id_webhook_config, id_node, ${distinct} AS deliveries,
        sum(CASE WHEN outcome = 'delivered' THEN 1 ELSE 0 END) AS successes,
        sum(CASE WHEN outcome = 'failed' THEN 1 ELSE 0 END) AS failed_deliveries,
        count(*) AS attempts,
        sum(CASE WHEN attempt > 1 THEN 1 ELSE 0 END) AS retries,
        avg(latency_ms) AS average_latency_ms,
        ${p95} AS p95_latency_ms
      FROM ${table} WHERE ${where}
      GROUP BY id_webhook_config, id_node ORDER BY id_webhook_config, id_node LIMIT ${WEBHOOK_SUMMARY_MAX}`,
    failures: `SELECT id_webhook_config, id_node, ${statusText} AS status, count(*) AS n
      FROM ${table} WHERE (${where}) AND outcome <> 'delivered'
      GROUP BY id_webhook_config, id_node, status`,
    // Every attempt of the window, past the summary's first WEBHOOK_SUMMARY_MAX pairs too.
    total: `SELECT count(*) AS n FROM ${table} WHERE ${where}`,
  };
}

export function webhookPageSql(table: string, where: string, query: WebhookLogQuery): string {
  return `SELECT time_ms, delivery_id, event_id, trigger, id_webhook_config, id_node, id_funnel, hit_id, attempt, outcome, http_status, latency_ms, error
    FROM ${table} WHERE ${where}
    ORDER BY time_ms DESC, delivery_id DESC, attempt DESC LIMIT ${Math.trunc(query.length)} OFFSET ${Math.trunc(query.start)}`;
}

/** Failures grouped per (config, node) key `config\nnode`. */
export function failuresByKey(rows: { id_webhook_config: string; id_node: string; status: string; n: number | bigint }[]): Map<string, Record<string, number>> {
  const byKey = new Map<string, Record<string, number>>();
  for (const row of rows) {
    const key = `${row.id_webhook_config}\n${row.id_node}`;
    const entry = byKey.get(key) ?? {};
    entry[row.status] = Number(row.n);
    byKey.set(key, entry);
  }
  return byKey;
}
