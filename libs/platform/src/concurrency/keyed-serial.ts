/**
 * Runs the tasks given the same key one after another, in the order given (tasks of other keys run
 * beside them): a check-then-act on one key (has this been sent? send it, record it) is not interleaved
 * with another on that key in this process. A task's failure is its caller's only: the next task of the
 * key still runs. Keys are forgotten once their last task is over.
 */
export class KeyedSerial {
  private readonly tails = new Map<string, Promise<unknown>>();

  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const before = this.tails.get(key);
    const result = before ? before.then(task, task) : task();
    const tail = result.then(
      () => undefined,
      () => undefined,
    );
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return result;
  }

  /** Keys with a task running or waiting (for tests and metrics). */
  get size(): number {
    return this.tails.size;
  }
}
