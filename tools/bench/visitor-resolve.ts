/**
 * µs per VisitorResolver.resolve on the shipped GeoLite2 City data (a micro measurement, not a test):
 *   node -r ./tools/register.js tools/bench/visitor-resolve.ts
 * Baseline in the same run: maxmind's bare `get` for the same addresses (the geo walk alone).
 * Rows: a campaign's mix (10,000 random public IPv4 addresses, 50 User-Agents, so they are remembered),
 * and the worst case of a new User-Agent on every request (each one parsed).
 */
import { open } from 'maxmind';
import { loadConfig } from '@funnel/platform';
import { VisitorResolver, shippedGeoDatabases, visitorConfig, visitorResolverOptionsFrom } from '@funnel/edge-feature';

const N = Number(process.env.BENCH_RESOLVES ?? 200_000);
const ROUNDS = 5;
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

function randomPublicIpv4(random: () => number): string {
  for (;;) {
    const a = 1 + Math.floor(random() * 222);
    if (a === 10 || a === 127 || a === 100 || a === 172 || a === 192 || a === 169) continue;
    return `${a}.${Math.floor(random() * 256)}.${Math.floor(random() * 256)}.${1 + Math.floor(random() * 254)}`;
  }
}

function seeded(seed: number): () => number {
  let s = seed >>> 0;
  return () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
}

/** µs per call of `run(i)` over N calls: the median of ROUNDS rounds. */
function measure(run: (i: number) => unknown): number {
  const rounds: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const start = process.hrtime.bigint();
    for (let i = 0; i < N; i++) run(i);
    rounds.push(Number(process.hrtime.bigint() - start) / 1000 / N);
  }
  return median(rounds);
}

async function main(): Promise<void> {
  const random = seeded(42);
  const ips = Array.from({ length: 10_000 }, () => randomPublicIpv4(random));
  const agents = Array.from(
    { length: 50 },
    (_, i) => `Mozilla/5.0 (Linux; Android 14; SM-S91${i % 10}B) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/${100 + i}.0.6367.82 Mobile Safari/537.36`,
  );
  const headers = (ua: string) => ({ 'user-agent': ua, 'accept-language': 'en-US,en;q=0.9', referer: 'https://www.google.com/' });
  const requests = ips.map((ip, i) => ({
    ip,
    headers: headers(agents[i % agents.length]),
    query: { c1: 'x', c2: 'y' },
    url: '/fts/abc?c1=x&c2=y',
    protocol: 'https',
    host: 'track.example.com',
  }));

  const openStart = process.hrtime.bigint();
  const resolver = await VisitorResolver.open(visitorResolverOptionsFrom(loadConfig(visitorConfig, {})));
  const openMs = Number(process.hrtime.bigint() - openStart) / 1e6;
  const reader = await open(shippedGeoDatabases()[0]);
  const time = Date.now();

  const baseline = measure((i) => reader.get(ips[i % ips.length]));
  const mix = measure((i) => resolver.resolve(requests[i % requests.length], time));
  const fresh = measure((i) => resolver.resolve({ ...requests[i % requests.length], headers: headers(`${agents[i % agents.length]} r${i}`) }, time));

  const row = (name: string, us: number) => process.stdout.write(`  ${name}: ${us.toFixed(2)} µs (${(us / baseline).toFixed(1)}x maxmind get)\n`);
  process.stdout.write(`visitor context (${N.toLocaleString('en-US')} resolves x ${ROUNDS} rounds, medians)\n`);
  process.stdout.write(`  open both GeoLite2 City files: ${openMs.toFixed(0)} ms\n`);
  process.stdout.write(`  baseline maxmind get (IPv4): ${baseline.toFixed(2)} µs\n`);
  row('resolve, campaign mix (50 User-Agents)', mix);
  row('resolve, new User-Agent each time', fresh);
  process.stdout.write(
    `  heap used: ${Math.round(process.memoryUsage().heapUsed / 2 ** 20)} MiB, external ${Math.round(process.memoryUsage().external / 2 ** 20)} MiB\n`,
  );
}

void main();
