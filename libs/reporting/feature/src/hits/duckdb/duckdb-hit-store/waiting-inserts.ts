// Insert calls that wait for the writer, written together as one group.
import type { Hit } from '@funnel/reporting-domain';
import type { InsertHitsResult } from '../../hit-store';
import type { WarehouseConnections } from './connections';

/** The most hits one grouped insert writes (a call larger than this is written alone). */
const INSERT_GROUP_HITS = 20_000;

/** An insertHits call waiting for its group's write. */
interface WaitingInsert {
  hits: readonly Hit[];
  resolve(result: InsertHitsResult): void;
  reject(error: unknown): void;
}

/** The insertHits calls of a store, queued on its writer a group at a time and written by `insertGroup` (see HitIngest). */
export class WaitingInserts {
  private readonly waitingInserts: WaitingInsert[] = [];

  constructor(
    private readonly connections: WarehouseConnections,
    /** Stores the hits and answers, by position, 1 for those stored (the caller holds `exclusive`). */
    private readonly insertGroup: (hits: readonly Hit[]) => Promise<Uint8Array>,
  ) {}

  /**
   * Calls waiting for the writer are written together (see `insertGroup`): one transaction and one
   * commit for every call that arrived while the writes before them ran, each answered its own counts.
   */
  insertHits(hits: readonly Hit[]): Promise<InsertHitsResult> {
    if (hits.length === 0) return Promise.resolve({ inserted: 0, ignored: 0 });
    if (this.connections.closed) return Promise.reject(new Error('the hit warehouse is closed'));
    return new Promise((resolve, reject) => {
      this.waitingInserts.push({ hits, resolve, reject });
      if (this.waitingInserts.length === 1) this.scheduleInserts();
    });
  }

  /** Queues a write of the waiting insert calls after the writes before it; when the store is closed meanwhile, they fail. */
  private scheduleInserts(): void {
    this.connections
      .queued(() => this.insertWaiting())
      .catch((error: unknown) => {
        for (const call of this.waitingInserts.splice(0)) call.reject(error);
      });
  }

  /** Writes the waiting insert calls, up to INSERT_GROUP_HITS hits, as one group; the others wait for the next turn. */
  private async insertWaiting(): Promise<void> {
    const group: WaitingInsert[] = [];
    let size = 0;
    while (this.waitingInserts.length > 0 && (group.length === 0 || size + this.waitingInserts[0].hits.length <= INSERT_GROUP_HITS)) {
      const next = this.waitingInserts.shift()!;
      group.push(next);
      size += next.hits.length;
    }
    if (this.waitingInserts.length > 0) this.scheduleInserts();
    try {
      const inserted = await this.insertGroup(group.flatMap((call) => call.hits));
      let offset = 0;
      for (const call of group) {
        let count = 0;
        for (let i = 0; i < call.hits.length; i++) count += inserted[offset + i];
        offset += call.hits.length;
        call.resolve({ inserted: count, ignored: call.hits.length - count });
      }
    } catch (error) {
      for (const call of group) call.reject(error);
    }
  }
}
