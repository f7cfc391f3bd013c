import { describeOnClickHouse } from '@funnel/testing';
import { ClickHousePostbackLogStore } from './clickhouse-postback-log-store';
import { describePostbackLogStoreContract, expectTimeLimitOverAMillionRows } from './postback-log-store.contract';

/** The contract on ClickHouse's own SQL (a server at CLICKHOUSE_URL, else chdb); each store has its own table, dropped after. */
describeOnClickHouse('ClickHousePostbackLogStore', 'ClickHouse postback log contract suite', (clickhouse) => {
  const open = (tablePrefix = clickhouse.tablePrefix('pblog_test', 'postback_log')) => ClickHousePostbackLogStore.on(clickhouse.client(), { tablePrefix });

  describePostbackLogStoreContract(clickhouse.engine, () => open());

  it('stops a query past its time limit, and answers the next one', async () => {
    const tablePrefix = clickhouse.tablePrefix('pblog_test', 'postback_log');
    const store = await open(tablePrefix);
    await clickhouse.client().command({
      query: `INSERT INTO ${tablePrefix}postback_log
        SELECT 'ACCOUNT00001', concat('JOB', leftPad(toString(intDiv(number, 1000)), 9, '0')), number % 1000, 1772323200000 + number,
               concat('HIT', leftPad(toString(number), 9, '0')), concat('TSOURCE0000', toString(number % 7)), concat('FUNNEL00000', toString(number % 5)),
               concat('https://ts.example/pb?i=', toString(number)), 'postbackUrl', if(number % 3 = 0, 'delivered', 'pending'), 1, NULL, 1772323200000 + number, 1
        FROM numbers(1000000)`,
    });
    await expectTimeLimitOverAMillionRows(store);
  }, 60_000);
});
