/**
 * The edge's floor (issue 22): raw Fastify answering every GET of /fts/<token> with the fixed 302 of
 * fastify-redirect.ts, once the durable writes an entrance redirect of the bench funnel makes at
 * least are done, by the standalone edge's own mechanisms:
 * - its hits (4 warehouse rows, or 3 for the rotator's 0.25 straight to the landers; built at start)
 *   group-committed (GroupCommit with the edge's defaults, EDGE_HITS_COMMIT; one write at a time) into
 *   DuckDB's open ingest transaction and logged, as DuckDbHitStore's ingest does: ChunkWriter.pack,
 *   appendPacked, IngestLog.append; committed by the row group (without holding up the writes after
 *   it, which are logged meanwhile and appended after it) or once idle (runOnWorkers), the log then emptied;
 * - the visitor's session put in SqliteSessionStore (group-committed in its writer thread).
 * No routing, visitor context, parsing, dedupe or hit-key index. `BENCH_FLOOR_DIR`: where its files
 * go; `BENCH_FLOOR_PARTS=hits` (or `sessions`): only that part of the writes, to see what each costs.
 * Prints its port.
 */
import 'reflect-metadata';
import { join } from 'node:path';
import { DuckDBInstance, type DuckDBAppender, type DuckDBConnection } from '@duckdb/node-api';
import { generateAssetId } from '@funnel/contracts';
import { KeyedSerial } from '@funnel/platform';
import { EDGE_HITS_COMMIT, GroupCommit, SqliteSessionStore } from '@funnel/edge-feature';
import {
  ChunkWriter,
  INGEST_COMMIT_MS,
  INGEST_COMMIT_ROWS,
  INGEST_IDLE_MS,
  IngestLog,
  WAREHOUSE_CHECKPOINT_THRESHOLD,
  WAREHOUSE_COLUMNS,
  backgroundWorkers,
  runOnWorkers,
  warehouseRow,
  type WarehouseRow,
} from '@funnel/reporting-feature';
import type { RoutingSession } from '@funnel/routing';
import Fastify from 'fastify';
import { edgeHit } from '../hits-ingest.bench';

const LOCATION = 'https://lp.example.com/main-a?h=0123456789ab&v=0123456789ab&ts=0123456789ab';
/** Requests whose hit rows are built at start, used in turn (each row is stored again after POOL requests). */
const POOL = 16_384;
const ACCOUNT = generateAssetId();
/** Which writes a redirect waits for: `hits`, `sessions`, or both (unset). */
const FLOOR_PARTS = process.env.BENCH_FLOOR_PARTS;
if (FLOOR_PARTS !== undefined && FLOOR_PARTS !== 'hits' && FLOOR_PARTS !== 'sessions') throw new Error('BENCH_FLOOR_PARTS is hits or sessions');

/** The hits of POOL entrances: root, rotator, condition, landers (every fourth: root, rotator, landers). */
function hitPool(): WarehouseRow[][] {
  let n = 0;
  return Array.from({ length: POOL }, (_, request) => {
    const ids = Array.from({ length: request % 4 === 3 ? 3 : 4 }, () => generateAssetId());
    return ids.map((id, i) => warehouseRow(edgeHit(ACCOUNT, id, i === 0 ? '' : ids[i - 1], n++)));
  });
}

/** A new visitor's session after the bench funnel's entrance (`?zone=bench&cost=0.02`). */
function sessionOf(request: number): RoutingSession {
  return {
    visitorId: `V${String(request).padStart(11, '0')}`,
    startedAt: Date.now(),
    idFunnel: 'F00000000001',
    idTrafficSource: 'T00000000001',
    currentNode: 'N00000000004',
    lastHitId: `H${String(request).padStart(11, '0')}`,
    currentPage: 'P00000000001',
    trackingFields: { c1: 'bench' },
    cost: '0.02',
    tags: [],
    sticky: {},
    urlBuffer: { zone: 'bench', cost: '0.02' },
  };
}

/** The ingest transaction of DuckDbHitStore, without its dedupe: rows appended and logged, committed by the row group or once idle. */
class FloorIngest {
  private readonly chunks = new ChunkWriter(WAREHOUSE_COLUMNS);
  private open: { appender: DuckDBAppender; rows: number; lastLogged: number; began: number; timer: NodeJS.Timeout } | undefined;
  /** Writes and commits, one at a time. */
  private readonly serial = new KeyedSerial();
  /** A full transaction's commit under way: writes are only logged meanwhile. */
  private committing: Promise<void> | undefined;
  /** The last log entry committed. */
  private committed = 0;

  constructor(
    private readonly writer: DuckDBConnection,
    private readonly log: IngestLog,
    /** DuckDB's background workers: the commit runs on them, as the store's does (runOnWorkers). */
    private readonly workers: number,
  ) {}

  write(rows: WarehouseRow[]): Promise<void> {
    return this.serially(async () => {
      const packed = this.chunks.pack(rows, (column) => (row) => row[column]);
      if (this.committing) {
        this.log.append(packed, []);
        return;
      }
      const open = await this.begin();
      open.rows += this.chunks.appendPacked(open.appender, packed);
      open.lastLogged = this.log.append(packed, []);
      clearTimeout(open.timer);
      open.timer = this.commitTimer(open.began);
      if (open.rows >= INGEST_COMMIT_ROWS) this.commitInBackground();
    });
  }

  /** As the store's (HitIngest.commitInBackground): writes go on, logged into the log's other file, and are appended after the commit. */
  private commitInBackground(): void {
    this.log.rotate();
    this.committing = this.commit().then(() => {
      this.committing = undefined;
      if (this.log.idsAfter(this.committed).length > 0) void this.serially(async () => void (await this.begin()));
    });
  }

  private serially(work: () => Promise<void>): Promise<void> {
    return this.serial.run('ingest', work);
  }

  private async begin() {
    if (this.open) return this.open;
    await this.writer.run('BEGIN TRANSACTION');
    const appender = await this.writer.createAppender('hits');
    const began = Date.now();
    this.open = { appender, rows: 0, lastLogged: this.committed, began, timer: this.commitTimer(began) };
    // What was logged during a commit first.
    for (const id of this.log.idsAfter(this.committed)) {
      this.open.rows += this.chunks.appendPacked(appender, this.log.entry(id).rows);
      this.open.lastLogged = id;
    }
    return this.open;
  }

  private commitTimer(began: number): NodeJS.Timeout {
    const timer = setTimeout(() => void this.serially(() => this.commit()), Math.max(0, Math.min(INGEST_IDLE_MS, began + INGEST_COMMIT_MS - Date.now())));
    timer.unref();
    return timer;
  }

  /** Commits with the last log entry it holds (as the store records it), then empties the log. */
  private async commit(): Promise<void> {
    const open = this.open;
    if (!open) return;
    this.open = undefined;
    clearTimeout(open.timer);
    open.appender.closeSync();
    await this.writer.run(`INSERT OR REPLACE INTO warehouse_meta VALUES ('ingest_log_committed', '${open.lastLogged}')`);
    await runOnWorkers(this.writer, 'COMMIT', this.workers);
    this.committed = open.lastLogged;
    this.log.removeThrough(open.lastLogged);
  }
}

async function main(): Promise<void> {
  const dir = process.env.BENCH_FLOOR_DIR;
  if (!dir) throw new Error('BENCH_FLOOR_DIR is not set');
  const pool = hitPool();
  const instance = await DuckDBInstance.create(join(dir, 'hits.duckdb'), { checkpoint_threshold: WAREHOUSE_CHECKPOINT_THRESHOLD });
  const writer = await instance.connect();
  await writer.run(`CREATE TABLE hits (${WAREHOUSE_COLUMNS.map((column) => `${column.name} ${column.duckdb}`).join(', ')})`);
  await writer.run('CREATE TABLE warehouse_meta (key VARCHAR PRIMARY KEY, value VARCHAR NOT NULL)');
  const ingest = new FloorIngest(writer, IngestLog.open(join(dir, 'hits.ingest')), await backgroundWorkers(instance));
  const hits = new GroupCommit<WarehouseRow>((rows) => ingest.write(rows), EDGE_HITS_COMMIT);
  const sessions = new SqliteSessionStore({ filename: join(dir, 'edge-sessions.sqlite'), ttlMs: 86_400_000 });
  let requests = 0;
  const app = Fastify({ logger: false });
  app.get('/fts/:token', async (_request, reply) => {
    const request = requests++;
    await Promise.all([
      FLOOR_PARTS === 'sessions' ? undefined : hits.add(pool[request % POOL]),
      FLOOR_PARTS === 'hits' ? undefined : sessions.put(ACCOUNT, sessionOf(request)),
    ]);
    return reply.code(302).header('location', LOCATION).send();
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  process.stdout.write(`PORT=${(app.server.address() as { port: number }).port}\n`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
