/**
 * `BENCH_ONLY=middleware`: entrance redirects of a funnel whose middleware node calls a local server
 * (its own process on 127.0.0.1) that answers in 20 ms, paired round by round with the same funnel
 * without the middleware node, on the same standalone process: req/s, p99, the ratio, and the edge
 * process's CPU time per redirect of each.
 *
 * Both runs keep autocannon's 32 connections, so the middleware run is bounded by its wait: 32
 * connections each waiting at least 20 ms cannot exceed 1,600 redirects/s. The figure shows how
 * close the edge gets to that ceiling and what a call costs the edge beyond the wait.
 */
import { generateAssetId } from '@funnel/contracts';
import { type LoadResult, load } from '../http-load';
import { type Child, cpuMs, freePort, runTs, waitForHttp } from '../processes';
import { waitForRedirect } from './edge-client';
import type { EdgeBenchKit } from './edge.bench';
import { accountOf, apiPoster } from './seed';

const DOMAIN = 'edge.bench.local';
const DELAY_MS = Number(process.env.BENCH_MIDDLEWARE_DELAY_MS ?? 20);
const CONNECTIONS = 32;
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** Two funnels of one traffic source saved through the API: root -> middleware -> landers (route `ok`; default: an external URL), and root -> landers. */
async function seedMiddlewareFunnels(base: string, key: string, destination: string) {
  const post = apiPoster(base, key);
  const id = () => generateAssetId();
  const idFunnelGroup = id();
  await post('/funnelgroup/save/', { idFunnelGroup, funnelGroupName: 'middleware bench' });
  const idTrafficSource = id();
  await post('/trafficsource/save/', { idTrafficSource, trafficSourceName: 'middleware bench source', defaultCost: '0.01' });
  const page = { idPage: id(), pageType: 'lander', pageName: 'middleware bench lander', baseURL: 'https://lp.example.com/mw?h={hit}&v={visitor}' };
  await post('/page/save/', page);
  const idPageGroup = id();
  await post('/pagegroup/save/', { idPageGroup, pageGroupName: 'middleware bench landers', pageType: 'lander', pages: [{ idPage: page.idPage }] });
  const idMiddlewareConfig = id();
  await post('/middlewareconfig/save/', {
    idMiddlewareConfig,
    middlewareConfigName: 'middleware bench check',
    routes: [{ idRoute: 'ok', priority: 1, rules: [{ field: 'body_json.verdict', operator: 'is', value: 'ok' }] }],
    destination: { url: destination, timeoutMs: 2000, hmacSecret: 'middleware-bench-hmac-secret-01' },
  });
  const node = (nodeType: string, params: Record<string, unknown> = {}) => ({ idNode: id(), nodeName: nodeType, nodeType, posX: 0.5, posY: 0.5, ...params });
  const link = (from: { idNode: string }, to: { idNode: string }, params: Record<string, unknown>) => ({
    idConnection: id(),
    idSourceNode: from.idNode,
    idTargetNode: to.idNode,
    ...params,
  });
  const funnel = async (name: string, withMiddleware: boolean) => {
    const root = node('root');
    const landers = node('landerGroup', { nodePageGroupParams: { idPageGroup } });
    const mw = node('middleware', { nodeMiddlewareRefParams: { idMiddlewareConfig } });
    const fallback = node('externalUrl', { nodeExternalUrlParams: { url: 'https://fallback.example.com/' } });
    const idFunnel = id();
    await post('/funnel/save/', {
      idFunnel,
      idFunnelGroup,
      funnelName: name,
      ...(withMiddleware
        ? {
            nodes: [root, mw, landers, fallback],
            connections: [
              link(root, mw, { connectionRotatorParams: { weight: 1 } }),
              link(mw, landers, { connectionMiddlewareParams: { onRouteId: 'ok' } }),
              link(mw, fallback, { connectionMiddlewareParams: { onRouteId: 'default' } }),
            ],
          }
        : { nodes: [root, landers], connections: [link(root, landers, { connectionRotatorParams: { weight: 1 } })] }),
    });
    return `${idFunnel}${idTrafficSource}`;
  };
  return { withMiddleware: await funnel('middleware bench: with', true), without: await funnel('middleware bench: without', false) };
}

/** Answers other than the landers' 307 (a 302 is the middleware node's default: the call failed, timed out or was shed). */
function others(result: LoadResult): string {
  const list = Object.entries(result.statusCodes).filter(([code]) => code !== '307');
  return [...list.map(([code, count]) => `${count} x ${code}`), ...(result.errors ? [`${result.errors} errors`] : [])].join(', ');
}

export async function middlewareSection(kit: EdgeBenchKit): Promise<void> {
  kit.log(
    `middleware: edge redirects through a middleware node whose local server answers in ${DELAY_MS} ms, paired with the same funnel without it (standalone)`,
  );
  const started: Child[] = [];
  const keep = <T extends Child>(child: T) => (started.push(child), kit.children.push(child), child);
  try {
    const server = keep(await runTs('tools/bench/edge/middleware-server.ts', { MIDDLEWARE_DELAY_MS: String(DELAY_MS) }, /PORT=(\d+)/));
    const serverBase = `http://127.0.0.1:${server.match![1]}`;
    const port = await freePort();
    const edgePort = await freePort();
    const app = keep(
      await runTs(
        'apps/standalone/src/main.ts',
        // The destination is on 127.0.0.1, which the SSRF guard refuses unless told otherwise.
        kit.appEnv(kit.tmp(), { PORT: String(port), EDGE_PORT: String(edgePort), EDGE_DEFAULT_DOMAIN: DOMAIN, OUTBOUND_ALLOW_PRIVATE: 'true' }),
      ),
    );
    const base = `http://127.0.0.1:${port}/v1`;
    await waitForHttp(`${base}/visitortag/list/`, { 'x-api-key': kit.key });
    const accountId = await accountOf(base, kit.email, kit.password);
    const tokens = await seedMiddlewareFunnels(base, kit.key, `${serverBase}/check`);
    const path = (token: string) => `/a/${accountId}/fts/${token}`;
    for (const token of [tokens.withMiddleware, tokens.without]) {
      const first = await waitForRedirect(edgePort, DOMAIN, path(token));
      if (first.status !== 307 || !first.location?.startsWith('https://lp.example.com/mw'))
        throw new Error(`the edge answered ${first.status} ${first.location}, not the lander`);
    }
    const options = (token: string) => ({
      url: `http://127.0.0.1:${edgePort}${path(token)}`,
      headers: { host: DOMAIN },
      connections: CONNECTIONS,
      durationSeconds: kit.durationSeconds,
    });
    await load({ ...options(tokens.without), durationSeconds: 2 });
    await load({ ...options(tokens.withMiddleware), durationSeconds: 2 });
    const pid = [app.process.pid!];
    const rounds: { measure: LoadResult; baseline: LoadResult; cpu?: [number, number] }[] = [];
    const callsBefore = Number(await (await fetch(`${serverBase}/calls`)).text());
    for (let round = 0; round < kit.rounds; round++) {
      const b0 = cpuMs(pid);
      const baseline = await load(options(tokens.without));
      const b1 = cpuMs(pid);
      const measure = await load(options(tokens.withMiddleware));
      const m1 = cpuMs(pid);
      const known = b0 !== undefined && b1 !== undefined && m1 !== undefined;
      rounds.push({
        measure,
        baseline,
        cpu: known ? [((m1 - b1) * 1000) / measure.requests, ((b1 - b0) * 1000) / baseline.requests] : undefined,
      });
    }
    const calls = Number(await (await fetch(`${serverBase}/calls`)).text()) - callsBefore;
    const redirects = rounds.reduce((sum, r) => sum + r.measure.requests, 0);
    kit.log(`middleware: the server answered ${fmt(calls)} calls during the ${fmt(redirects)} redirects of the middleware rounds`);
    const ratios = rounds.map((r) => r.measure.requestsPerSecond / r.baseline.requestsPerSecond);
    const ratio = median(ratios);
    const chosen = rounds[ratios.indexOf(ratio)];
    const cpus = rounds.filter((r) => r.cpu).map((r) => r.cpu!);
    const cpu =
      cpus.length === rounds.length
        ? `; edge CPU ${median(cpus.map((c) => c[0])).toFixed(0)} µs per redirect with the call, ${median(cpus.map((c) => c[1])).toFixed(0)} µs without`
        : '';
    const ceiling = (CONNECTIONS * 1000) / DELAY_MS;
    const measureOthers = others(chosen.measure);
    const baselineOthers = others(chosen.baseline);
    kit.record(
      `middleware: edge entrance redirects through a middleware node (standalone, root -> middleware -> lander group; its server on 127.0.0.1 answers in ${DELAY_MS} ms; ${CONNECTIONS} connections) vs the same funnel without the node`,
      `${fmt(chosen.measure.requestsPerSecond)} redirects/s, p99 ${chosen.measure.p99Ms} ms${measureOthers ? `, other answers: ${measureOthers}` : ''} ` +
        `(${fmt((chosen.measure.requestsPerSecond * 100) / ceiling)}% of the ${fmt(ceiling)}/s that ${CONNECTIONS} connections waiting ${DELAY_MS} ms allow); ` +
        `without the node ${fmt(chosen.baseline.requestsPerSecond)} redirects/s, p99 ${chosen.baseline.p99Ms} ms${baselineOthers ? `, other answers: ${baselineOthers}` : ''}${cpu}`,
      `${ratio.toFixed(2)} of without; rounds ${ratios.map((r) => r.toFixed(2)).join(', ')}`,
    );
  } finally {
    for (const child of started.reverse()) {
      kit.children.splice(kit.children.indexOf(child), 1);
      await child.stop();
    }
  }
}
