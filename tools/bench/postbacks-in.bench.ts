// `BENCH_ONLY=postbacks-in`: incoming postbacks accepted per second on the tracking edge (standalone):
// `GET /a/<accountId>/pb/?hit=&tx=&rev=`, each answered once its conversions job is queued and its
// log row written (the workers apply them meanwhile, as in production). The hits are not stored, so
// each job applies as `unknownHit`: the figure is the edge's and the hand-off's, not the warehouse's.
// REPORTING_WORKERS=0 in the bench's environment: the intake alone (no worker applying meanwhile).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { IdentityService } from '@funnel/identity-feature';
import { generateAssetId } from '@funnel/contracts';
import { startStandalone } from '@funnel/runtime';
import { load, type LoadResult } from './http-load';

export async function postbacksInRate(seconds = 3, connections = 16): Promise<LoadResult> {
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-pbin-'));
  const running = await startStandalone({
    DATA_DIR: dataDir,
    LOG_LEVEL: 'error',
    HOST: '127.0.0.1',
    PORT: '0',
    OPS_PORT: '0',
    EDGE_PORT: '0',
    EDGE_DEFAULT_DOMAIN: '127.0.0.1',
    ...(process.env.REPORTING_WORKERS ? { REPORTING_WORKERS: process.env.REPORTING_WORKERS } : {}),
  });
  try {
    const { accountId } = await running.context!.get(IdentityService).createUserWithAccount({ email: 'pb@example.com', password: 'another password' });
    let n = 0;
    const url = () => `/a/${accountId}/pb/?hit=${generateAssetId()}&tx=T${n++}&rev=1.5`;
    const base = `http://127.0.0.1:${running.edgePort}`;
    // autocannon takes one URL: a few distinct hits per connection are enough (each request is a new postback).
    await load({ url: `${base}${url()}`, durationSeconds: 1, connections });
    return await load({ url: `${base}${url()}`, durationSeconds: seconds, connections });
  } finally {
    await running.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (require.main === module) {
  void postbacksInRate(Number(process.env.BENCH_SECONDS ?? 3)).then((r) =>
    process.stdout.write(`postbacks-in: ${Math.round(r.requestsPerSecond)} postbacks/s accepted, p99 ${r.p99Ms} ms, ${r.non2xx} non-2xx, ${r.errors} errors\n`),
  );
}
