import { describeOnClickHouse } from '@funnel/testing';
import { ClickHouseWebhookLogStore } from './clickhouse-webhook-log-store';
import { describeWebhookLogStoreContract } from './webhook-log-store.contract';

/** The contract on ClickHouse's own SQL (a server at CLICKHOUSE_URL, else chdb); each store has its own table, dropped after. */
describeOnClickHouse('ClickHouseWebhookLogStore', 'ClickHouse webhook log contract suite', (clickhouse) => {
  describeWebhookLogStoreContract(clickhouse.engine, () =>
    ClickHouseWebhookLogStore.on(clickhouse.client(), { tablePrefix: clickhouse.tablePrefix('whlog_test', 'webhook_log') }),
  );
});
