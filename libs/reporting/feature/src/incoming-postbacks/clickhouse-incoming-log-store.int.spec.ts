import { describeOnClickHouse } from '@funnel/testing';
import { ClickHouseIncomingLogStore } from './clickhouse-incoming-log-store';
import { describeIncomingLogStoreContract } from './incoming-log-store.contract';

/** The contract on ClickHouse's SQL: the server at CLICKHOUSE_URL, else chdb in this process; each store its own table. */
describeOnClickHouse('ClickHouseIncomingLogStore', 'ClickHouse incoming postback log contract suite', (clickhouse) => {
  describeIncomingLogStoreContract(clickhouse.engine, () =>
    ClickHouseIncomingLogStore.on(clickhouse.client(), { tablePrefix: clickhouse.tablePrefix('inpb_test', 'incoming_postback_log') }),
  );
});
