import { createReadStream } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { ReportingSubjects } from '@funnel/contracts';
import { DEFAULT_TRACKING_EDGE_INBOX_PREFIX, NatsServiceClient, createLogger, int, loadConfig, string } from '@funnel/platform';
import { HitInbox, INGEST_INVALID_LISTED, WarehouseInUseError, ingestHits, type HitStore, type IngestHitsResult } from '@funnel/reporting-feature';
import type { FieldError } from '@funnel/reporting-domain';
import { natsAccessFrom, natsConfig, natsUrl, storeConfig } from './config';
import { HIT_WAREHOUSE_FILE, REPORTING_FILE, openHitStore, reportingConfig } from './reporting-config';
import { ensureDataDir } from './data-dir';

/** Hits per write (one `reporting.hits.ingest` message, or one warehouse transaction). */
export const IMPORT_BATCH = 1000;

/** Batches `hits:import` keeps in flight (the warehouse writes the waiting ones in one transaction; over NATS, requests at once). */
export const IMPORT_IN_FLIGHT = 4;

/** A line `hits:import` refused: its number in the file (from 1) and its errors. */
export interface InvalidLine {
  line: number;
  errors: FieldError[];
}

export interface ImportResult {
  inserted: number;
  ignored: number;
  /** The first INGEST_INVALID_LISTED lines refused. */
  invalid: InvalidLine[];
  /** All the lines refused. */
  invalidCount: number;
  /** `inbox`: handed to the process that holds DATA_DIR's embedded warehouse (a running standalone). */
  via: 'nats' | 'data-dir' | 'inbox';
}

/**
 * Ingests hits somewhere: `ingestHits` on the hit store in DATA_DIR, or `reporting.hits.ingest` over
 * NATS (which runs `ingestHits` in the reporting service); both answer the same.
 */
export interface HitSink {
  via: ImportResult['via'];
  /** One batch of hits as read (unchecked): the valid ones are stored, the others listed by index. */
  write(inputs: unknown[]): Promise<IngestHitsResult>;
  close(): Promise<void>;
}

const importConfig = {
  ...storeConfig,
  CLICKHOUSE_URL: reportingConfig.CLICKHOUSE_URL,
  NATS_URL: natsUrl({ optional: true }),
  RPC_MAX_MESSAGE_BYTES: natsConfig.RPC_MAX_MESSAGE_BYTES,
  NATS_CREDS_FILE: natsConfig.NATS_CREDS_FILE,
  NATS_USER: natsConfig.NATS_USER,
  NATS_PASSWORD: natsConfig.NATS_PASSWORD,
  NATS_TLS_CA: natsConfig.NATS_TLS_CA,
  NATS_TLS_CERT: natsConfig.NATS_TLS_CERT,
  NATS_TLS_KEY: natsConfig.NATS_TLS_KEY,
  NATS_INBOX_PREFIX: string({ default: DEFAULT_TRACKING_EDGE_INBOX_PREFIX }),
  /** How long a batch handed to a running standalone may wait for its answer. */
  HITS_INBOX_TIMEOUT_MS: int({ min: 100, max: 600_000, default: 60_000 }),
};

/**
 * Where `hits:import` writes: with NATS_URL, `reporting.hits.ingest` (as the tracking edge, with
 * its NATS user); otherwise the hit warehouse of DATA_DIR (or CLICKHOUSE_URL) directly. DuckDB lets
 * one process open DATA_DIR's warehouse: while a standalone runs on it, the batches go to that
 * process through the hits inbox (HitInbox, in DATA_DIR/reporting.sqlite), which answers the same.
 */
export async function openHitSink(env: NodeJS.ProcessEnv): Promise<HitSink> {
  const config = loadConfig(importConfig, env);
  if (config.NATS_URL) {
    const client = new NatsServiceClient(config.NATS_URL, {
      timeoutMs: 30_000,
      logger: createLogger('hits-import', 'error'),
      access: natsAccessFrom({ ...config, NATS_URL: config.NATS_URL }),
      maxMessageBytes: config.RPC_MAX_MESSAGE_BYTES,
    });
    return {
      via: 'nats',
      write: (hits) => client.request<IngestHitsResult>(ReportingSubjects.hitsIngest, { context: undefined as never, body: { hits } }),
      close: () => client.close(),
    };
  }
  // A DATA_DIR that cannot hold the warehouse is said as a setting, as the apps say it.
  if (!config.CLICKHOUSE_URL) ensureDataDir(config.DATA_DIR, [REPORTING_FILE, HIT_WAREHOUSE_FILE]);
  let store: HitStore;
  try {
    store = await openHitStore(config);
  } catch (error) {
    if (!(error instanceof WarehouseInUseError)) throw error;
    // DuckDB opens a file in one process: the running standalone (or reporting service) ingests the batches from its inbox.
    const inbox = new HitInbox(join(config.DATA_DIR, REPORTING_FILE));
    return { via: 'inbox', write: (inputs) => inbox.submit(inputs, { timeoutMs: config.HITS_INBOX_TIMEOUT_MS }), close: async () => inbox.close() };
  }
  return { via: 'data-dir', write: (inputs) => ingestHits(store, inputs), close: () => store.close() };
}

/**
 * `npm run cli -- hits:import <file.ndjson>`: one hit per line (the Hit record), sent in batches of
 * IMPORT_BATCH to the sink (IMPORT_IN_FLIGHT of them at a time), which stores the valid hits and names the others; a line that is not
 * JSON is refused here. The refused lines are reported by line number (at most
 * INGEST_INVALID_LISTED of them, in line order, and their count); the import goes on past them.
 */
export async function importHits(file: string, sink: HitSink): Promise<ImportResult> {
  const lines = createInterface({ input: createReadStream(file, 'utf8'), crlfDelay: Infinity });
  const result: ImportResult = { inserted: 0, ignored: 0, invalid: [], invalidCount: 0, via: sink.via };
  const refuse = (line: number, errors: FieldError[]) => {
    if (++result.invalidCount <= INGEST_INVALID_LISTED) result.invalid.push({ line, errors });
  };
  /** The batch to send, the line number of each of its entries, and the lines between them that are not JSON. */
  let batch: unknown[] = [];
  let batchLines: number[] = [];
  let notJson: InvalidLine[] = [];
  /** Batches sent and not yet counted, in the order sent: counted in that order, so the refused lines are listed in line order. */
  const inFlight: Promise<void>[] = [];
  const count = (written: IngestHitsResult, lines: number[], notJsonLines: InvalidLine[]) => {
    result.inserted += written.inserted;
    result.ignored += written.ignored;
    const refused = [...notJsonLines, ...written.invalid.map((entry) => ({ line: lines[entry.index], errors: entry.errors }))];
    for (const { line, errors } of refused.sort((a, b) => a.line - b.line)) refuse(line, errors);
    // The answer lists only its first INGEST_INVALID_LISTED; the others are counted.
    result.invalidCount += written.invalidCount - written.invalid.length;
  };
  const flush = async () => {
    const [sent, lines, notJsonLines] = [batch, batchLines, notJson];
    batch = [];
    batchLines = [];
    notJson = [];
    const writing = sent.length ? sink.write(sent) : Promise.resolve({ inserted: 0, ignored: 0, invalid: [], invalidCount: 0 });
    const previous = inFlight.at(-1) ?? Promise.resolve();
    const counted = Promise.all([writing, previous]).then(([written]) => count(written, lines, notJsonLines));
    // Awaited below, in order; handled now so a failure is not reported as unhandled meanwhile.
    counted.catch(() => undefined);
    inFlight.push(counted);
    // At most IMPORT_IN_FLIGHT batches wait for their answer; a failed write stops the import.
    if (inFlight.length >= IMPORT_IN_FLIGHT) await inFlight.shift();
  };
  let lineNumber = 0;
  for await (const line of lines) {
    lineNumber++;
    if (line.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      notJson.push({ line: lineNumber, errors: [{ field: '', message: 'not JSON' }] });
      continue;
    }
    batch.push(value);
    batchLines.push(lineNumber);
    if (batch.length >= IMPORT_BATCH || notJson.length >= INGEST_INVALID_LISTED) await flush();
  }
  await flush();
  for (const counted of inFlight.splice(0)) await counted;
  return result;
}
