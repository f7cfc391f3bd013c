import { describeOnClickHouse } from '@funnel/testing';
import { ClickHouseIntegrationDeliveryLogStore } from './clickhouse-delivery-log-store';
import { describeIntegrationDeliveryLogStoreContract } from './delivery-log-store.contract';

/** The contract on ClickHouse's SQL: the server at CLICKHOUSE_URL, else chdb in this process; each store its own table. */
describeOnClickHouse('ClickHouseIntegrationDeliveryLogStore', 'ClickHouse integration deliveries log contract suite', (clickhouse) => {
  describeIntegrationDeliveryLogStoreContract(clickhouse.engine, () =>
    ClickHouseIntegrationDeliveryLogStore.on(clickhouse.client(), { tablePrefix: clickhouse.tablePrefix('idlog_test', 'integration_delivery_log') }),
  );
});
