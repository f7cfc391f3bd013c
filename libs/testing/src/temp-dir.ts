import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TempDir {
  path: string;
  /** Deletes the directory now; otherwise it goes when the process exits. */
  remove(): void;
}

const pending = new Set<string>();
let cleanupRegistered = false;

/** A fresh directory under the OS temp dir, removed by `remove()` or at process exit at the latest. */
export function tempDir(prefix: string): TempDir {
  const path = mkdtempSync(join(tmpdir(), `${prefix.replace(/[^\w.-]/g, '_')}-`));
  pending.add(path);
  if (!cleanupRegistered) {
    cleanupRegistered = true;
    process.once('exit', () => pending.forEach(removeQuietly));
  }
  return {
    path,
    remove: () => {
      pending.delete(path);
      removeQuietly(path);
    },
  };
}

function removeQuietly(path: string): void {
  rmSync(path, { recursive: true, force: true });
}
