import { SerializedJson, jsonValue } from './serialized-json';

describe('SerializedJson', () => {
  const records = [{ name: 'plain' }, { name: 'Ünïcödé ✓ 𝄞', nested: { list: [1, 2, 3] } }, { name: 'quote " and \\ backslash', empty: '' }];
  const items = records.map((record) => new SerializedJson(JSON.stringify(record)));

  it('joins the records of a list into the bytes of their JSON array, multi-byte characters included', () => {
    const list = SerializedJson.array(items);
    expect(list.bytes.toString('utf8')).toBe(JSON.stringify(records));
    expect(list.bytes.length).toBe(Buffer.byteLength(JSON.stringify(records), 'utf8'));
    expect(list.json).toBe(JSON.stringify(records));
    expect(list.value()).toEqual(records);
    // Across processes it serializes as the value it holds.
    expect(JSON.parse(JSON.stringify({ result: list }))).toEqual({ result: records });
    expect(jsonValue(list)).toEqual(records);
  });

  it('makes the empty array and the array of one record', () => {
    expect(SerializedJson.array([]).bytes.toString('utf8')).toBe('[]');
    expect(SerializedJson.array([]).value()).toEqual([]);
    expect(SerializedJson.array([items[1]]).json).toBe(JSON.stringify([records[1]]));
  });

  it('leaves the records it joined as they were (each still answers its own record)', () => {
    SerializedJson.array(items);
    SerializedJson.array(items);
    expect(items.map((item) => item.value())).toEqual(records);
    expect(items.map((item) => item.bytes.toString('utf8'))).toEqual(records.map((record) => JSON.stringify(record)));
  });

  it('serializes a value into bytes of its own (a kept record holds no slice of a shared buffer)', () => {
    for (const record of records) {
      const serialized = SerializedJson.of(record);
      expect(serialized.bytes.toString('utf8')).toBe(JSON.stringify(record));
      expect(serialized.bytes.buffer.byteLength).toBe(serialized.bytes.length);
      expect(serialized.value()).toEqual(record);
    }
    expect(SerializedJson.array(records.map((record) => SerializedJson.of(record))).value()).toEqual(records);
  });

  it('holds JSON given as bytes', () => {
    const text = JSON.stringify(records[1]);
    const serialized = SerializedJson.fromBytes(Buffer.from(text, 'utf8'));
    expect(serialized.json).toBe(text);
    expect(serialized.value()).toEqual(records[1]);
  });
});
