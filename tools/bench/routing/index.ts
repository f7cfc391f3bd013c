// The bench section `routing` (BENCH_ONLY=routing): the routing engine alone against hand-written
// JavaScript taking the same decisions (realistic funnel, 200-node funnel), and POST /funnel/simulate/
// over HTTP (main.ts pairs it with the funnel's find/byId).
// Run the engine part alone: node -r ./tools/register.js tools/bench/routing/index.ts
import { measureRouting, type RoutingEngineFigure } from './engine.bench';
import { handWrittenLarge, largeAssets } from './large-funnel';
import { handWrittenRealistic, realisticAssets } from './realistic-funnel';

export { realisticAssets } from './realistic-funnel';
export { checkSimulateAnswer, seedFunnelAssets, simulateBodies } from './simulate.bench';

export interface RoutingRow {
  name: string;
  value: string;
  ratio: string;
  target: string;
}

const micros = (n: number) => `${n.toFixed(n < 10 ? 2 : 1)} µs`;
const perSecond = (n: number) => Math.round(n).toLocaleString('en-US');

function rows(f: RoutingEngineFigure, targets: { ratio: string; micros?: string }): RoutingRow[] {
  const walks = `${f.walksPerJourney.toFixed(2)} walks per visitor; ${f.checked.toLocaleString('en-US')} visitors checked walk for walk, ${f.destinations} destinations`;
  return [
    {
      name: `routing: hand-written JavaScript, ${f.funnel} (baseline)`,
      value: `${micros(f.handWritten.microsPerWalk)} CPU per walk (${perSecond(f.handWritten.walksPerSecond)} walks per CPU second; wall ${micros(f.handWritten.wallMicrosPerWalk)})`,
      ratio: '1.00',
      target: '',
    },
    {
      name: `routing: engine alone (walkSync), ${f.funnel}`,
      value: `${micros(f.engine.microsPerWalk)} CPU per walk (${perSecond(f.engine.walksPerSecond)} walks per CPU second; wall ${micros(f.engine.wallMicrosPerWalk)}; ${walks}); compileFunnel ${micros(f.compileMicros)} CPU`,
      ratio: `${f.ratio.toFixed(2)}x the hand-written; rounds ${f.ratios.map((r) => r.toFixed(2)).join(', ')}`,
      target: [`<= ${targets.ratio}`, targets.micros && `< ${targets.micros} per walk`].filter(Boolean).join('; '),
    },
  ];
}

/** The engine-alone rows: each funnel's hand-written baseline, then the engine with its ratio. */
export function routingEngineRows(): RoutingRow[] {
  return [
    ...rows(
      measureRouting('realistic funnel (root, rotator, condition, 20-line logic script, lander and offer groups)', realisticAssets(), handWrittenRealistic),
      {
        ratio: '3x',
        micros: '20 µs',
      },
    ),
    ...rows(measureRouting('200-node funnel of the funnel bench', largeAssets(), handWrittenLarge), { ratio: '3x' }),
  ];
}

if (require.main === module) {
  process.stdout.write('| measure | figure | ratio | target |\n|---|---|---|---|\n');
  for (const r of routingEngineRows()) process.stdout.write(`| ${r.name} | ${r.value} | ${r.ratio} | ${r.target} |\n`);
}
