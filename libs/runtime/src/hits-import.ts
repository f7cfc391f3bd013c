import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { ReportingSubjects } from '@funnel/contracts';
import { DEFAULT_TRACKING_EDGE_INBOX_PREFIX, NatsServiceClient, createLogger, loadConfig, string } from '@funnel/platform';
import { createHitStore } from '@funnel/reporting-feature';
import { Hit, parseHit } from '@funnel/reporting-domain';
import { natsAccessFrom, natsConfig, storeConfig } from './config';
import { REPORTING_FILE, reportingConfig } from './reporting-config';

/** Hits per write (one `reporting.hits.ingest` message, or one SQLite transaction). */
export const IMPORT_BATCH = 1000;

export interface ImportResult {
  inserted: number;
  ignored: number;
  via: 'nats' | 'data-dir';
}

/** Writes hits somewhere: the hit store in DATA_DIR, or `reporting.hits.ingest` over NATS. */
export interface HitSink {
  via: ImportResult['via'];
  write(hits: Hit[]): Promise<{ inserted: number; ignored: number }>;
  close(): Promise<void>;
}

const importConfig = {
  ...storeConfig,
  CLICKHOUSE_URL: reportingConfig.CLICKHOUSE_URL,
  NATS_URL: string({ optional: true }),
  RPC_MAX_MESSAGE_BYTES: natsConfig.RPC_MAX_MESSAGE_BYTES,
  NATS_CREDS_FILE: natsConfig.NATS_CREDS_FILE,
  NATS_USER: natsConfig.NATS_USER,
  NATS_PASSWORD: natsConfig.NATS_PASSWORD,
  NATS_TLS_CA: natsConfig.NATS_TLS_CA,
  NATS_TLS_CERT: natsConfig.NATS_TLS_CERT,
  NATS_TLS_KEY: natsConfig.NATS_TLS_KEY,
  NATS_INBOX_PREFIX: string({ default: DEFAULT_TRACKING_EDGE_INBOX_PREFIX }),
};

/**
 * Where `hits:import` writes: with NATS_URL, `reporting.hits.ingest` (as the tracking edge, with
 * its NATS user); otherwise the hit warehouse of DATA_DIR (or CLICKHOUSE_URL) directly.
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
      write: (hits) => client.request(ReportingSubjects.hitsIngest, { context: undefined as never, body: { hits } }),
      close: () => client.close(),
    };
  }
  const store = await createHitStore({ clickhouseUrl: config.CLICKHOUSE_URL, dataDir: config.DATA_DIR, fileName: REPORTING_FILE });
  return { via: 'data-dir', write: (hits) => store.insertHits(hits), close: () => store.close() };
}

/**
 * `npm run cli -- hits:import <file.ndjson>`: one hit per line (the Hit record), checked line by
 * line (a bad line stops the import before anything of its batch is written, naming the line).
 */
export async function importHits(file: string, sink: HitSink): Promise<ImportResult> {
  const lines = createInterface({ input: createReadStream(file, 'utf8'), crlfDelay: Infinity });
  const total = { inserted: 0, ignored: 0 };
  let batch: Hit[] = [];
  const flush = async () => {
    if (!batch.length) return;
    const written = await sink.write(batch);
    total.inserted += written.inserted;
    total.ignored += written.ignored;
    batch = [];
  };
  let lineNumber = 0;
  for await (const line of lines) {
    lineNumber++;
    if (line.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      throw new Error(`${file}:${lineNumber}: not a JSON object`);
    }
    const parsed = parseHit(value);
    if (!parsed.ok) throw new Error(`${file}:${lineNumber}: ${parsed.errors.map((e) => `${e.field}: ${e.message}`).join('; ')}`);
    batch.push(parsed.value);
    if (batch.length >= IMPORT_BATCH) await flush();
  }
  await flush();
  return { ...total, via: sink.via };
}
