export { PackedRows, SlicedText, packRows, type PackableRow } from './rows';
export * from './sqlite-writer-thread';
