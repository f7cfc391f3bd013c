import { openTempHitStore } from '@funnel/reporting-feature';
import { reportQueriesContract } from './report-queries.contract';
import { openDuckDbTestWarehouse, storeTestWarehouse } from './testing/warehouse-fixture';

// The DuckDB dialect on the embedded hit store as standalone runs it (hits written through insertHits),
// and on a bare table of WAREHOUSE_COLUMNS (the columns are the contract, not the store's code).
reportQueriesContract('DuckDB hit store (embedded)', async () => storeTestWarehouse(await openTempHitStore()));
reportQueriesContract('DuckDB table of WAREHOUSE_COLUMNS', openDuckDbTestWarehouse);
