// A minimal writer of MaxMind DB files (IPv4 trees, 24-bit records, maps of strings and unsigned
// integers), for tests of databases the repository does not ship (ISP, ASN, Connection-Type).
import { writeFileSync } from 'node:fs';

type Value = string | number | { [key: string]: Value } | Value[];

interface Trie {
  children: [Trie | number | null, Trie | number | null];
}

/** The control byte(s) of a value: its type (extended types in a second byte) and size (29..284 in one more byte). */
function control(type: number, size: number): Buffer {
  if (size >= 29 + 256) throw new Error('write-mmdb: values of 285 bytes or more are not supported');
  const sizeBits = size < 29 ? size : 29;
  const head = type <= 7 ? [(type << 5) | sizeBits] : [sizeBits, type - 7];
  return Buffer.from(size < 29 ? head : [...head, size - 29]);
}

function encode(value: Value): Buffer {
  if (typeof value === 'string') {
    const bytes = Buffer.from(value, 'utf8');
    return Buffer.concat([control(2, bytes.length), bytes]);
  }
  if (typeof value === 'number') {
    const bytes: number[] = [];
    for (let rest = value; rest > 0; rest = Math.floor(rest / 256)) bytes.unshift(rest % 256);
    return Buffer.concat([control(value < 65536 ? 5 : 6, bytes.length), Buffer.from(bytes)]);
  }
  if (Array.isArray(value)) return Buffer.concat([control(11, value.length), ...value.map(encode)]);
  const entries = Object.entries(value);
  return Buffer.concat([control(7, entries.length), ...entries.flatMap(([key, item]) => [encode(key), encode(item)])]);
}

/** Writes an IPv4 database mapping each CIDR network (`a.b.c.d/n`) to its record. */
export function writeIpv4Mmdb(file: string, databaseType: string, networks: Record<string, Record<string, Value>>): void {
  const records = Object.values(networks).map(encode);
  const offsets = records.map((_, i) => records.slice(0, i).reduce((sum, record) => sum + record.length, 0));
  const root: Trie = { children: [null, null] };
  Object.keys(networks).forEach((network, index) => {
    const [address, bits] = network.split('/');
    const value = address.split('.').reduce((sum, octet) => sum * 256 + Number(octet), 0);
    let node = root;
    for (let depth = 0; depth < Number(bits); depth++) {
      const bit = Math.floor(value / 2 ** (31 - depth)) % 2;
      if (depth === Number(bits) - 1) node.children[bit] = index;
      else node = (node.children[bit] ??= { children: [null, null] }) as Trie;
    }
  });
  const nodes: Trie[] = [];
  const number = (node: Trie) => {
    nodes.push(node);
    for (const child of node.children) if (child !== null && typeof child === 'object') number(child);
  };
  number(root);
  const nodeCount = nodes.length;
  const recordOf = (child: Trie | number | null) =>
    child === null ? nodeCount : typeof child === 'number' ? nodeCount + 16 + offsets[child] : nodes.indexOf(child);
  const tree = Buffer.alloc(nodeCount * 6);
  nodes.forEach((node, i) => {
    tree.writeUIntBE(recordOf(node.children[0]), i * 6, 3);
    tree.writeUIntBE(recordOf(node.children[1]), i * 6 + 3, 3);
  });
  const metadata = encode({
    binary_format_major_version: 2,
    binary_format_minor_version: 0,
    build_epoch: 1_700_000_000,
    database_type: databaseType,
    description: { en: 'test data' },
    ip_version: 4,
    languages: ['en'],
    node_count: nodeCount,
    record_size: 24,
  });
  const marker = Buffer.from([0xab, 0xcd, 0xef, ...Buffer.from('MaxMind.com')]);
  writeFileSync(file, Buffer.concat([tree, Buffer.alloc(16), ...records, marker, metadata]));
}
