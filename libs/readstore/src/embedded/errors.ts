// The store's errors, with MongoDB's codes.

/** Thrown by createIndex with the MongoDB error code the server would report (as MongoServerError carries `code`). */
export class EmbeddedStoreError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
    this.name = 'EmbeddedStoreError';
  }
}

/**
 * A failed operation inside bulkWrite. Deliberately not an Error: replays fail thousands of guarded
 * upserts per batch, and capturing a stack trace for each would dominate the cost.
 */
export class WriteFailure {
  constructor(
    readonly code: number,
    readonly message: string,
  ) {}
}

// MongoDB error codes reproduced here (besides DUPLICATE_KEY).
export const BAD_VALUE = 2;

export const TYPE_MISMATCH = 14;

export const PATH_NOT_VIABLE = 28;

export const CONFLICTING_UPDATE_OPERATORS = 40;

export const IMMUTABLE_FIELD = 66;

export const INDEX_OPTIONS_CONFLICT = 85;

export const INDEX_KEY_SPECS_CONFLICT = 86;

export function failureOf(error: unknown): { code: number; message: string } {
  if (error instanceof WriteFailure) return { code: error.code, message: error.message };
  return { code: BAD_VALUE, message: error instanceof Error ? error.message : String(error) };
}

export function immutableIdError(id: string): WriteFailure {
  return new WriteFailure(
    IMMUTABLE_FIELD,
    `After applying the update, the (immutable) field '_id' was found to have been altered to _id: ${JSON.stringify(id)}`,
  );
}
