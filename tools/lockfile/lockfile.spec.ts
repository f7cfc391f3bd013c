import { readFileSync } from 'node:fs';
import { join } from 'node:path';

interface LockEntry {
  optionalDependencies?: Record<string, string>;
  libc?: string[];
}

const lock = JSON.parse(readFileSync(join(__dirname, '..', '..', 'package-lock.json'), 'utf8')) as {
  lockfileVersion: number;
  packages: Record<string, LockEntry>;
};

/**
 * Optional dependencies the npm registry does not publish (it answers 404), so npm leaves them out of
 * every lockfile: chdb 3.4.0 names its engine package for four platforms, and only Linux x64 is published.
 */
const UNPUBLISHED = new Set(['@chdb/lib-darwin-arm64', '@chdb/lib-darwin-x64', '@chdb/lib-linux-arm64-gnu']);

/** Where npm would place `name` required from the package at `path`: its own node_modules, or any parent's. */
function resolves(path: string, name: string): boolean {
  for (let base = path; ; base = base.slice(0, base.lastIndexOf('/node_modules/'))) {
    if (lock.packages[`${base ? `${base}/` : ''}node_modules/${name}`]) return true;
    if (!base.includes('/node_modules/')) return !!lock.packages[`node_modules/${name}`];
  }
}

describe('package-lock.json (npm install on a fresh clone leaves it unchanged, with npm 10 and 11)', () => {
  it('has an entry for every optional dependency of every package, whatever platform it is for', () => {
    const missing = Object.entries(lock.packages).flatMap(([path, entry]) =>
      Object.keys(entry.optionalDependencies ?? {})
        .filter((name) => !UNPUBLISHED.has(name) && !resolves(path, name))
        .map((name) => `${path} -> ${name}`),
    );
    expect(missing).toEqual([]);
  });

  it('is in the form npm 10 writes: lockfile version 3, no libc fields (npm 10 would remove them)', () => {
    expect(lock.lockfileVersion).toBe(3);
    expect(Object.keys(lock.packages).filter((path) => lock.packages[path].libc !== undefined)).toEqual([]);
  });
});
