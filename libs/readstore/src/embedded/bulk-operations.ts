import { BulkOperation, Doc } from '../read-store.port';

// bulkWrite's operations checked before any is applied, as the driver does.

export function validateOperation(operation: BulkOperation<Doc>, index: number): void {
  const kinds = Object.keys(operation);
  if (kinds.length !== 1 || !OPERATION_KINDS.has(kinds[0]))
    throw new TypeError(`bulkWrite: operation ${index} is not one of ${[...OPERATION_KINDS].join(', ')}`);
  if ('updateOne' in operation || 'updateMany' in operation) {
    const { update } = 'updateOne' in operation ? operation.updateOne : operation.updateMany;
    const operators = Object.keys(update ?? {});
    if (operators.length === 0 || operators.some((key) => !key.startsWith('$')))
      throw new TypeError(`bulkWrite: operation ${index}: update document requires atomic operators`);
  }
  if ('replaceOne' in operation && Object.keys(operation.replaceOne.replacement).some((key) => key.startsWith('$'))) {
    throw new TypeError(`bulkWrite: operation ${index}: replacement document must not contain atomic operators`);
  }
}

const OPERATION_KINDS = new Set(['insertOne', 'updateOne', 'updateMany', 'replaceOne', 'deleteOne', 'deleteMany']);
