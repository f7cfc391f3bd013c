// The ingest: new hits checked against those stored, their keys and visitor days indexed, their rows laid out for the ingest transaction (ingest-transaction.ts).
import type { DuckDBAppender, DuckDBConnection } from '@duckdb/node-api';
import type Database from 'better-sqlite3';
import { writingTo } from '@funnel/eventstore';
import { timeMs, type Hit } from '@funnel/reporting-domain';
import { HIT_COLUMN_VALUES, countsAsClick, type WarehouseRow } from '../../hit-row';
import { HIT_WAREHOUSE } from '../duckdb-instances';
import { ChunkWriter, type ColumnValue } from '../hit-chunk';
import { DAY_MS, type HitKeyIndex, type NumberedKey, type VisitorDay, type VisitorDayIndex } from '../hit-key-index';
import type { LoggedClicks } from '../ingest-log';
import type { WarehouseConnections } from './connections';
import { IngestTransaction } from './ingest-transaction';
import { byKeys } from './sql';
import { HITS_COLUMNS, HIT_SEQ } from './tables';

/**
 * The ingest of a store: its hits go into the file's ingest transaction (see SharedWriter), begun
 * on its writer when none is open, and are logged before they are answered.
 */
export class HitIngest {
  /** Fills the data chunks appended to `hits` (by one write at a time). */
  private readonly hitsChunks = new ChunkWriter(HITS_COLUMNS);
  private readonly writer: DuckDBConnection;
  private readonly transaction: IngestTransaction;
  /** An ingest's visitor days and hit keys, in one SQLite transaction (made once: better-sqlite3 builds a transaction's wrappers when it is made). */
  private readonly writeIndexes: Database.Transaction<(days: readonly VisitorDay[], keys: readonly NumberedKey[]) => void>;

  constructor(
    private readonly connections: WarehouseConnections,
    sqlite: Database.Database,
    private readonly index: HitKeyIndex,
    visitors: VisitorDayIndex,
    filename: string,
    /** The rows at which the ingest transaction is committed (INGEST_COMMIT_ROWS but in specs). */
    commitRows: number,
  ) {
    this.writer = connections.writer;
    this.transaction = new IngestTransaction(connections, this.hitsChunks, filename, commitRows);
    this.writeIndexes = sqlite.transaction((days: readonly VisitorDay[], keys: readonly NumberedKey[]) => {
      visitors.write(days);
      index.upsert(keys);
    });
  }

  /**
   * Stores the hits new to the warehouse in one transaction (the caller holds `exclusive`) and
   * answers, by position in `hits`, 1 for those stored: for each account and id, the first
   * occurrence, unless the id is stored already. Action hits count their clicks (see HitStore.insertHits).
   */
  async insertGroup(hits: readonly Hit[]): Promise<Uint8Array> {
    await this.transaction.beforeWrite();
    // The first of repeated ids wins (each account's map looked up once per run of its hits).
    const byAccount = new Map<string, Map<string, number>>();
    let positions: Map<string, number> | undefined;
    for (let position = 0; position < hits.length; position++) {
      const hit = hits[position];
      if (!positions || hit.accountId !== hits[position - 1].accountId) {
        positions = byAccount.get(hit.accountId);
        if (!positions) byAccount.set(hit.accountId, (positions = new Map()));
      }
      if (!positions.has(hit.hitId)) positions.set(hit.hitId, position);
    }
    // The hits to store, their times and the clicks they get from action hits stored with them.
    const fresh: Hit[] = [];
    const freshTimes: number[] = [];
    const batchClicks: number[] = [];
    const inserted = new Uint8Array(hits.length);
    // By position in `hits`: its index in `fresh` (-1: not stored).
    const rowOf = new Int32Array(hits.length).fill(-1);
    const clicks: { accountId: string; counts: Map<string, number>; keys: Map<string, number> }[] = [];
    for (const [accountId, positions] of byAccount) {
      // The account's ids and the previous hits of its action hits (those not among them).
      const ids = [...positions.keys()];
      const previousIds = new Set<string>();
      for (const position of positions.values()) {
        const { action, previousHitId } = hits[position];
        if (action > 0 && previousHitId !== '' && !positions.has(previousHitId)) previousIds.add(previousHitId);
      }
      const keys = this.index.lookup(accountId, previousIds.size === 0 ? ids : [...ids, ...previousIds]);
      const stored = await this.ingestedIds(accountId, keys.size === 0 ? [] : ids.filter((id) => keys.has(id)), keys);
      // Indexes in `fresh` of the action hits with a previous hit.
      const actions: number[] = [];
      for (const [hitId, position] of positions) {
        if (stored.has(hitId)) continue;
        const hit = hits[position];
        rowOf[position] = fresh.length;
        inserted[position] = 1;
        if (hit.action > 0 && hit.previousHitId !== '') actions.push(fresh.length);
        fresh.push(hit);
        freshTimes.push(timeMs(hit.time));
        batchClicks.push(0);
      }
      const counts = new Map<string, number>();
      for (const row of actions) {
        const hit = fresh[row];
        const previous = positions.get(hit.previousHitId);
        const inBatch = previous === undefined ? -1 : rowOf[previous];
        if (inBatch >= 0 && countsAsClick(hit, freshTimes[inBatch], freshTimes[row])) batchClicks[inBatch]++;
        else if (inBatch < 0 && keys.has(hit.previousHitId) && countsAsClick(hit, keys.get(hit.previousHitId)!, freshTimes[row])) {
          counts.set(hit.previousHitId, (counts.get(hit.previousHitId) ?? 0) + 1);
        }
      }
      if (counts.size > 0) clicks.push({ accountId, counts, keys });
    }
    if (fresh.length === 0) return inserted;
    const firstSeq = writingTo(HIT_WAREHOUSE, () => this.index.reserve(fresh.length));
    // Laid out (and checked) before anything is written; in the writer's own buffer, appended and logged before the next write packs.
    const rows = this.hitsChunks.pack(fresh, (column): ColumnValue<Hit> => {
      if (column === 'time_ms') return (_, i) => freshTimes[i];
      if (column === HIT_SEQ.name) return (_, i) => firstSeq + i;
      if (column === 'clicks') return (hit, i) => hit.clicks + batchClicks[i];
      return HIT_COLUMN_VALUES[column];
    });
    const logged: LoggedClicks[] = clicks.map(({ accountId, counts, keys }) => ({
      accountId,
      ids: [...counts.keys()],
      counts: [...counts.values()],
      times: [...counts.keys()].map((id) => keys.get(id)!),
    }));
    await this.transaction.write(rows, fresh, logged, () =>
      this.writeIndexes.immediate(
        visitorDaysOf(fresh, freshTimes),
        fresh.map((hit, i) => ({ accountId: hit.accountId, hitId: hit.hitId, timeMs: freshTimes[i], seq: firstSeq + i })),
      ),
    );
    return inserted;
  }

  /**
   * The ids among `candidates` (which have keys) ingested before: those the ingest transaction
   * holds (its ids, in memory), and among the others those committed (read on the writer).
   */
  private async ingestedIds(accountId: string, candidates: readonly string[], keys: Map<string, number>): Promise<Set<string>> {
    const held = this.transaction.heldIds(accountId);
    const found = new Set<string>();
    const unheld: string[] = [];
    for (const id of candidates) {
      if (held.some((ids) => ids.has(id))) found.add(id);
      else unheld.push(id);
    }
    if (unheld.length === 0) return found;
    // Ids stored before: read on the writer, once a commit under way on it is done.
    await this.transaction.committed();
    for (const id of await this.storedIds(this.writer, accountId, unheld, keys)) found.add(id);
    return found;
  }

  /** Commits the ingested hits (see IngestTransaction.settle). The caller holds the writer. */
  settleIngest(): Promise<void> {
    return this.transaction.settle();
  }

  /** At the close (see IngestTransaction.settleOnClose). */
  settleOnClose(): Promise<void> | undefined {
    return this.transaction.settleOnClose();
  }

  /** Appends warehouse rows to `hits` (inside the caller's transaction), a data chunk at a time. */
  async append(rows: readonly WarehouseRow[]): Promise<void> {
    if (rows.length === 0) return;
    await this.appending((appender) => this.hitsChunks.appendRows(appender, rows));
  }

  /** An appender to `hits` for `write`, flushed into the open transaction when it is done. */
  private async appending(write: (appender: DuckDBAppender) => void): Promise<void> {
    const appender = await this.writer.createAppender('hits');
    try {
      write(appender);
      appender.flushSync();
    } finally {
      appender.closeSync();
    }
  }

  /** The ids among `candidates` (which have keys) stored in the warehouse now. */
  private async storedIds(connection: DuckDBConnection, accountId: string, candidates: readonly string[], keys: Map<string, number>): Promise<Set<string>> {
    if (candidates.length === 0) return new Set();
    const where = byKeys(accountId, new Map(candidates.map((id) => [id, keys.get(id)!])));
    const reader = await connection.runAndReadAll(`SELECT hit_id FROM hits WHERE ${where.sql}`, where.params);
    return new Set(reader.getRows().map((values) => String(values[0])));
  }
}

/** The (account, visitor, UTC day) of new hits, each once. */
function visitorDaysOf(hits: readonly Hit[], timesMs: readonly number[]): VisitorDay[] {
  // By account, each visitor's days seen (no key text made per hit; each account's map looked up once per run of its hits).
  const seen = new Map<string, Map<string, number[]>>();
  let visitors: Map<string, number[]> | undefined;
  const days: VisitorDay[] = [];
  for (let i = 0; i < hits.length; i++) {
    const hit = hits[i];
    if (!visitors || hit.accountId !== hits[i - 1].accountId) {
      visitors = seen.get(hit.accountId);
      if (!visitors) seen.set(hit.accountId, (visitors = new Map()));
    }
    const day = Math.floor(timesMs[i] / DAY_MS);
    const visitorDays = visitors.get(hit.visitorId);
    if (visitorDays?.includes(day)) continue;
    if (visitorDays) visitorDays.push(day);
    else visitors.set(hit.visitorId, [day]);
    days.push({ accountId: hit.accountId, visitorId: hit.visitorId, day });
  }
  return days;
}
