import { closeSync, openSync } from 'node:fs';
import { resolve } from 'node:path';
import Database from 'better-sqlite3';

/**
 * The one process that consumes the embedded queues of a SQLite file. Ownership is an exclusive
 * SQLite lock held on a small file beside it (`<file>-consumer.lock`) for as long as a consumer of
 * the file is open in this process: the operating system drops the lock when the process dies
 * (SIGKILL, crash, power loss), so the next process takes it at once, and a second process started
 * on the same file while the first runs is refused instead of sharing the jobs.
 *
 * Holding the lock proves that no other process runs a delivery of the file's queues: a lease found
 * when ownership is taken was left by a process that died, and can be released at once.
 */
export class QueueFileOwner {
  private static readonly owned = new Map<string, QueueFileOwner>();

  /** The queues whose leases were released since this process took the file. */
  private readonly recovered = new Set<string>();
  private holders = 0;

  private constructor(
    private readonly path: string,
    private readonly lock: Database.Database,
  ) {}

  /**
   * Takes (or, within this process, shares) ownership of the queue file `filename`. Throws when
   * another live process owns it.
   */
  static acquire(filename: string): QueueFileOwner {
    const path = `${resolve(filename)}-consumer.lock`;
    let owner = QueueFileOwner.owned.get(path);
    if (!owner) {
      closeSync(openSync(path, 'a', 0o600));
      const lock = new Database(path, { timeout: 0 });
      try {
        lock.exec('BEGIN EXCLUSIVE');
      } catch (error) {
        lock.close();
        if ((error as { code?: string }).code === 'SQLITE_BUSY')
          throw new Error(`the job queues of ${filename} are consumed by another running process (it holds ${path}); one process owns a queue file`);
        throw error;
      }
      owner = new QueueFileOwner(path, lock);
      QueueFileOwner.owned.set(path, owner);
    }
    owner.holders += 1;
    return owner;
  }

  /**
   * True the first time a queue asks since this process took the file: its leases were left by a
   * dead process and may be released. Later consumers of the queue in this process share its
   * deliveries in flight, so they release nothing.
   */
  firstConsumerOf(queue: string): boolean {
    if (this.recovered.has(queue)) return false;
    this.recovered.add(queue);
    return true;
  }

  /** Gives up this holder's share; the last one releases the lock. */
  release(): void {
    this.holders -= 1;
    if (this.holders > 0) return;
    QueueFileOwner.owned.delete(this.path);
    this.lock.exec('ROLLBACK');
    this.lock.close();
  }
}
