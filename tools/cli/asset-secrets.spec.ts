import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '@funnel/testing';
import { runAssetSecretsCli } from './asset-secrets';

function io() {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, io: { out: (line: string) => out.push(line), err: (line: string) => err.push(line) } };
}

describe('npm run cli -- asset-secrets:create|rotate', () => {
  const dir = tempDir('asset-secrets-cli');
  afterAll(() => dir.remove());

  it('creates the key file once, rotates it by appending a key, and prints key ids only', async () => {
    const file = join(dir.path, 'secrets', 'asset-secrets.json');
    const created = io();
    expect(await runAssetSecretsCli(['asset-secrets:create', file], created.io)).toBe(0);
    const again = io();
    expect(await runAssetSecretsCli(['asset-secrets:create', file], again.io)).toBe(1);
    expect(again.err).toEqual([`error: ${file} exists; rotate it instead`]);
    const rotated = io();
    expect(await runAssetSecretsCli(['asset-secrets:rotate', file], rotated.io)).toBe(0);

    const keys = (JSON.parse(readFileSync(file, 'utf8')) as { keys: { id: string; key: string }[] }).keys;
    const first = JSON.parse(created.out[0]) as { keyId: string };
    expect(keys.map((k) => k.id)).toEqual([first.keyId, (JSON.parse(rotated.out[0]) as { keyId: string }).keyId]);
    expect(JSON.parse(rotated.out[0])).toMatchObject({ file, keys: 2 });
    for (const { key } of keys) expect([...created.out, ...rotated.out].join('\n')).not.toContain(key);
  });

  it('answers 2 with the usage without a file', async () => {
    const run = io();
    expect(await runAssetSecretsCli(['asset-secrets:rotate'], run.io)).toBe(2);
    expect(run.err.join('\n')).toContain('usage: npm run -s cli -- asset-secrets:create <file>');
  });
});
