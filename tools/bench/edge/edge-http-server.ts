/**
 * The edge's HTTP layer alone, for `tools/bench/edge/edge-http.bench.ts`: the edge's Fastify app
 * (createEdgeHttpApp) with its route metrics and the visitor context (VisitorResolver.resolve), whose
 * entrance answers a fixed redirect without a walk, a session or hits. `BENCH_EDGE_HTTP_BARE=1`:
 * the app alone (no visitor context, no metrics). Prints its port; exits on SIGTERM or SIGINT (so
 * that `node --cpu-prof` writes its profile).
 */
import { Registry } from 'prom-client';
import { loadConfig } from '@funnel/platform';
import {
  EdgeRouteMetrics,
  type VisitorLinks,
  VisitorResolver,
  createEdgeHttpApp,
  redirectAnswer,
  visitorConfig,
  visitorResolverOptionsFrom,
} from '@funnel/edge-feature';

const LOCATION = 'https://lp.example.com/main-a?h=0123456789ab&v=0123456789ab&ts=0123456789ab';

async function main(): Promise<void> {
  const bare = process.env.BENCH_EDGE_HTTP_BARE === '1';
  const registry = new Registry();
  const metrics = new EdgeRouteMetrics(registry);
  const visitors = await VisitorResolver.open(visitorResolverOptionsFrom(loadConfig(visitorConfig, {})));
  const links = {
    async entrance(request: Parameters<VisitorLinks['entrance']>[0]) {
      if (bare) return { ...redirectAnswer(307, LOCATION), outcome: 'redirect' as const };
      const started = performance.now();
      const visitor = visitors.resolve(request);
      metrics.walked('entrance', (performance.now() - started) / 1000);
      const answer = { ...redirectAnswer(307, `${LOCATION}&c=${visitor.params['cost'] ?? ''}`), outcome: 'redirect' as const };
      metrics.answered('entrance', answer.outcome, (performance.now() - started) / 1000);
      return answer;
    },
  } as unknown as VisitorLinks;
  const app = createEdgeHttpApp({ links, registry, readiness: [], serving: () => true, limits: { maxUrlBytes: 8192, maxHeaderBytes: 16_384 } });
  await app.listen({ port: 0, host: '127.0.0.1' });
  for (const signal of ['SIGTERM', 'SIGINT'] as const) process.once(signal, () => void app.close().then(() => process.exit(0)));
  process.stdout.write(`PORT=${(app.server.address() as { port: number }).port}\n`);
}

void main();
