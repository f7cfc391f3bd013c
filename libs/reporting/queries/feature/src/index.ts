// Reporting queries over the hit warehouse: the engines' SQL (DuckDB, ClickHouse), the query
// service and its message controller.
export * from './engines/warehouse';
export * from './sql/dialect';
export * from './sql/drilldown-sql';
export * from './sql/hits-sql';
export * from './service/asset-names';
export * from './service/report-queries';
export * from './reporting-queries.message.controller';
export * from './reporting-queries.module';
export * from './sql/conversions-sql';
export * from './service/window-conversions';
