import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cleanUpLater } from './cleanup';

export interface TempDir {
  path: string;
  /** Deletes the directory now; otherwise it goes after the test file (or at process exit outside Jest). */
  remove(): void;
}

/** A fresh directory under the OS temp dir, removed by `remove()` or after the test file that made it at the latest. */
export function tempDir(prefix: string): TempDir {
  const path = mkdtempSync(join(tmpdir(), `${prefix.replace(/[^\w.-]/g, '_')}-`));
  const forget = cleanUpLater(() => removeQuietly(path));
  return {
    path,
    remove: () => {
      forget();
      removeQuietly(path);
    },
  };
}

function removeQuietly(path: string): void {
  // A process that was just killed may still be closing files in it: retry a directory that is not empty yet.
  rmSync(path, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 });
}
