import { chmodSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '@funnel/testing';
import { AssetSecretBox } from './asset-secret-box';

describe('AssetSecretBox key file', () => {
  const dir = tempDir('asset-secret-box');
  afterAll(() => dir.remove());
  afterEach(() => jest.restoreAllMocks());

  it('create writes one key (0600) and refuses to overwrite the file', () => {
    const file = join(dir.path, 'created.json');
    const { keyId } = AssetSecretBox.create(file);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect((JSON.parse(readFileSync(file, 'utf8')) as { keys: { id: string }[] }).keys.map((k) => k.id)).toEqual([keyId]);
    expect(() => AssetSecretBox.create(file)).toThrow(/EEXIST/);
  });

  it('rotate appends a key that encrypts from then on, while the older keys still decrypt', () => {
    const file = join(dir.path, 'rotated.json');
    const first = AssetSecretBox.create(file);
    const before = AssetSecretBox.openOrCreate(file).encrypt('webhook password');
    const rotated = AssetSecretBox.rotate(file);
    expect(rotated.keys).toBe(2);
    const box = AssetSecretBox.openOrCreate(file);
    expect(before.keyId).toBe(first.keyId);
    expect(box.decrypt(before)).toBe('webhook password');
    const after = box.encrypt('new password');
    expect(after.keyId).toBe(rotated.keyId);
    expect(box.decrypt(after)).toBe('new password');
  });

  it('opens a key file owned by another user (a Secret mounted by the kubelet) without changing its mode', () => {
    const file = join(dir.path, 'mounted.json');
    AssetSecretBox.create(file);
    // What a Secret volume with defaultMode 0400 and the pod's fsGroup looks like: 0440, root's file.
    chmodSync(file, 0o440);
    const owner = statSync(file).uid;
    jest.spyOn(process, 'getuid').mockReturnValue(owner + 1000);
    const box = AssetSecretBox.openOrCreate(file);
    expect(statSync(file).mode & 0o777).toBe(0o440);
    expect(box.decrypt(box.encrypt('kept'))).toBe('kept');
  });

  it('refuses a key file with duplicate ids or a key of the wrong length, naming the file', () => {
    const file = join(dir.path, 'bad.json');
    const key = Buffer.alloc(32, 1).toString('base64');
    writeFileSync(
      file,
      JSON.stringify({
        keys: [
          { id: 'a', key },
          { id: 'a', key },
        ],
      }),
      { mode: 0o600 },
    );
    expect(() => AssetSecretBox.openOrCreate(file)).toThrow(`${file} must hold`);
    writeFileSync(file, JSON.stringify({ keys: [{ id: 'a', key: 'c2hvcnQ=' }] }), { mode: 0o600 });
    expect(() => AssetSecretBox.openOrCreate(file)).toThrow(`${file} must hold`);
  });
});
