import { accessSync, constants, existsSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { ensurePrivateDirectory } from '@funnel/eventstore';
import { ConfigError } from '@funnel/platform';

/** Plain words for the errors a directory that cannot be created or written answers. */
const REASONS: Readonly<Record<string, string>> = {
  EROFS: 'read-only file system',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  ENOSPC: 'no space left on the device',
  ENOTDIR: 'a part of the path is a file, not a directory',
  EEXIST: 'a file, not a directory, is in its place',
};

/**
 * Creates DATA_DIR (0700, see ensurePrivateDirectory) for the files an app keeps there and checks
 * that it can be written; refuses to start with one line, as a bad setting does, when it cannot:
 * `Invalid configuration: DATA_DIR "/app/data" cannot be created: read-only file system`.
 * Node's recursive mkdir answers ENOENT on a read-only volume, so the nearest existing parent is
 * asked why. Call it only when something will live in DATA_DIR (an app on EventStoreDB, ClickHouse
 * and secret files needs no writable DATA_DIR).
 */
export function ensureDataDir(dir: string, ownFiles: readonly string[] = []): void {
  const existed = existsSync(dir);
  try {
    ensurePrivateDirectory(dir, ownFiles);
    accessSync(dir, constants.W_OK);
  } catch (error) {
    const verb = existed ? 'is not writable' : 'cannot be created';
    throw new ConfigError(
      'DATA_DIR',
      'writable directory',
      `${JSON.stringify(dir)} ${verb}: ${reasonOf(dir, error)}; set DATA_DIR to a writable directory (a mounted volume)`,
    );
  }
}

/** `DATA_DIR/<name>`, a file an app keeps there by default (its keys): DATA_DIR is made sure of first (see ensureDataDir). */
export function dataDirFile(dir: string, name: string): string {
  ensureDataDir(dir);
  return join(dir, name);
}

function reasonOf(dir: string, error: unknown): string {
  let code = (error as NodeJS.ErrnoException).code ?? '';
  if (code === 'ENOENT') code = parentProblem(dir) ?? code;
  return REASONS[code] ?? (error instanceof Error ? error.message : String(error));
}

/** Why the nearest existing ancestor of `dir` takes no new directory (EROFS, EACCES, ENOTDIR), if it is that. */
function parentProblem(dir: string): string | undefined {
  let parent = dirname(resolve(dir));
  while (!existsSync(parent) && dirname(parent) !== parent) parent = dirname(parent);
  if (!statSync(parent).isDirectory()) return 'ENOTDIR';
  try {
    accessSync(parent, constants.W_OK);
    return undefined;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code;
  }
}
