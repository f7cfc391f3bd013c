// Bounded concurrency per destination origin: at most `concurrency` calls in flight to one origin and
// `queue` more waiting; a call beyond that, or one whose slot does not come before its deadline, is
// refused at once, so a slow server holds at most its own slots and never the edge.

export interface OriginLimits {
  /** Calls in flight to one origin at most. */
  concurrency: number;
  /** Calls waiting for a slot of one origin at most. */
  queue: number;
}

interface Waiter {
  grant: () => void;
  timer: NodeJS.Timeout;
}

interface OriginState {
  active: number;
  waiting: Waiter[];
}

/** A slot: release it once the call is done. */
export type Release = () => void;

export class OriginLimiter {
  private readonly origins = new Map<string, OriginState>();

  constructor(private readonly limits: OriginLimits) {}

  /** A slot of `origin`, or null when its queue is full or no slot came within `waitMs`. */
  acquire(origin: string, waitMs: number): Promise<Release | null> {
    let state = this.origins.get(origin);
    if (state === undefined) this.origins.set(origin, (state = { active: 0, waiting: [] }));
    const held = state;
    if (held.active < this.limits.concurrency) {
      held.active += 1;
      return Promise.resolve(this.releaser(origin, held));
    }
    if (held.waiting.length >= this.limits.queue || waitMs <= 0) return Promise.resolve(null);
    return new Promise((resolve) => {
      const waiter: Waiter = {
        grant: () => {
          clearTimeout(waiter.timer);
          resolve(this.releaser(origin, held));
        },
        timer: setTimeout(() => {
          const at = held.waiting.indexOf(waiter);
          if (at >= 0) held.waiting.splice(at, 1);
          this.forget(origin, held);
          resolve(null);
        }, waitMs),
      };
      held.waiting.push(waiter);
    });
  }

  /** Calls in flight and waiting for `origin` (metrics, tests). */
  load(origin: string): { active: number; waiting: number } {
    const state = this.origins.get(origin);
    return { active: state?.active ?? 0, waiting: state?.waiting.length ?? 0 };
  }

  private releaser(origin: string, state: OriginState): Release {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = state.waiting.shift();
      // The slot passes to the next waiter as it is (active stays the same).
      if (next !== undefined) return next.grant();
      state.active -= 1;
      this.forget(origin, state);
    };
  }

  private forget(origin: string, state: OriginState): void {
    if (state.active === 0 && state.waiting.length === 0 && this.origins.get(origin) === state) this.origins.delete(origin);
  }
}
