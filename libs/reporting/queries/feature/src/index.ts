// Reporting queries over the hit warehouse: the engines' SQL (DuckDB, ClickHouse), the query
// service and its message controller.
export {};
