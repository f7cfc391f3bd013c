// Warehouse rows into DuckDB data chunks, column by column: laid out (columns), packed for the ingest log (chunk-writer, long-texts).
export { CHUNK_ROWS, type ColumnValue, type ColumnValuesOf } from './columns';
export { ChunkWriter, dataChunkOf } from './chunk-writer';
