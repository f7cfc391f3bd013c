/** JetStream's "wrong last sequence" (10071): a KV create or update at a revision another writer moved on from. */
export function isWrongLastSequence(error: unknown): boolean {
  const apiError = (error as { api_error?: { err_code?: number } }).api_error;
  return apiError?.err_code === 10071 || /wrong last sequence/i.test((error as Error).message ?? '');
}

/**
 * A KV compare-and-set (`kv.create(key, value)`, `kv.update(key, value, revision)`): the new
 * revision, or undefined when another writer wrote first. Other failures are thrown.
 */
export async function kvCompareAndSet(write: () => Promise<number>): Promise<number | undefined> {
  try {
    return await write();
  } catch (error) {
    if (isWrongLastSequence(error)) return undefined;
    throw error;
  }
}
