import { importHits, openHitSink } from '@funnel/runtime';
import type { CliIo } from './users';

export const isHitsCommand = (command: string | undefined) => command === 'hits:import';

/** `hits:import <file.ndjson>`: see README "Reporting". */
export async function runHitsCli(argv: string[], env: NodeJS.ProcessEnv, io: CliIo): Promise<number> {
  const file = argv[1];
  if (!file) {
    io.err('usage: npm run cli -- hits:import <file.ndjson>   (one hit per line; NATS_URL set: over NATS, else into DATA_DIR)');
    return 2;
  }
  const sink = await openHitSink(env);
  try {
    const result = await importHits(file, sink);
    io.out(`${result.inserted} hits imported, ${result.ignored} already stored (via ${result.via === 'nats' ? 'reporting.hits.ingest' : 'DATA_DIR'})`);
    return 0;
  } finally {
    await sink.close();
  }
}
