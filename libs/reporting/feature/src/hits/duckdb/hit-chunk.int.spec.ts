import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import type { WarehouseValue } from '../hit-row';
import { CHUNK_ROWS, ChunkWriter, dataChunkOf } from './hit-chunk';

const COLUMNS = [
  { name: 'n', duckdb: 'BIGINT NOT NULL' },
  { name: 'text', duckdb: "VARCHAR NOT NULL DEFAULT ''" },
  { name: 'flag', duckdb: 'BOOLEAN NOT NULL' },
  { name: 'small', duckdb: 'UTINYINT NOT NULL' },
  { name: 'count', duckdb: 'UINTEGER NOT NULL' },
  { name: 'money', duckdb: 'DECIMAL(18,6) NOT NULL' },
  { name: 'tags', duckdb: 'VARCHAR[] NOT NULL' },
];

// Text of every length around DuckDB's 12 inline bytes, ASCII and not, repeated and not.
const TEXTS = [
  '',
  'a',
  'HIT000000001',
  'HIT0000000012',
  'é',
  'ééééééé',
  'ünïcödé text',
  'x'.repeat(300),
  'Mozilla/5.0 (Linux; Android 14)',
  '12 chars ok!',
  '\t tab ',
];

function row(n: number) {
  return {
    n: n * 1_000_003,
    text: `${TEXTS[n % TEXTS.length]}${n % 7 === 0 ? n : ''}`,
    flag: n % 3 === 0,
    small: n % 65,
    count: n * 7,
    money: ['0', '0.125', '12.5', '999999999999.999999'][n % 4],
    tags: n % 5 === 0 ? [] : [`TAG${n % 9}`, 'TAG000000001'],
  };
}

/** `row(0)`..`row(11)` packed by the version before long texts were packed as bytes (commit 1308f4d). */
const PACKED_BEFORE_LONG_TEXT_BYTES = [
  'lwMAAHsiY29sdW1ucyI6WyJuIiwidGV4dCIsImZsYWciLCJzbWFsbCIsImNvdW50IiwibW9uZXkiLCJ0YWdzIl0sImNodW5rcyI6W3siY291bnQiOjEyLCJj',
  'b2x1bW5zIjpbeyJieXRlcyI6OTYsImF0IjowfSx7ImJ5dGVzIjoxOTIsImxvbmdSb3dzIjpbMyw0LDUsNiw3LDhdLCJsb25nVGV4dHMiOlsiSElUMDAwMDAw',
  'MDAxMiIsIsOpIiwiw6nDqcOpw6nDqcOpw6kiLCLDvG7Dr2PDtmTDqSB0ZXh0IiwieHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4',
  'eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4',
  'eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4',
  'eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4NyIsIk1vemlsbGEv',
  'NS4wIChMaW51eDsgQW5kcm9pZCAxNCkiXSwiYXQiOjk2fSx7ImJ5dGVzIjoxMiwiYXQiOjI4OH0seyJieXRlcyI6MTIsImF0IjozMDB9LHsiYnl0ZXMiOjQ4',
  'LCJhdCI6MzEyfSx7ImJ5dGVzIjo5NiwiYXQiOjM2MH0seyJieXRlcyI6MCwidmFsdWVzIjpbW10sWyJUQUcxIiwiVEFHMDAwMDAwMDAxIl0sWyJUQUcyIiwi',
  'VEFHMDAwMDAwMDAxIl0sWyJUQUczIiwiVEFHMDAwMDAwMDAxIl0sWyJUQUc0IiwiVEFHMDAwMDAwMDAxIl0sW10sWyJUQUc2IiwiVEFHMDAwMDAwMDAxIl0s',
  'WyJUQUc3IiwiVEFHMDAwMDAwMDAxIl0sWyJUQUc4IiwiVEFHMDAwMDAwMDAxIl0sWyJUQUcwIiwiVEFHMDAwMDAwMDAxIl0sW10sWyJUQUcyIiwiVEFHMDAw',
  'MDAwMDAxIl1dLCJhdCI6NDU2fV19XX0AAAAAAAAAAENCDwAAAAAAhoQeAAAAAADJxi0AAAAAAAwJPQAAAAAAT0tMAAAAAACSjVsAAAAAANXPagAAAAAAGBJ6',
  'AAAAAABbVIkAAAAAAJ6WmAAAAAAA4dinAAAAAAABAAAAMAAAAAAAAAAAAAAAAQAAAGEAAAAAAAAAAAAAAAwAAABISVQwMDAwMDAwMDEAAAAAAAAAAAAAAAAA',
  'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAMAAAAMTIg',
  'Y2hhcnMgb2shBgAAAAkgdGFiIAAAAAAAAAAAAAAAAAAAAAAAAAAAAAABAAABAAABAAABAAAAAQIDBAUGBwgJCgsAAAAABwAAAA4AAAAVAAAAHAAAACMAAAAq',
  'AAAAMQAAADgAAAA/AAAARgAAAE0AAAAAAAAAAAAAAEjoAQAAAAAAILy+AAAAAAD//2Ons7bgDQAAAAAAAAAASOgBAAAAAAAgvL4AAAAAAP//Y6eztuANAAAA',
  'AAAAAABI6AEAAAAAACC8vgAAAAAA//9jp7O24A0=',
];

/** A row's value of a column: its field of that name. */
const byName = (column: string) => (r: Record<string, WarehouseValue>) => r[column];

describe('ChunkWriter (DuckDB data chunks filled column by column)', () => {
  let instance: DuckDBInstance;
  let connection: DuckDBConnection;

  beforeEach(async () => {
    instance = await DuckDBInstance.create(':memory:');
    connection = await instance.connect();
    await connection.run(`CREATE TABLE t (${COLUMNS.map((column) => `${column.name} ${column.duckdb}`).join(', ')})`);
  });
  afterEach(() => {
    connection.closeSync();
    instance.closeSync();
  });

  async function stored() {
    const reader = await connection.runAndReadAll('SELECT n, text, flag, small, count, money::VARCHAR AS money, tags FROM t ORDER BY n');
    return reader.getRowObjectsJS().map((values) => ({ ...values, n: Number(values['n']), money: String(values['money']).replace(/\.?0+$/, '') }));
  }

  it('stores every value as given, over several reused chunks', async () => {
    const rows = Array.from({ length: CHUNK_ROWS * 2 + 17 }, (_, n) => row(n));
    const appender = await connection.createAppender('t');
    const writer = new ChunkWriter(COLUMNS);
    writer.appendRows(appender, rows.slice(0, 10));
    writer.appendRows(appender, rows.slice(10));
    appender.closeSync();
    expect(await stored()).toEqual(rows);
    // Short text compares equal to the same text from SQL (inline bytes padded as DuckDB pads them).
    const reader = await connection.runAndReadAll("SELECT count(*) FROM t WHERE text = 'HIT000000001'");
    expect(Number(reader.getRows()[0][0])).toBe(rows.filter((r) => r.text === 'HIT000000001').length);
  });

  it('builds a single chunk of rows (dataChunkOf) the same way', async () => {
    const rows = Array.from({ length: 40 }, (_, n) => row(n));
    const appender = await connection.createAppender('t');
    appender.appendDataChunk(dataChunkOf(COLUMNS, rows));
    appender.closeSync();
    expect(await stored()).toEqual(rows);
  });

  it('packs rows into one buffer that another writer of the same columns appends as they were given', async () => {
    const rows = Array.from({ length: CHUNK_ROWS + 300 }, (_, n) => row(n));
    const packed = new ChunkWriter(COLUMNS).pack(rows, byName);
    // Packing checks the values first: nothing is packed of rows a column cannot hold.
    expect(() => new ChunkWriter(COLUMNS).pack([{ ...row(1), money: '1000000000000' }], byName)).toThrow(/out of the range of DECIMAL\(18,6\)/);
    const appender = await connection.createAppender('t');
    // From a copy at an offset inside a larger buffer, as read back from a file.
    const copy = Buffer.alloc(packed.length + 7);
    packed.copy(copy, 7);
    expect(new ChunkWriter(COLUMNS).appendPacked(appender, copy.subarray(7))).toBe(rows.length);
    appender.closeSync();
    expect(await stored()).toEqual(rows);
    expect(() => new ChunkWriter(COLUMNS.slice(1)).appendPacked(appender, packed)).toThrow(/cannot be appended/);
  });

  it('appends rows packed by the previous version (long texts listed in the header), as an ingest log written before an upgrade holds them', async () => {
    const appender = await connection.createAppender('t');
    expect(new ChunkWriter(COLUMNS).appendPacked(appender, Buffer.from(PACKED_BEFORE_LONG_TEXT_BYTES.join(''), 'base64'))).toBe(12);
    appender.closeSync();
    expect(await stored()).toEqual(Array.from({ length: 12 }, (_, n) => row(n)));
  });

  it("packs again in the writer's own buffer (room kept for the header), each pack appending as given", async () => {
    const writer = new ChunkWriter(COLUMNS);
    const appender = await connection.createAppender('t');
    const rows = Array.from({ length: CHUNK_ROWS * 3 }, (_, n) => row(n));
    for (const [from, to] of [
      [0, 100],
      [100, 150],
      [150, CHUNK_ROWS * 3],
      [CHUNK_ROWS * 3, CHUNK_ROWS * 3],
    ])
      expect(writer.appendPacked(appender, writer.pack(rows.slice(from, to), byName))).toBe(to - from);
    appender.closeSync();
    expect(await stored()).toEqual(rows);
    // The same rows pack to the same bytes whatever the buffer held before (padding zeroed: the bytes go to the ingest log).
    const again = new ChunkWriter(COLUMNS);
    const first = Buffer.from(again.pack(rows.slice(0, 150), byName));
    again.pack(
      rows.map((r) => ({ ...r, text: 'y'.repeat(37) })),
      byName,
    );
    expect(Buffer.from(again.pack(rows.slice(0, 150), byName))).toEqual(first);
  });

  it('stores list columns of every element type (none, one, many; long and non-ASCII texts) packed and appended through reused chunks', async () => {
    const LISTS = [
      { name: 'n', duckdb: 'BIGINT NOT NULL' },
      { name: 'texts', duckdb: 'VARCHAR[] NOT NULL' },
      { name: 'numbers', duckdb: 'BIGINT[] NOT NULL' },
      { name: 'amounts', duckdb: 'DECIMAL(18,6)[] NOT NULL' },
    ];
    await connection.run(`CREATE TABLE lists (${LISTS.map((column) => `${column.name} ${column.duckdb}`).join(', ')})`);
    const rows = Array.from({ length: CHUNK_ROWS + 40 }, (_, n) => ({
      n,
      texts: Array.from({ length: n % 4 }, (_, i) => TEXTS[(n + i) % TEXTS.length]),
      numbers: Array.from({ length: (n + 1) % 3 }, (_, i) => n * 1_000_003 + i),
      amounts: Array.from({ length: n % 3 }, (_, i) => ['0.125', '12.5', '999999999999.999999'][(n + i) % 3]),
    }));
    const writer = new ChunkWriter(LISTS);
    const appender = await connection.createAppender('lists');
    for (const [from, to] of [
      [0, 3],
      [3, 50],
      [50, rows.length],
    ])
      expect(writer.appendPacked(appender, writer.pack(rows.slice(from, to), byName))).toBe(to - from);
    writer.appendRows(appender, [{ n: -1, texts: ['x'.repeat(300)], numbers: [], amounts: ['0'] }]);
    appender.closeSync();
    const reader = await connection.runAndReadAll('SELECT n, texts, numbers, amounts::VARCHAR[] AS amounts FROM lists ORDER BY n');
    expect(
      reader.getRowObjectsJS().map((values) => ({
        n: Number(values['n']),
        texts: values['texts'],
        numbers: (values['numbers'] as bigint[]).map(Number),
        amounts: (values['amounts'] as string[]).map((amount) => amount.replace(/\.?0+$/, '') || '0'),
      })),
    ).toEqual([{ n: -1, texts: ['x'.repeat(300)], numbers: [], amounts: ['0'] }, ...rows]);
    expect(() => writer.pack([{ ...rows[0], amounts: ['1000000000000'] }], byName)).toThrow(/out of the range of DECIMAL\(18,6\)/);
  });

  it('refuses money beyond DECIMAL(18,6) instead of storing a wrapped value', async () => {
    const appender = await connection.createAppender('t');
    expect(() => new ChunkWriter(COLUMNS).appendRows(appender, [{ ...row(1), money: '1000000000000' }])).toThrow(/out of the range of DECIMAL\(18,6\)/);
    appender.closeSync();
    expect(await stored()).toEqual([]);
  });
});
