import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '@funnel/platform';
import { assetSecretsFileFrom, authOptionsFrom } from './config';
import { ensureDataDir } from './data-dir';
import { openHitSink } from './hits-import';
import { startStandalone } from './standalone';

/**
 * A directory nothing can be created in, as a read-only root filesystem is: a read-only tmpfs when
 * this process may mount one (root, as CI runs), else a directory without write permission (a
 * non-root user cannot write it; root ignores permissions, so it cannot use this).
 */
function readOnlyVolume(base: string): { path: string; reason: string; release(): void } {
  const path = join(base, 'volume');
  mkdirSync(path);
  if (process.getuid?.() === 0) {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'ro,size=64k', 'tmpfs', path]);
    return { path, reason: 'read-only file system', release: () => execFileSync('umount', [path]) };
  }
  chmodSync(path, 0o555);
  return { path, reason: 'permission denied', release: () => chmodSync(path, 0o755) };
}

function errorOf(run: () => unknown): Error {
  try {
    run();
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected an error');
}

describe('DATA_DIR', () => {
  let base: string;
  let volume: ReturnType<typeof readOnlyVolume>;

  beforeAll(() => {
    base = mkdtempSync(join(tmpdir(), 'data-dir-'));
    volume = readOnlyVolume(base);
  });

  afterAll(() => {
    volume.release();
    rmSync(base, { recursive: true, force: true });
  });

  it('on a read-only volume where it does not exist: says it cannot be created and why, in one line', () => {
    const dir = join(volume.path, 'data');
    const error = errorOf(() => ensureDataDir(dir));
    expect(error).toBeInstanceOf(ConfigError);
    expect(error.message).toBe(
      `Invalid configuration: DATA_DIR "${dir}" cannot be created: ${volume.reason}; set DATA_DIR to a writable directory (a mounted volume)`,
    );
    expect(error.message).not.toContain('ENOENT');
  });

  it('that exists but cannot be written: says so', () => {
    const error = errorOf(() => ensureDataDir(volume.path));
    expect(error).toBeInstanceOf(ConfigError);
    expect(error.message).toBe(
      `Invalid configuration: DATA_DIR "${volume.path}" is not writable: ${volume.reason}; set DATA_DIR to a writable directory (a mounted volume)`,
    );
  });

  it('under a file: says a part of the path is a file', () => {
    const file = join(base, 'a-file');
    writeFileSync(file, '');
    expect(errorOf(() => ensureDataDir(join(file, 'data'))).message).toMatch(
      /^Invalid configuration: DATA_DIR ".*" cannot be created: a part of the path is a file, not a directory;/,
    );
  });

  it('hits:import says it as a setting too, not a bare mkdir error', async () => {
    const file = join(base, 'not-a-dir');
    writeFileSync(file, '');
    await expect(openHitSink({ DATA_DIR: join(file, 'data') })).rejects.toThrow(
      /^Invalid configuration: DATA_DIR ".*" cannot be created: a part of the path is a file, not a directory;/,
    );
  });

  it('is created 0700 when it can be', () => {
    const dir = join(base, 'fresh', 'data');
    ensureDataDir(dir);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
  });

  it('is made sure of for the key files kept there by default, and left alone when they live elsewhere', () => {
    const dir = join(volume.path, 'data');
    const line = `Invalid configuration: DATA_DIR "${dir}" cannot be created: ${volume.reason}; set DATA_DIR to a writable directory (a mounted volume)`;
    expect(errorOf(() => assetSecretsFileFrom({ DATA_DIR: dir })).message).toBe(line);
    const auth = { ACCESS_TOKEN_TTL_SECONDS: 900, REFRESH_TOKEN_TTL_SECONDS: 3600, DATA_DIR: dir } as Parameters<typeof authOptionsFrom>[0];
    expect(errorOf(() => authOptionsFrom(auth)).message).toBe(line);
    expect(assetSecretsFileFrom({ DATA_DIR: dir, ASSET_SECRETS_FILE: '/run/secrets/asset-secrets.json' })).toBe('/run/secrets/asset-secrets.json');
    expect(authOptionsFrom({ ...auth, IDENTITY_KEYS_FILE: '/run/secrets/identity-keys.json' }).keysFile).toBe('/run/secrets/identity-keys.json');
  });

  it('standalone refuses to start on a read-only volume with that line, before it listens', async () => {
    const dir = join(volume.path, 'data');
    const started = startStandalone({ DATA_DIR: dir, PORT: '0', EDGE_PORT: '0', LOG_LEVEL: 'fatal' });
    await expect(started).rejects.toBeInstanceOf(ConfigError);
    await expect(started).rejects.toThrow(`Invalid configuration: DATA_DIR "${dir}" cannot be created: ${volume.reason}`);
  });
});
