import { KeyedSerial } from './keyed-serial';

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('KeyedSerial', () => {
  it('runs the tasks of one key one after another, in order, and those of other keys beside them', async () => {
    const serial = new KeyedSerial();
    const log: string[] = [];
    const task = (name: string, turns: number) => async () => {
      log.push(`${name} start`);
      for (let i = 0; i < turns; i++) await tick();
      log.push(`${name} end`);
      return name;
    };
    const results = await Promise.all([serial.run('a', task('a1', 3)), serial.run('a', task('a2', 1)), serial.run('b', task('b1', 1))]);
    expect(results).toEqual(['a1', 'a2', 'b1']);
    // b1 ran while a1 was under way; a2 started only after a1 ended.
    expect(log.indexOf('b1 start')).toBeLessThan(log.indexOf('a1 end'));
    expect(log.indexOf('a2 start')).toBeGreaterThan(log.indexOf('a1 end'));
    expect(serial.size).toBe(0);
  });

  it('runs the next task of a key after one failed, and gives the failure to its own caller only', async () => {
    const serial = new KeyedSerial();
    const failed = serial.run('a', async () => {
      await tick();
      throw new Error('boom');
    });
    const next = serial.run('a', async () => 'ran');
    await expect(failed).rejects.toThrow('boom');
    await expect(next).resolves.toBe('ran');
  });
});
