import { reportQueriesContract } from './report-queries.contract';
import { openDuckDbTestWarehouse } from './testing/warehouse-fixture';

reportQueriesContract('DuckDB (embedded)', openDuckDbTestWarehouse);
