import { chmodSync, closeSync, existsSync, mkdirSync, openSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** Event logs and key files: read and written by the service's own user only. */
export const PRIVATE_FILE_MODE = 0o600;
/** The data directory: listed and entered by the service's own user only. */
export const PRIVATE_DIRECTORY_MODE = 0o700;

/**
 * Creates `dir` (and its missing parents) with mode 0700. An existing directory is tightened to 0700
 * only when it is ours: owned by this user and already holding one of `ownFiles` (a data directory
 * an earlier version created with the default mode). Any other existing directory (a mounted
 * volume, the working directory) is left as it is: its files are private anyway.
 */
export function ensurePrivateDirectory(dir: string, ownFiles: readonly string[] = []): void {
  if (mkdirSync(dir, { recursive: true, mode: PRIVATE_DIRECTORY_MODE }) !== undefined) return;
  const stat = statSync(dir);
  if ((stat.mode & 0o077) === 0 || !isOwnedByThisUser(stat.uid)) return;
  if (ownFiles.some((file) => existsSync(join(dir, file)))) chmodSync(dir, PRIVATE_DIRECTORY_MODE);
}

/**
 * Creates `file` empty with mode 0600 when absent, and tightens it to 0600 when it exists with a
 * looser mode. SQLite gives the -wal and -shm files the mode of the database file, so creating the
 * database this way before opening it keeps all three private.
 */
export function ensurePrivateFile(file: string): void {
  closeSync(openSync(file, 'a', PRIVATE_FILE_MODE));
  tightenFile(file);
}

/**
 * Sets an existing file's mode to 0600 when group or others have any access to it, if the file is
 * this user's. Another owner's file is left as it is: a key file mounted from a Kubernetes Secret
 * belongs to root (group-readable through the pod's fsGroup) on a read-only volume, where chmod fails.
 */
export function tightenFile(file: string): void {
  if (!existsSync(file)) return;
  const stat = statSync(file);
  if ((stat.mode & 0o077) !== 0 && isOwnedByThisUser(stat.uid)) chmodSync(file, PRIVATE_FILE_MODE);
}

function isOwnedByThisUser(uid: number): boolean {
  return typeof process.getuid !== 'function' || process.getuid() === uid;
}
