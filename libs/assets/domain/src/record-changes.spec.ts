import { SECRET_PLACEHOLDER } from '@funnel/contracts';
import { AssetRecord } from './asset-events';
import { recordChanges } from './record-changes';

const encrypted = (data: string) => ({ $secret: 'aes-256-gcm', keyId: 'k1', iv: 'iv', data, tag: 'tag' });
const record = (fields: Record<string, unknown>) => ({ status: 'active', ...fields }) as AssetRecord;

describe('recordChanges', () => {
  const secrets = [
    { path: 'destination.basicAuth.password', flag: 'hasPassword' },
    { path: 'nodes[].hmacSecret', itemKey: 'idNode' },
  ];

  it('lists every field of a new record as set from null', () => {
    expect(recordChanges(null, record({ name: 'A', tags: ['x'] }), [])).toEqual([
      { path: 'status', from: null, to: 'active' },
      { path: 'name', from: null, to: 'A' },
      { path: 'tags', from: null, to: ['x'] },
    ]);
  });

  it('names nested fields and list items by path, and leaves equal ones out', () => {
    const before = record({
      name: 'A',
      nodes: [
        { idNode: 'n1', nodeName: 'Root' },
        { idNode: 'n2', nodeName: 'Exit' },
      ],
      meta: { x: 1 },
    });
    const after = record({ name: 'A', nodes: [{ idNode: 'n1', nodeName: 'Start' }], meta: { x: 1, y: 2 } });
    expect(recordChanges(before, after, [])).toEqual([
      { path: 'nodes[0].nodeName', from: 'Root', to: 'Start' },
      { path: 'nodes[1]', from: { idNode: 'n2', nodeName: 'Exit' }, to: null },
      { path: 'meta.y', from: null, to: 2 },
    ]);
  });

  it('shows a changed secret as the placeholder on each side where it is set, never its value', () => {
    const before = record({ destination: { url: 'u', basicAuth: { username: 'a', password: encrypted('one') } } });
    const after = record({ destination: { url: 'u', basicAuth: { username: 'a', password: encrypted('two') } } });
    expect(recordChanges(before, after, secrets)).toEqual([{ path: 'destination.basicAuth.password', from: SECRET_PLACEHOLDER, to: SECRET_PLACEHOLDER }]);
    const removed = record({ destination: { url: 'u', basicAuth: { username: 'a' } } });
    expect(recordChanges(after, removed, secrets)).toEqual([{ path: 'destination.basicAuth.password', from: SECRET_PLACEHOLDER, to: null }]);
    expect(recordChanges(after, after, secrets)).toEqual([]);
  });

  it('masks secrets inside list items and objects that appear or disappear whole', () => {
    const node = { idNode: 'n1', hmacSecret: encrypted('s') };
    const changes = recordChanges(record({ nodes: [] }), record({ nodes: [node], destination: { basicAuth: { password: encrypted('p') } } }), secrets);
    expect(changes).toEqual([
      { path: 'nodes[0]', from: null, to: { idNode: 'n1', hmacSecret: SECRET_PLACEHOLDER } },
      { path: 'destination', from: null, to: { basicAuth: { password: SECRET_PLACEHOLDER } } },
    ]);
    expect(JSON.stringify(changes)).not.toContain('aes-256-gcm');
  });

  it('masks an encrypted value even where no secret field names it', () => {
    expect(recordChanges(record({ other: encrypted('a') }), record({ other: encrypted('b') }), [])).toEqual([
      { path: 'other', from: SECRET_PLACEHOLDER, to: SECRET_PLACEHOLDER },
    ]);
  });
});
