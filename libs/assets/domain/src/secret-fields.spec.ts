import type { SecretField } from '@funnel/contracts';
import type { AssetRecord } from './asset-events';
import {
  type EncryptedSecret,
  SECRET_PLACEHOLDER,
  type SecretCipher,
  applySecretWrites,
  isEncryptedSecret,
  maskSecrets,
  secretsAsPlaceholders,
} from './secret-fields';

/** A cipher that makes the clear text visible to the test only through decrypt. */
const cipher: SecretCipher = {
  encrypt: (plain) => ({ $secret: 'aes-256-gcm', keyId: 'k', iv: '', data: Buffer.from(plain).toString('base64'), tag: '' }),
  decrypt: (secret: EncryptedSecret) => Buffer.from(secret.data, 'base64').toString(),
};
const FIELDS: SecretField[] = [
  { path: 'destination.basicAuth.password', flag: 'hasBasicAuthPassword' },
  { path: 'destination.hmacSecret', flag: 'hasHmacSecret' },
  { path: 'signingSecret', flag: 'hasSigningSecret', hidden: true },
];
const record = (fields: Record<string, unknown>) => ({ status: 'active', ...fields }) as AssetRecord;
const at = (r: AssetRecord, path: string) => path.split('.').reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], r);

describe('write-only secrets', () => {
  const saved = applySecretWrites(
    record({ destination: { url: 'https://x.example', basicAuth: { username: 'u', password: 'pw-1' }, hmacSecret: 'h'.repeat(20) }, signingSecret: 'whsec_a' }),
    FIELDS,
    null,
    cipher,
  );

  it('given secrets in clear, when saved, then each is stored encrypted and nothing else changes', () => {
    expect(JSON.stringify(saved)).not.toContain('pw-1');
    expect(isEncryptedSecret(at(saved, 'destination.basicAuth.password'))).toBe(true);
    expect(cipher.decrypt(at(saved, 'destination.hmacSecret') as EncryptedSecret)).toBe('h'.repeat(20));
    expect(at(saved, 'destination.basicAuth.username')).toBe('u');
  });

  it('when read, then stored secrets show as the placeholder (hidden ones not at all) with their flags', () => {
    const shown = maskSecrets(saved, FIELDS);
    expect(at(shown, 'destination.basicAuth.password')).toBe(SECRET_PLACEHOLDER);
    expect(shown).toMatchObject({ hasBasicAuthPassword: true, hasHmacSecret: true, hasSigningSecret: true });
    expect('signingSecret' in shown).toBe(false);
    expect(maskSecrets(record({ destination: {} }), FIELDS)).toMatchObject({ hasBasicAuthPassword: false, hasHmacSecret: false });
  });

  it('given an update that omits a secret or sends the placeholder, then the stored value is kept', () => {
    const update = applySecretWrites(
      record({ destination: { url: 'https://y.example', basicAuth: { username: 'u2', password: SECRET_PLACEHOLDER } } }),
      FIELDS,
      saved,
      cipher,
    );
    expect(at(update, 'destination.basicAuth.password')).toEqual(at(saved, 'destination.basicAuth.password'));
    expect(at(update, 'destination.hmacSecret')).toEqual(at(saved, 'destination.hmacSecret'));
    expect(at(update, 'signingSecret')).toEqual(at(saved, 'signingSecret'));
  });

  it('given null or "", then the secret is removed', () => {
    const update = applySecretWrites(record({ destination: { basicAuth: { username: 'u', password: null }, hmacSecret: '' } }), FIELDS, saved, cipher);
    expect(at(update, 'destination.basicAuth.password')).toBeUndefined();
    expect(at(update, 'destination.hmacSecret')).toBeUndefined();
    expect(maskSecrets(update, FIELDS)).toMatchObject({ hasBasicAuthPassword: false, hasHmacSecret: false, hasSigningSecret: true });
  });

  it('given an update without the object a secret lives in, then that secret is removed (a top-level one is kept)', () => {
    const update = applySecretWrites(record({ destination: { url: 'https://y.example' } }), FIELDS, saved, cipher);
    expect(at(update, 'destination.basicAuth')).toBeUndefined();
    expect(at(update, 'destination.hmacSecret')).toEqual(at(saved, 'destination.hmacSecret'));
    expect(at(update, 'signingSecret')).toEqual(at(saved, 'signingSecret'));
    const withoutDestination = applySecretWrites(record({}), FIELDS, saved, cipher);
    expect(withoutDestination).not.toHaveProperty('destination');
    expect(maskSecrets(withoutDestination, FIELDS)).toMatchObject({ hasBasicAuthPassword: false, hasHmacSecret: false, hasSigningSecret: true });
  });

  it('given an update that leaves out the object holding a secret, then the secret goes with it', () => {
    for (const basicAuth of [undefined, null]) {
      const update = applySecretWrites(record({ destination: { url: 'https://y.example', basicAuth } }), FIELDS, saved, cipher);
      expect(at(update, 'destination.basicAuth.password')).toBeUndefined();
      expect(at(update, 'destination.hmacSecret')).toEqual(at(saved, 'destination.hmacSecret'));
      expect(maskSecrets(update, FIELDS)).toMatchObject({ hasBasicAuthPassword: false, hasHmacSecret: true });
    }
  });

  it('given a stored record, then its secrets become placeholders that a save keeps (duplicate)', () => {
    const copy = secretsAsPlaceholders(saved, FIELDS);
    expect(at(copy, 'destination.basicAuth.password')).toBe(SECRET_PLACEHOLDER);
    expect(applySecretWrites(copy, FIELDS, saved, cipher)).toEqual(saved);
  });

  it('never changes the record it is given, even when it hides a nested secret', () => {
    const before = JSON.stringify(saved);
    const hidden = maskSecrets(
      saved,
      FIELDS.map((field) => ({ ...field, hidden: true })),
    );
    expect(JSON.stringify(saved)).toBe(before);
    expect(at(hidden, 'destination.basicAuth')).toEqual({ username: 'u' });
    expect(hidden).toMatchObject({ hasBasicAuthPassword: true, hasHmacSecret: true, hasSigningSecret: true });
  });
});

describe('write-only secrets in list items', () => {
  const LIST: SecretField[] = [{ path: 'nodes[].overrides.hmacSecret', itemKey: 'idNode' }];
  const nodes = (...items: unknown[]) => record({ nodes: items });
  const saved = applySecretWrites(nodes({ idNode: 'A', overrides: { hmacSecret: 'secret-a' } }, { idNode: 'B' }, 'not an object'), LIST, null, cipher);
  const secretOf = (r: AssetRecord, i: number) => at((r.nodes as AssetRecord[])[i], 'overrides.hmacSecret');

  it('given a secret in an item, when saved, then it is encrypted in that item only, and shown as the placeholder without a flag', () => {
    expect(JSON.stringify(saved)).not.toContain('secret-a');
    expect(cipher.decrypt(secretOf(saved, 0) as EncryptedSecret)).toBe('secret-a');
    expect((saved.nodes as unknown[])[1]).toEqual({ idNode: 'B' });
    expect((saved.nodes as unknown[])[2]).toBe('not an object');
    const shown = maskSecrets(saved, LIST);
    expect(secretOf(shown, 0)).toBe(SECRET_PLACEHOLDER);
    expect(Object.keys(shown)).toEqual(['status', 'nodes']);
  });

  it('given the placeholder, then the item with the same key keeps its secret, wherever it is in the list; null removes it', () => {
    const moved = applySecretWrites(nodes({ idNode: 'B' }, { idNode: 'A', overrides: { hmacSecret: SECRET_PLACEHOLDER } }), LIST, saved, cipher);
    expect(secretOf(moved, 1)).toEqual(secretOf(saved, 0));
    const otherItem = applySecretWrites(nodes({ idNode: 'C', overrides: { hmacSecret: SECRET_PLACEHOLDER } }), LIST, saved, cipher);
    expect(secretOf(otherItem, 0)).toBeUndefined();
    const removed = applySecretWrites(nodes({ idNode: 'A', overrides: { hmacSecret: null } }), LIST, saved, cipher);
    expect(secretOf(removed, 0)).toBeUndefined();
  });

  it('given a stored record, then its item secrets become placeholders that a save keeps (duplicate)', () => {
    expect(applySecretWrites(secretsAsPlaceholders(saved, LIST), LIST, saved, cipher)).toEqual(saved);
  });
});
