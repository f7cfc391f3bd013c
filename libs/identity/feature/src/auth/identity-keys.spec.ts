import { chmodSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { IdentityKeys } from './identity-keys';

describe('IdentityKeys file', () => {
  let dir: string;
  const modeOf = (path: string) => statSync(path).mode & 0o777;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'identity-keys-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('is created 0600 in a directory created 0700', async () => {
    const file = join(dir, 'data', 'identity-keys.json');
    await IdentityKeys.load(file);
    expect(modeOf(file)).toBe(0o600);
    expect(modeOf(join(dir, 'data'))).toBe(0o700);
  });

  it('is 0600 after a rotation, even when it was readable by others before', async () => {
    const file = join(dir, 'identity-keys.json');
    await IdentityKeys.load(file);
    chmodSync(file, 0o644);
    const { kid } = await IdentityKeys.rotate(file);
    expect(modeOf(file)).toBe(0o600);
    expect((await IdentityKeys.load(file)).activeSigningKey.kid).toBe(kid);
  });
});
