import { join } from 'node:path';
import { tempDir, type TempDir } from '@funnel/testing';
import { HitInbox } from './hit-inbox';

describe('HitInbox: batches handed to the process holding the warehouse', () => {
  let dir: TempDir;
  let submitter: HitInbox;
  let holder: HitInbox;
  beforeEach(() => {
    dir = tempDir('hit-inbox');
    // Two connections to one file, as two processes have.
    submitter = new HitInbox(join(dir.path, 'reporting.sqlite'));
    holder = new HitInbox(join(dir.path, 'reporting.sqlite'));
  });
  afterEach(() => {
    submitter.close();
    holder.close();
    dir.remove();
  });

  it('answers each batch with what the holder ingested, in submission order', async () => {
    const seen: unknown[][] = [];
    const stop = holder.watch(async (inputs) => {
      seen.push(inputs);
      return { inserted: inputs.length, ignored: 0, invalid: [], invalidCount: 0 };
    }, 5);
    try {
      const answers = await Promise.all([submitter.submit([1, 2]), submitter.submit([3])]);
      expect(answers.map((answer) => answer.inserted)).toEqual([2, 1]);
      expect(seen).toEqual([[1, 2], [3]]);
    } finally {
      await stop();
    }
  });

  it('answers a batch the holder could not store with its error, once, instead of retrying it forever', async () => {
    let calls = 0;
    const stop = holder.watch(async () => {
      calls++;
      throw new Error('disk full');
    }, 5);
    try {
      await expect(submitter.submit([1])).rejects.toThrow('the process holding the hit warehouse could not store the batch: disk full');
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(calls).toBe(1);
    } finally {
      await stop();
    }
  });

  it('gives up after the timeout when no process takes the batch', async () => {
    await expect(submitter.submit([1], { timeoutMs: 100 })).rejects.toThrow('no process took the hits within 0.1 s');
  });
});
