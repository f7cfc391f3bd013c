import fc from 'fast-check';
import { ChunkAssembly, MessageTooLargeError, chunkHeaders, chunkPositionOf, splitIntoChunks } from './nats-chunking';

describe('chunking', () => {
  it('reassembles any message split at any limit, its chunks arriving in any order', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 1, maxLength: 5000 }), fc.integer({ min: 1, max: 700 }), fc.infiniteStream(fc.nat()), (data, limit, randoms) => {
        const chunks = splitIntoChunks(data, limit);
        expect(chunks.every((chunk) => chunk.length <= limit)).toBe(true);
        const order = chunks.map((_, i) => i);
        const random = randoms[Symbol.iterator]();
        for (let i = order.length - 1; i > 0; i--) {
          const j = (random.next().value as number) % (i + 1);
          [order[i], order[j]] = [order[j], order[i]];
        }
        const assembly = new ChunkAssembly(chunks.length, data.length);
        let whole: Uint8Array | undefined;
        for (const i of order) whole = assembly.add(i + 1, chunks[i]) ?? whole;
        expect(whole).toEqual(data);
      }),
    );
  });

  it('refuses a message growing past its bound', () => {
    const assembly = new ChunkAssembly(3, 10);
    assembly.add(1, new Uint8Array(6));
    expect(() => assembly.add(2, new Uint8Array(6))).toThrow(MessageTooLargeError);
  });

  it('ignores repeated and out-of-range chunks', () => {
    const assembly = new ChunkAssembly(2, 100);
    expect(assembly.add(1, Uint8Array.of(1))).toBeUndefined();
    expect(assembly.add(1, Uint8Array.of(9))).toBeUndefined();
    expect(assembly.add(3, Uint8Array.of(9))).toBeUndefined();
    expect(assembly.add(2, Uint8Array.of(2))).toEqual(Uint8Array.of(1, 2));
  });

  it('reads a chunk position only when it is well formed', () => {
    expect(chunkPositionOf(chunkHeaders(2, 5, 'u'))).toEqual({ index: 2, count: 5 });
    expect(chunkPositionOf(undefined)).toBeUndefined();
    for (const bad of ['0/3', '4/3', '1/', 'a/b', '1/3/4', '-1/3']) {
      const headers = chunkHeaders(1, 1);
      headers.set('Funnel-Chunk', bad);
      expect(chunkPositionOf(headers)).toBeUndefined();
    }
  });
});
