import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { tempDir, type TempDir } from '@funnel/testing';
import type { IngestHitsResult } from '@funnel/reporting-feature';
import { IMPORT_BATCH, IMPORT_IN_FLIGHT, importHits, type HitSink } from './hits-import';

/** A sink that refuses entries `{ bad: true }`, answers later batches sooner, and notes how many writes were waiting at most. */
function outOfOrderSink(fail?: (call: number) => boolean): HitSink & { mostInFlight: number } {
  let calls = 0;
  let inFlight = 0;
  const sink = {
    via: 'data-dir' as const,
    mostInFlight: 0,
    async write(inputs: unknown[]): Promise<IngestHitsResult> {
      const call = calls++;
      inFlight++;
      sink.mostInFlight = Math.max(sink.mostInFlight, inFlight);
      await sleep(Math.max(1, 40 - call * 10));
      inFlight--;
      if (fail?.(call)) throw new Error('warehouse unavailable');
      const invalid = inputs.flatMap((input, index) => ((input as { bad?: boolean }).bad ? [{ index, errors: [{ field: 'hitId', message: 'bad' }] }] : []));
      return { inserted: inputs.length - invalid.length, ignored: 0, invalid, invalidCount: invalid.length };
    },
    close: async () => undefined,
  };
  return sink;
}

describe('importHits', () => {
  let dir: TempDir;
  beforeEach(() => (dir = tempDir('hits-import')));
  afterEach(() => dir.remove());

  it('keeps several batches in flight and still counts and lists the refused lines in line order', async () => {
    const lines = Array.from({ length: IMPORT_BATCH * 5 + 10 }, (_, i) => (i % 700 === 5 ? '{"bad":true}' : i % 1100 === 7 ? 'not json' : `{"n":${i}}`));
    const file = join(dir.path, 'hits.ndjson');
    writeFileSync(file, lines.join('\n'));
    const sink = outOfOrderSink();
    const result = await importHits(file, sink);
    const refused = lines.flatMap((line, i) => (line.startsWith('{"n"') ? [] : [i + 1]));
    expect(result.invalid.map((entry) => entry.line)).toEqual(refused);
    expect(result.invalidCount).toBe(refused.length);
    expect(result.inserted).toBe(lines.length - refused.length);
    expect(sink.mostInFlight).toBeGreaterThan(1);
    expect(sink.mostInFlight).toBeLessThanOrEqual(IMPORT_IN_FLIGHT);
  });

  it('fails when a batch cannot be written', async () => {
    const file = join(dir.path, 'hits.ndjson');
    writeFileSync(file, Array.from({ length: IMPORT_BATCH * 3 }, (_, i) => `{"n":${i}}`).join('\n'));
    await expect(
      importHits(
        file,
        outOfOrderSink((call) => call === 1),
      ),
    ).rejects.toThrow('warehouse unavailable');
  });
});
