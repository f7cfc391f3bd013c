import { importHits, openHitSink } from '@funnel/runtime';
import type { CliIo } from './users';

export const HITS_IMPORT_USAGE = 'usage: npm run -s cli -- hits:import <file.ndjson>   (one hit per line; NATS_URL set: over NATS, else into DATA_DIR)';

/**
 * `hits:import <file.ndjson>`: see README "Reporting". Exits 0 when every line was stored (or already
 * was), 1 when some were refused (each listed as `file:line`, up to 100); the valid lines are stored either way.
 */
export async function runHitsCli(argv: readonly string[], env: NodeJS.ProcessEnv, io: CliIo): Promise<number> {
  const file = argv[1];
  if (!file) {
    io.err(HITS_IMPORT_USAGE);
    return 2;
  }
  const sink = await openHitSink(env);
  try {
    const result = await importHits(file, sink);
    for (const { line, errors } of result.invalid)
      io.err(`${file}:${line}: ${errors.map((e) => (e.field ? `${e.field}: ${e.message}` : e.message)).join('; ')}`);
    if (result.invalidCount > result.invalid.length) io.err(`... and ${result.invalidCount - result.invalid.length} more lines refused`);
    io.out(
      `${result.inserted} hits imported, ${result.ignored} already stored, ${result.invalidCount} lines refused` +
        ` (via ${result.via === 'nats' ? 'reporting.hits.ingest' : result.via === 'inbox' ? 'the process holding DATA_DIR' : 'DATA_DIR'})`,
    );
    return result.invalidCount ? 1 : 0;
  } finally {
    await sink.close();
  }
}
