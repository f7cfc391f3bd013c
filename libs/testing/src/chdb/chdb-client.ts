import type { ClickHouseClient } from '@clickhouse/client';
import { cleanUpLater } from '../cleanup';
import { tempDir } from '../temp-dir';

/** chdb's `@clickhouse/client` connection (`chdb/connection`, which this repository's module resolution cannot name). */
type ChdbConnectionModule = typeof import('chdb/dist/connection');
/**
 * The connection `createClient` takes. chdb types its connection with `@clickhouse/client-common`,
 * which `@clickhouse/client` bundles a copy of: the declarations are the same, but the settings'
 * `SettingsMap` class has a private member, so TypeScript tells the two copies apart.
 */
type ClientConnection = NonNullable<NonNullable<Parameters<typeof import('@clickhouse/client').createClient>[0]>['connection']>;

export interface ChdbClient {
  /** A `@clickhouse/client` client whose queries run on the embedded engine, not over HTTP. */
  client: ClickHouseClient;
  /** The engine's ClickHouse version, e.g. `26.7.2.1`. */
  version: string;
  /** Closes the client and deletes the engine's data directory (otherwise both go after the test file). */
  close(): Promise<void>;
}

/**
 * Opens ClickHouse embedded in this process (chdb) behind a `@clickhouse/client` client: what code
 * written for a ClickHouse server (`query` with `query_params` and JSONEachRow, `insert`, `command`,
 * `exec`) runs unchanged, in ClickHouse's own dialect, on a fresh data directory of its own.
 *
 * The engine binds one data directory per process: close the client before opening another (tests
 * that need several stores at once share one client and keep apart by table names).
 */
export async function openChdbClient(): Promise<ChdbClient> {
  // Loaded on demand: the engine is a 540 MB library that the other users of this lib never need.
  const { createChdbConnection } = requireChdbConnection();
  const { createClient } = await import('@clickhouse/client');
  const dir = tempDir('chdb');
  let client: ClickHouseClient;
  try {
    client = createClient({ connection: createChdbConnection({ path: dir.path }) as unknown as ClientConnection });
  } catch (error) {
    dir.remove();
    throw error;
  }
  let closed: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closed ??= (async () => {
      forget();
      try {
        await client.close();
      } finally {
        dir.remove();
      }
    })();
    return closed;
  };
  // Registered after the directory's own cleanup, so it runs first: the engine closes before its directory goes.
  const forget = cleanUpLater(close);
  try {
    const result = await client.query({ query: 'SELECT version() AS version', format: 'JSONEachRow' });
    const [{ version }] = await result.json<{ version: string }>();
    return { client, version, close };
  } catch (error) {
    await close();
    throw error;
  }
}

/**
 * Undefined when chdb's engine loads on this machine, else why not (its packages ship Linux x64 only
 * today). Suites call it while Jest collects tests, to register a todo saying why instead of failing.
 */
export function whyChdbIsUnavailable(): string | undefined {
  try {
    requireChdbConnection();
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

function requireChdbConnection(): ChdbConnectionModule {
  return require('chdb/connection') as ChdbConnectionModule;
}
