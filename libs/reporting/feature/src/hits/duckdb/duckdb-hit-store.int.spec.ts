import { spawn, spawnSync } from 'node:child_process';
import { statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { StorageUnavailableError, openPrivateSqlite } from '@funnel/eventstore';
import type { Hit, HitFilter } from '@funnel/reporting-domain';
import { tempDir, type TempDir } from '@funnel/testing';
import type Database from 'better-sqlite3';
import { createHitStore } from '../create-hit-store';
import { warehouseRow } from '../hit-row';
import { contractHit, describeHitStoreContract } from '../hit-store.contract';
import { WAREHOUSE_COLUMNS } from '../warehouse-schema';
import { DuckDbHitStore } from './duckdb-hit-store';
import { WarehouseInUseError, leaseInstance, storageErrorOfDuckDb } from './duckdb-instances';
import { ChunkWriter } from './hit-chunk';
import { IngestLog } from './ingest-log';
import { IMPORT_CHUNK } from './sqlite-import';
import { openTempHitStore } from './temp-hit-store';

describeHitStoreContract('DuckDB', async () => {
  const store = await openTempHitStore();
  return { store, cleanup: () => store.close() };
});

const ACCOUNT = 'ACCOUNT00001';

/** The hits table of the previous (SQLite) warehouse, as that version created it. */
function createPreviousHitsTable(db: Database.Database): void {
  db.exec(`CREATE TABLE hits (account_id TEXT NOT NULL, hit_id TEXT NOT NULL, visitor_id TEXT NOT NULL, id_funnel TEXT NOT NULL,
    id_funnel_group TEXT NOT NULL, id_traffic_source TEXT NOT NULL, id_node TEXT NOT NULL, id_page TEXT NOT NULL, country_code TEXT NOT NULL,
    ip TEXT NOT NULL, tracking_fields TEXT NOT NULL, time_ms INTEGER NOT NULL, is_entrance INTEGER NOT NULL, cost TEXT NOT NULL,
    conversions TEXT NOT NULL, custom_events TEXT NOT NULL, postback_called INTEGER NOT NULL, PRIMARY KEY (account_id, hit_id)) WITHOUT ROWID`);
}

/** Hits as the previous warehouse wrote them (the first version's fields only). */
function writePreviousHits(db: Database.Database, hits: readonly Hit[]): void {
  const insert = db.prepare('INSERT INTO hits VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)');
  db.transaction(() => {
    for (const hit of hits)
      insert.run(
        hit.accountId,
        hit.hitId,
        hit.visitorId,
        hit.idFunnel,
        hit.idFunnelGroup,
        hit.idTrafficSource,
        hit.idNode,
        hit.idPage,
        hit.countryCode,
        hit.ip,
        JSON.stringify(hit.trackingFields),
        Date.parse(hit.time),
        hit.isEntrance ? 1 : 0,
        hit.cost,
        JSON.stringify(hit.conversions),
        JSON.stringify(hit.customEvents),
        hit.postbackCalled ? 1 : 0,
      );
  })();
}

describe('DuckDbHitStore', () => {
  let dir: TempDir;
  beforeEach(() => (dir = tempDir('duckdb-hit-store')));
  afterEach(() => dir.remove());

  it('is what createHitStore picks without CLICKHOUSE_URL: a private reporting.duckdb under the data directory that survives a reopen', async () => {
    const dataDir = join(dir.path, 'data');
    const store = await createHitStore({ dataDir });
    expect(store).toBeInstanceOf(DuckDbHitStore);
    await store.insertHits([contractHit(1)]);
    await store.commitRows(ACCOUNT, 'JOB000000001', [contractHit(1, { cost: '4' })], [{ rowIndex: 0, outcome: 'applied', hits: 1, postbacks: [] }]);
    await store.close();
    expect(statSync(join(dataDir, 'reporting.duckdb')).mode & 0o777).toBe(0o600);
    expect(statSync(dataDir).mode & 0o777).toBe(0o700);

    const reopened = await createHitStore({ dataDir });
    expect(await reopened.getHits(ACCOUNT, [contractHit(1).hitId])).toEqual([contractHit(1, { cost: '4' })]);
    expect(await reopened.appliedRows(ACCOUNT, 'JOB000000001')).toHaveLength(1);
    await reopened.close();
  });

  it('knows the UTC days each visitor has hits on (written with the hits), and builds them once for a warehouse written before', async () => {
    const dataDir = join(dir.path, 'data');
    const day = 86_400_000;
    const at = (ms: number) => new Date(ms).toISOString();
    const base = Date.parse('2026-03-10T00:00:00Z');
    const hits = [
      contractHit(1, { visitorId: 'VISITOR0000A', time: at(base + 1000) }),
      contractHit(2, { visitorId: 'VISITOR0000A', time: at(base + day - 1) }),
      contractHit(3, { visitorId: 'VISITOR0000A', time: at(base + 3 * day + 5) }),
      contractHit(4, { visitorId: 'VISITOR0000B', time: at(base + day) }),
    ];
    const store = await DuckDbHitStore.open({ dataDir });
    await store.insertHits(hits);
    const first = base / day;
    expect(await store.visitorDays(ACCOUNT, 'VISITOR0000A', base, base + 10 * day)).toEqual([first, first + 3]);
    expect(await store.visitorDays(ACCOUNT, 'VISITOR0000A', base + day, base + 3 * day)).toEqual([]);
    expect(await store.visitorDays('ACCOUNT00002', 'VISITOR0000A', base, base + 10 * day)).toEqual([]);
    await store.close();

    // A warehouse from before the index: its days are read from the hits at the next open, once.
    const sqlite = openPrivateSqlite(join(dataDir, 'reporting.sqlite'));
    sqlite.exec('DROP TABLE visitor_days; DROP TABLE warehouse_indexes');
    sqlite.close();
    const reopened = await DuckDbHitStore.open({ dataDir });
    expect(await reopened.visitorDays(ACCOUNT, 'VISITOR0000A', base, base + 10 * day)).toEqual([first, first + 3]);
    expect(await reopened.visitorDays(ACCOUNT, 'VISITOR0000B', base, base + 10 * day)).toEqual([first + 1]);
    await reopened.close();
  });

  it('keeps the conversion, custom event and tracking columns the reports read in step with the hit, on ingest and on updates', async () => {
    const store = await DuckDbHitStore.open({ dataDir: dir.path });
    try {
      const hit = contractHit(1, {
        trackingFields: { c3: 'x' },
        conversions: [{ transactionId: 'T1', payout: '2.5', time: '2026-01-10T12:05:00.000Z' }],
        customEvents: { '2': 1 },
        visitorTags: ['TAG000000001'],
      });
      await store.insertHits([hit]);
      const columns = async () => {
        if (store.warehouse.engine !== 'duckdb') throw new Error('not DuckDB');
        const connection = await store.warehouse.connect();
        try {
          const reader = await connection.runAndReadAll(
            `SELECT conversion_count, revenue::VARCHAR AS revenue, ce_2, ce_5, tf_c3, visitor_tags
             FROM ${store.warehouse.hitsTable} WHERE account_id = $1`,
            [ACCOUNT],
          );
          return reader.getRowObjectsJS()[0];
        } finally {
          connection.closeSync();
        }
      };
      expect(await columns()).toEqual({
        conversion_count: 1,
        revenue: '2.500000',
        ce_2: 1,
        ce_5: 0,
        tf_c3: 'x',
        visitor_tags: ['TAG000000001'],
      });
      const updated = {
        ...hit,
        conversions: [...hit.conversions, { transactionId: 'T2', payout: '0.25', time: '2026-01-10T13:00:00.000Z' }],
        customEvents: { '2': 1, '5': 4 },
      };
      await store.commitRows(ACCOUNT, 'JOB000000001', [updated], [{ rowIndex: 0, outcome: 'applied', hits: 1, postbacks: [] }]);
      expect(await columns()).toMatchObject({
        conversion_count: 2,
        revenue: '2.750000',
        ce_2: 1,
        ce_5: 4,
      });
    } finally {
      await store.close();
    }
  });

  it('opens a warehouse written by the version that kept conversion times and payouts as list columns, and goes on appending and updating', async () => {
    const first = await DuckDbHitStore.open({ dataDir: dir.path });
    await first.insertHits([contractHit(1)]);
    if (first.warehouse.engine !== 'duckdb') throw new Error('not DuckDB');
    const connection = await first.warehouse.connect();
    await connection.run('ALTER TABLE hits ADD COLUMN conversion_times BIGINT[] DEFAULT []');
    await connection.run('ALTER TABLE hits ADD COLUMN conversion_payouts DECIMAL(18,6)[] DEFAULT []');
    connection.closeSync();
    await first.close();

    const store = await DuckDbHitStore.open({ dataDir: dir.path });
    try {
      expect(await store.insertHits([contractHit(1), contractHit(2)])).toEqual({ inserted: 1, ignored: 1 });
      const converted = contractHit(2, { conversions: [{ transactionId: 'T1', payout: '3', time: '2026-01-10T12:05:00.000Z' }] });
      await store.commitRows(ACCOUNT, 'JOB000000001', [converted], [{ rowIndex: 0, outcome: 'applied', hits: 1, postbacks: [] }]);
      expect(await store.getHits(ACCOUNT, [contractHit(1).hitId, contractHit(2).hitId])).toEqual(expect.arrayContaining([contractHit(1), converted]));
    } finally {
      await store.close();
    }
  });

  it('opens a warehouse of the version before sequence numbers, with hits left in its ingest log, and reads, updates and appends by number', async () => {
    const first = await DuckDbHitStore.open({ dataDir: dir.path });
    await first.insertHits([contractHit(1), contractHit(2)]);
    if (first.warehouse.engine !== 'duckdb') throw new Error('not DuckDB');
    const connection = await first.warehouse.connect();
    await connection.run('ALTER TABLE hits DROP COLUMN hit_seq');
    const committed = (await connection.runAndReadAll("SELECT value FROM warehouse_meta WHERE key = 'ingest_log_committed'")).getRows()[0][0];
    connection.closeSync();
    await first.close();
    // That version's hit-key index, and a hit it answered and logged, not committed in DuckDB (a kill -9).
    const sqlite = openPrivateSqlite(join(dir.path, 'reporting.sqlite'));
    sqlite.exec('ALTER TABLE hit_keys DROP COLUMN hit_seq; DROP TABLE hit_seq_next');
    const logged = contractHit(3);
    sqlite.prepare('INSERT INTO hit_keys (account_id, hit_id, time_ms) VALUES (?, ?, ?)').run(ACCOUNT, logged.hitId, Date.parse(logged.time));
    sqlite.close();
    const log = IngestLog.open(join(dir.path, 'reporting.duckdb.ingest'));
    log.skipTo(Number(committed));
    const row = warehouseRow(logged);
    log.append(
      new ChunkWriter(WAREHOUSE_COLUMNS).pack([row], (column) => (r) => r[column]),
      [],
    );
    log.close();

    const store = await DuckDbHitStore.open({ dataDir: dir.path });
    try {
      const ids = [1, 2, 3].map((n) => contractHit(n).hitId);
      expect((await store.getHitStates(ACCOUNT, ids)).map((state) => state.hitId).sort()).toEqual([...ids].sort());
      const converted = [1, 3].map((n) => contractHit(n, { conversions: [{ transactionId: `T${n}`, payout: '3', time: '2026-01-10T12:05:00.000Z' }] }));
      await store.commitRows(ACCOUNT, 'JOB000000001', converted, [{ rowIndex: 0, outcome: 'applied', hits: 2, postbacks: [] }]);
      expect(await store.insertHits([contractHit(3), contractHit(4)])).toEqual({ inserted: 1, ignored: 1 });
      await store.commitRows(ACCOUNT, 'JOB000000002', [contractHit(4, { cost: '2' })], [{ rowIndex: 0, outcome: 'applied', hits: 1, postbacks: [] }]);
      expect(await store.getHits(ACCOUNT, [...ids, contractHit(4).hitId])).toEqual(
        expect.arrayContaining([...converted, contractHit(2), contractHit(4, { cost: '2' })]),
      );
    } finally {
      await store.close();
    }
  });

  it('updates a hit removed and ingested again since its state was read: the hit stored now', async () => {
    const store = await DuckDbHitStore.open({ dataDir: dir.path });
    try {
      await store.insertHits([contractHit(1)]);
      const [state] = await store.getHitStates(ACCOUNT, [contractHit(1).hitId]);
      await store.deleteHits(ACCOUNT, 'JOB000000001', 0, { timeStart: '2026-01-01T00:00:00.000Z', timeEnd: '2027-01-01T00:00:00.000Z' });
      await store.insertHits([contractHit(1)]);
      await store.commitRows(ACCOUNT, 'JOB000000002', [{ ...state, cost: '5' }], [{ rowIndex: 0, outcome: 'applied', hits: 1, postbacks: [] }]);
      expect(await store.getHits(ACCOUNT, [contractHit(1).hitId])).toEqual([contractHit(1, { cost: '5' })]);
    } finally {
      await store.close();
    }
  });

  it('records the rows of a commit storing no field, and leaves its hits as they are', async () => {
    const store = await DuckDbHitStore.open({ dataDir: dir.path });
    try {
      await store.insertHits([contractHit(1)]);
      const row = { rowIndex: 0, outcome: 'noop' as const, hits: 0, postbacks: [] };
      await store.commitRows(ACCOUNT, 'JOB000000001', [contractHit(1, { cost: '5' })], [row], []);
      expect(await store.appliedRows(ACCOUNT, 'JOB000000001')).toEqual([row]);
      expect(await store.getHits(ACCOUNT, [contractHit(1).hitId])).toEqual([contractHit(1)]);
    } finally {
      await store.close();
    }
  });

  it('writes concurrent inserts together and answers each call its own counts, deduplicating and counting clicks across them', async () => {
    const store = await openTempHitStore();
    try {
      const at = (minutes: number) => new Date(Date.UTC(2026, 0, 10) + minutes * 60_000).toISOString();
      await store.insertHits([contractHit(1, { time: at(0) })]);
      const lander = contractHit(2, { time: at(1) });
      const results = await Promise.all([
        store.insertHits([contractHit(1, { time: at(0) }), lander, contractHit(3, { time: at(2) })]),
        store.insertHits([contractHit(3, { time: at(2) }), contractHit(4, { time: at(3), action: 1, previousHitId: lander.hitId, isEntrance: false })]),
        store.insertHits([contractHit(5, { time: at(4), action: 1, previousHitId: contractHit(1).hitId, isEntrance: false })]),
        store.insertHits([contractHit(2, { time: at(1) }), contractHit(6, { accountId: 'ACCOUNT00002' })]),
      ]);
      expect(results).toEqual([
        { inserted: 2, ignored: 1 },
        { inserted: 1, ignored: 1 },
        { inserted: 1, ignored: 0 },
        { inserted: 1, ignored: 1 },
      ]);
      const stored = await store.getHits(
        ACCOUNT,
        [1, 2, 3, 4, 5].map((n) => contractHit(n).hitId),
      );
      expect(stored.map((hit) => [hit.hitId, hit.clicks]).sort()).toEqual([
        [contractHit(1).hitId, 1],
        [contractHit(2).hitId, 1],
        [contractHit(3).hitId, 0],
        [contractHit(4).hitId, 0],
        [contractHit(5).hitId, 0],
      ]);
      expect(await store.getHits('ACCOUNT00002', [contractHit(6).hitId])).toHaveLength(1);
    } finally {
      await store.close();
    }
  });

  it('ignores hits sent again while their ingest is open (past an appender flush) and once it is committed, and takes their ids in another account', async () => {
    const store = await openTempHitStore();
    try {
      const hits = Array.from({ length: 20_000 }, (_, n) => contractHit(n + 1));
      expect(await store.insertHits(hits.slice(0, 10_000))).toEqual({ inserted: 10_000, ignored: 0 });
      expect(await store.insertHits(hits.slice(10_000))).toEqual({ inserted: 10_000, ignored: 0 });
      const sentAgain = [hits[0], hits[9_999], hits[10_000], hits[19_999], contractHit(20_001)];
      expect(await store.insertHits(sentAgain)).toEqual({ inserted: 1, ignored: 4 });
      // A read commits the ingest transaction.
      expect(await store.getHits(ACCOUNT, [hits[0].hitId])).toEqual([hits[0]]);
      expect(await store.insertHits(sentAgain)).toEqual({ inserted: 0, ignored: 5 });
      expect(await store.insertHits(sentAgain.map((hit) => ({ ...hit, accountId: 'ACCOUNT00002' })))).toEqual({ inserted: 5, ignored: 0 });
      expect(await store.insertHits([{ ...hits[1], accountId: 'ACCOUNT00002' }, hits[1]])).toEqual({ inserted: 1, ignored: 1 });
    } finally {
      await store.close();
    }
  });

  it('fails every call of a grouped insert whose write fails, and stores none of their hits', async () => {
    const store = await openTempHitStore();
    try {
      await store.insertHits([contractHit(1)]);
      // A hit the warehouse cannot take (a cost beyond DECIMAL(18,6)) fails the group's one transaction.
      const calls = [store.insertHits([contractHit(2)]), store.insertHits([contractHit(3, { cost: '1000000000000000' })])];
      const outcomes = await Promise.allSettled(calls);
      expect(outcomes.map((outcome) => outcome.status)).toEqual(['rejected', 'rejected']);
      expect(
        await store.getHits(
          ACCOUNT,
          [2, 3].map((n) => contractHit(n).hitId),
        ),
      ).toEqual([]);
      expect(await store.insertHits([contractHit(2)])).toEqual({ inserted: 1, ignored: 0 });
    } finally {
      await store.close();
    }
  });

  /** After the close the ingest log's files are empty, and opened again the warehouse holds `count` hits in `window`: nothing replayed twice. */
  async function expectClosedOnce(window: HitFilter, count: number): Promise<void> {
    for (const file of IngestLog.files(join(dir.path, 'reporting.duckdb.ingest'))) expect(statSync(file).size).toBe(0);
    const again = await DuckDbHitStore.open({ dataDir: dir.path });
    try {
      expect(await again.countHits(ACCOUNT, window)).toBe(count);
    } finally {
      await again.close();
    }
  }

  /**
   * The answers of a child process (fixtures/ingest-then-crash.fixture.ts) that ingests `batches` into
   * the warehouse in `dir`, one call each, and is killed (SIGKILL) once they are answered.
   */
  function ingestThenCrash(batches: Hit[][], options?: { commitRows: number; checkpointSleepMs: number }): unknown {
    const input = join(dir.path, 'batches.json');
    writeFileSync(input, JSON.stringify(batches));
    const root = join(__dirname, '..', '..', '..', '..', '..', '..');
    const child = spawnSync(
      process.execPath,
      [
        '-r',
        join(root, 'tools', 'register.js'),
        join(__dirname, 'fixtures', 'ingest-then-crash.fixture.ts'),
        dir.path,
        input,
        ...(options ? [String(options.commitRows), String(options.checkpointSleepMs)] : []),
      ],
      { cwd: root, encoding: 'utf8' },
    );
    expect(child.signal).toBe('SIGKILL');
    return JSON.parse(child.stdout.trim());
  }

  it('keeps every hit it answered through a kill -9 before DuckDB committed them (the ingest log), once', async () => {
    const at = (minutes: number) => new Date(Date.UTC(2026, 0, 10) + minutes * 60_000).toISOString();
    const lander = contractHit(1, { time: at(0) });
    const offer = contractHit(2, { time: at(1), action: 1, previousHitId: lander.hitId, isEntrance: false });
    const more = Array.from({ length: 50 }, (_, i) => contractHit(10 + i, { time: at(2 + i) }));
    // The offer in a later call than its lander; the last call sends hits already answered.
    const batches = [[lander], [offer, ...more.slice(0, 30)], [...more.slice(20), lander]];
    expect(ingestThenCrash(batches)).toEqual([
      { inserted: 1, ignored: 0 },
      { inserted: 31, ignored: 0 },
      { inserted: 20, ignored: 11 },
    ]);
    const store = await DuckDbHitStore.open({ dataDir: dir.path });
    try {
      const ids = [lander, offer, ...more].map((hit) => hit.hitId);
      const stored = await store.getHits(ACCOUNT, ids);
      expect(stored.map((hit) => hit.hitId).sort()).toEqual([...ids].sort());
      expect(stored.find((hit) => hit.hitId === lander.hitId)).toEqual({ ...lander, clicks: 1 });
      expect(await store.countHits(ACCOUNT, { timeStart: at(0), timeEnd: at(100) })).toBe(ids.length);
      expect(await store.insertHits([lander, offer, more[0]])).toEqual({ inserted: 0, ignored: 3 });
    } finally {
      await store.close();
    }
    await expectClosedOnce({ timeStart: at(0), timeEnd: at(100) }, 52);
  }, 60_000);

  /** Hits of a full ingest transaction (2,048 rows, the specs' `ingestCommitRows`), the offer of a click on one of them, and another hit. */
  function fullTransaction() {
    const at = (seconds: number) => new Date(Date.UTC(2026, 0, 10) + seconds * 1000).toISOString();
    const hits = Array.from({ length: 2048 }, (_, n) => contractHit(n + 1, { time: at(n) }));
    const offer = contractHit(5000, { time: at(3000), action: 1, previousHitId: hits[10].hitId, isEntrance: false });
    return { at, hits, offer, other: contractHit(5001, { time: at(3001) }) };
  }

  it('answers ingests while a full ingest transaction commits, writes what they logged after it, and stores each hit once', async () => {
    const { at, hits, offer, other } = fullTransaction();
    const store = await DuckDbHitStore.open({ dataDir: dir.path, ingestCommitRows: 2048 });
    const lease = await leaseInstance(join(dir.path, 'reporting.duckdb'));
    const raw = await lease.instance.connect();
    try {
      // Each commit checkpoints and sleeps 2 s first: the full transaction's commit is under way that long.
      await raw.run("SET checkpoint_threshold = '1KB'");
      await raw.run('SET debug_checkpoint_sleep_ms = 2000');
      expect(await store.insertHits(hits)).toEqual({ inserted: 2048, ignored: 0 });
      // Meanwhile: a new hit with a click on a committing one, committing ones sent again, then the new one again.
      expect(await store.insertHits([offer, hits[0], hits[2047]])).toEqual({ inserted: 1, ignored: 2 });
      expect(await store.insertHits([offer, other])).toEqual({ inserted: 1, ignored: 1 });
      // Answered before the commit ended.
      expect((await raw.runAndReadAll('SELECT count(*) FROM hits')).getRows()).toEqual([[0n]]);
      // Five times what a write appends of them after the commit (CATCH_UP_ROWS): 20,000 hits in 100 calls.
      const later = Array.from({ length: 20_000 }, (_, n) => contractHit(10_000 + n, { time: at(5000 + n) }));
      for (let start = 0; start < later.length; start += 200) {
        expect(await store.insertHits(later.slice(start, start + 200))).toEqual({ inserted: 200, ignored: 0 });
      }
      // Sent as soon as the commit shows, while (or after) the hits logged meanwhile are appended, a slice
      // at a time and the transaction committed again at 2,048 rows: hits sent again are found, a new one is taken.
      while ((await raw.runAndReadAll('SELECT count(*) FROM hits')).getRows()[0][0] === 0n) await new Promise((resolve) => setTimeout(resolve, 5));
      expect(await store.insertHits([later[19_999], hits[3], contractHit(5002, { time: at(3002) })])).toEqual({ inserted: 1, ignored: 2 });
      // A read waits for the commit and for the hits logged meanwhile.
      expect(await store.countHits(ACCOUNT, { timeStart: at(0), timeEnd: at(30_000) })).toBe(22_051);
      expect(await store.getHits(ACCOUNT, [hits[10].hitId, offer.hitId])).toEqual(expect.arrayContaining([{ ...hits[10], clicks: 1 }, offer]));
      expect(await store.insertHits([offer, other, hits[5], later[0]])).toEqual({ inserted: 0, ignored: 4 });
    } finally {
      raw.closeSync();
      lease.release();
      await store.close();
    }
    await expectClosedOnce({ timeStart: at(0), timeEnd: at(30_000) }, 22_051);
  }, 30_000);

  it('keeps every hit it answered through a kill -9 while a full ingest transaction commits, once', async () => {
    const { at, hits, offer, other } = fullTransaction();
    // The child's commits sleep 5 s before their checkpoint: killed while the first one is under way.
    expect(ingestThenCrash([hits, [offer, hits[0]], [other, offer]], { commitRows: 2048, checkpointSleepMs: 5000 })).toEqual([
      { inserted: 2048, ignored: 0 },
      { inserted: 1, ignored: 1 },
      { inserted: 1, ignored: 1 },
    ]);
    const store = await DuckDbHitStore.open({ dataDir: dir.path });
    try {
      expect(await store.countHits(ACCOUNT, { timeStart: at(0), timeEnd: at(4000) })).toBe(2050);
      expect(await store.getHits(ACCOUNT, [hits[10].hitId, offer.hitId, other.hitId])).toEqual(
        expect.arrayContaining([{ ...hits[10], clicks: 1 }, offer, other]),
      );
      expect(await store.insertHits([offer, other, hits[0]])).toEqual({ inserted: 0, ignored: 3 });
    } finally {
      await store.close();
    }
  }, 60_000);

  it('shares one database between two opens of the same file in one process', async () => {
    const first = await DuckDbHitStore.open({ dataDir: dir.path });
    const second = await DuckDbHitStore.open({ dataDir: dir.path });
    await first.insertHits([contractHit(1)]);
    expect(await second.getHits(ACCOUNT, [contractHit(1).hitId])).toEqual([contractHit(1)]);
    await first.close();
    expect(await second.insertHits([contractHit(1), contractHit(2)])).toEqual({ inserted: 1, ignored: 1 });
    await second.close();
  });

  it('refuses to open a file another process has open, with one line saying what to do', async () => {
    const filename = join(dir.path, 'reporting.duckdb');
    const holder = spawn(
      process.execPath,
      [
        '-e',
        `require('@duckdb/node-api').DuckDBInstance.create(${JSON.stringify(filename)}).then((db) => { globalThis.db = db; setInterval(() => {}, 1000); console.log('open'); })`,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    try {
      await new Promise<void>((resolve, reject) => {
        holder.stdout.on('data', (data: Buffer) => data.toString().includes('open') && resolve());
        holder.once('exit', () => reject(new Error('the holding process ended')));
      });
      const failure = await DuckDbHitStore.open({ dataDir: dir.path }).catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(WarehouseInUseError);
      expect((failure as Error).message).toBe(
        `the hit warehouse ${filename} is open in another process (pid ${holder.pid}): ` +
          'stop the standalone (or reporting service) using this DATA_DIR first, or send the hits to it over NATS (NATS_URL)',
      );
    } finally {
      holder.kill('SIGKILL');
    }
  }, 30_000);

  it('imports the hits and applied job rows of the previous SQLite warehouse once, resuming an import cut short', async () => {
    const sqlitePath = join(dir.path, 'reporting.sqlite');
    const db = openPrivateSqlite(sqlitePath);
    createPreviousHitsTable(db);
    db.exec(`CREATE INDEX hits_by_time ON hits (account_id, time_ms);
      CREATE TABLE applied_job_batches (account_id TEXT NOT NULL, job_id TEXT NOT NULL, first_row INTEGER NOT NULL, rows TEXT NOT NULL,
        PRIMARY KEY (account_id, job_id, first_row)) WITHOUT ROWID;
      CREATE TABLE queue_jobs (id INTEGER PRIMARY KEY, payload TEXT);
      INSERT INTO queue_jobs (payload) VALUES ('kept');`);
    const count = IMPORT_CHUNK + 5;
    const hits = Array.from({ length: count }, (_, n) =>
      contractHit(n, {
        time: new Date(Date.UTC(2026, 0, 10) + n * 1000).toISOString(),
        trackingFields: n === 1 ? { external: 'clk' } : {},
        conversions: n === 1 ? [{ transactionId: 'T', payout: '3', time: '2026-01-10T12:00:00.000Z' }] : [],
        customEvents: n === 1 ? { '4': 2 } : {},
        cost: n === 1 ? '0.5' : '0',
      }),
    );
    writePreviousHits(db, hits);
    const applied = [{ rowIndex: 0, outcome: 'applied', hits: 1, postbacks: [] }];
    db.prepare('INSERT INTO applied_job_batches VALUES (?, ?, ?, ?)').run(ACCOUNT, 'JOB000000001', 0, JSON.stringify(applied));
    db.close();

    // An import cut short after its first chunk: the state it committed says where it stopped.
    const cut = await DuckDbHitStore.open({ dataDir: dir.path, indexFileName: 'unused.sqlite' });
    await cut.close();
    await (async () => {
      const { DuckDBInstance } = await import('@duckdb/node-api');
      const instance = await DuckDBInstance.create(join(dir.path, 'reporting.duckdb'));
      const connection = await instance.connect();
      const first = hits.slice(0, IMPORT_CHUNK);
      await connection.run(
        `INSERT INTO hits (account_id, hit_id, visitor_id, id_funnel, id_funnel_group, id_traffic_source, id_node, id_page, country_code, ip, time_ms, is_entrance, cost, postback_called)
         SELECT $1, unnest($2::VARCHAR[]), 'V', 'F', 'G', 'T', 'N', 'P', 'US', '', unnest($3::BIGINT[]), true, 0, false`,
        [
          ACCOUNT,
          (await import('@duckdb/node-api')).listValue(first.map((hit) => hit.hitId)),
          (await import('@duckdb/node-api')).listValue(first.map((hit) => BigInt(Date.parse(hit.time)))),
        ],
      );
      const last = first[first.length - 1];
      await connection.run("INSERT INTO warehouse_meta VALUES ('sqlite_import', $1)", [
        JSON.stringify({ batches: true, after: [ACCOUNT, Date.parse(last.time), last.hitId], done: false }),
      ]);
      await connection.run("INSERT INTO job_batches VALUES ($1, 'JOB000000001', 0, $2)", [ACCOUNT, JSON.stringify(applied)]);
      connection.closeSync();
      instance.closeSync();
    })();

    const store = await DuckDbHitStore.open({ dataDir: dir.path });
    try {
      expect(await store.countHits(ACCOUNT, { timeStart: '2026-01-01T00:00:00Z', timeEnd: '2026-02-01T00:00:00Z' })).toBe(count);
      const rest = hits.slice(IMPORT_CHUNK);
      expect(
        await store.getHits(
          ACCOUNT,
          rest.map((hit) => hit.hitId),
        ),
      ).toEqual(expect.arrayContaining(rest));
      expect(await store.appliedRows(ACCOUNT, 'JOB000000001')).toEqual(applied);
    } finally {
      await store.close();
    }
    const after = openPrivateSqlite(sqlitePath);
    expect(after.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").pluck().all()).toEqual([
      'hit_keys',
      'hit_seq_next',
      'queue_jobs',
      'visitor_days',
      'warehouse_indexes',
    ]);
    after.close();

    // A second open imports nothing more.
    const again = await DuckDbHitStore.open({ dataDir: dir.path });
    expect(await again.countHits(ACCOUNT, { timeStart: '2026-01-01T00:00:00Z', timeEnd: '2026-02-01T00:00:00Z' })).toBe(count);
    await again.close();
  });

  it('imports a previous SQLite warehouse in full and reads its hits back as they were', async () => {
    const sqlitePath = join(dir.path, 'reporting.sqlite');
    const db = openPrivateSqlite(sqlitePath);
    createPreviousHitsTable(db);
    const hit = contractHit(1, {
      trackingFields: { external: 'clk', c2: 'v' },
      conversions: [{ transactionId: 'T', payout: '3', time: '2026-01-10T12:00:00.000Z' }],
      customEvents: { '4': 2 },
      cost: '0.5',
      postbackCalled: true,
    });
    writePreviousHits(db, [hit]);
    db.close();
    const store = await DuckDbHitStore.open({ dataDir: dir.path });
    try {
      expect(await store.getHits(ACCOUNT, [hit.hitId])).toEqual([hit]);
      expect(await store.insertHits([hit])).toEqual({ inserted: 0, ignored: 1 });
    } finally {
      await store.close();
    }
  });

  it('answers a storage failure of DuckDB (full disk, read-only volume, I/O error) as a StorageUnavailableError', () => {
    const full = storageErrorOfDuckDb(new Error('IO Error: Could not write file "/data/reporting.duckdb.wal": No space left on device'));
    expect(full).toBeInstanceOf(StorageUnavailableError);
    expect(full).toMatchObject({ status: 507, code: 'STORE.FULL', store: 'hit warehouse' });
    expect(storageErrorOfDuckDb(new Error('IO Error: Cannot open file "/data/reporting.duckdb": Read-only file system'))).toMatchObject({
      status: 503,
      problem: 'read-only',
    });
    expect(storageErrorOfDuckDb(new Error('Binder Error: column "x" not found'))).toBeUndefined();
  });
});
