/** Runs the work given to it one at a time, in order. */
export class Serial {
  private tail: Promise<unknown> = Promise.resolve();

  run<T>(work: () => Promise<T>): Promise<T> {
    const next = this.tail.then(work, work);
    this.tail = next.catch(() => undefined);
    return next;
  }

  idle(): Promise<unknown> {
    return this.tail;
  }
}
