// The routing engine alone, against hand-written JavaScript taking the same decisions: visitors walk
// the realistic funnel and the 200-node funnel (an entrance walk to a lander, then action 1 to an
// offer), the engine's walkSync on one side, the funnel's hand-written function on the other, with
// the same random draws and ids. Both must agree on every walk before they are timed.
//
// Times are the process's CPU time (user + system, process.cpuUsage) per walk: on this shared machine
// the wall time of a slice also holds the time the neighbours took the core; the wall figure is kept
// beside it. Ids come from a counter in the timed rounds (an edge mints ids cheaply; seededIds, the
// simulator's reproducible ids, draws five random characters per id and would weigh on both sides
// alike), from seededIds in the agreement check.
import { compileFunnel, CompiledFunnel, seededIds, seededRandom, walkSync, type RoutingSession, type WalkInput, type WalkResult } from '@funnel/routing';
import type { BenchAssets, HandResult, HandWalk } from './hand-walk';
import { BENCH_VISITORS, VISITOR_COUNT, actionInput, entranceInput } from './visitors';

const ROUNDS = Number(process.env.BENCH_ROUTING_ROUNDS ?? 7);
/** Visitor journeys per timed round (each one or two walks). */
const JOURNEYS = Number(process.env.BENCH_ROUTING_JOURNEYS ?? 50_000);
/** Journeys per slice of a round (the engine and the baseline alternate by slices). */
const CHUNK = 2_000;
const ID_TIME = Date.parse('2026-03-03T12:00:00Z');

export interface RoutingEngineFigure {
  funnel: string;
  /** Walks (one request of a visitor: entrance or action) per visitor journey, on average. */
  walksPerJourney: number;
  engine: WalkTime;
  handWritten: WalkTime;
  /** Median over the rounds of engine / hand-written CPU time (each round pairs the two). */
  ratio: number;
  ratios: number[];
  /** Median CPU µs of compileFunnel over these assets (once per funnel version at the edge; per request in the simulator). */
  compileMicros: number;
  /** Journeys checked for agreement before timing, and the different destinations they reached. */
  checked: number;
  destinations: number;
}

export interface WalkTime {
  /** Median CPU µs per walk over the rounds, and walks per CPU second. */
  microsPerWalk: number;
  walksPerSecond: number;
  /** Median wall-clock µs per walk. */
  wallMicrosPerWalk: number;
}

/** Ids of the asset-id length from a counter: reproducible and cheap. */
function counterIds(start: number): () => string {
  let n = start;
  return () => `h${(n++).toString(36).padStart(11, '0')}`;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** One visitor's journey as a walker sees it: the entrance, then action 1 when the entrance ended at a lander. */
type Walker = (input: WalkInput) => { session: RoutingSession; landed: boolean; key: string };

function engineWalker(funnel: CompiledFunnel, pageTypeOf: ReadonlyMap<string, string>): Walker {
  const run = walkSync;
  return (input) => {
    const result: WalkResult = run(funnel, input);
    const d = result.destination;
    const idPage = d.type === 'page' ? d.idPage : '';
    return {
      session: result.session,
      landed: pageTypeOf.get(idPage) === 'lander',
      key: `${d.idNode}|${idPage}|${result.url}|${result.hits.map((h) => h.hitId).join(',')}`,
    };
  };
}

function handWalker(walk: HandWalk, pageTypeOf: ReadonlyMap<string, string>): Walker {
  return (input) => {
    const r: HandResult = walk(input);
    return { session: r.session, landed: pageTypeOf.get(r.idPage) === 'lander', key: `${r.idNode}|${r.idPage}|${r.url}|${r.hits.join(',')}` };
  };
}

/** Walks `journeys` visitors in turn from `first`; answers the walks done and a checksum of the answers. */
function journeys(walker: Walker, idTrafficSource: string, random: () => number, ids: () => string, first: number, count: number, keys?: string[]) {
  let walks = 0;
  let sink = 0;
  for (let j = first; j < first + count; j++) {
    const visitor = BENCH_VISITORS[j % VISITOR_COUNT];
    const entered = walker(entranceInput(visitor, idTrafficSource, random, ids));
    walks++;
    sink += entered.key.length;
    keys?.push(entered.key);
    if (!entered.landed) continue;
    const acted = walker(actionInput(visitor, entered.session, random, ids));
    walks++;
    sink += acted.key.length;
    keys?.push(acted.key);
  }
  return { walks, sink };
}

/** Median CPU µs of compileFunnel(assets) over rounds of compiles, after a warm-up. */
function compileTime(assets: BenchAssets): number {
  const compile = compileFunnel;
  let sink = 0;
  for (let i = 0; i < 200; i++) sink += compile(assets).warnings.length;
  const perRound: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const before = process.cpuUsage();
    for (let i = 0; i < 200; i++) sink += compile(assets).warnings.length;
    const used = process.cpuUsage(before);
    perRound.push((used.user + used.system) / 200);
  }
  if (sink < 0) throw new Error('unreachable');
  return median(perRound);
}

/**
 * Walks `visitors` visitors through the engine and through the hand-written function with the same
 * seeded draws and ids; throws at the first walk whose destination, URL or hit ids differ. Answers
 * how many different destinations (node and page) were reached.
 */
export function sameWalks(name: string, assets: BenchAssets, handWritten: (assets: BenchAssets) => HandWalk, visitors: number): { destinations: number } {
  const pageTypeOf = new Map(assets.pages.map((p) => [p.idPage, p.pageType]));
  const idTrafficSource = assets.trafficSources[0].idTrafficSource;
  const seeded = (seed: number) => ({ random: seededRandom(seed), ids: seededIds(seededRandom(seed + 1), ID_TIME) });
  const engineKeys: string[] = [];
  const handKeys: string[] = [];
  const e = seeded(21);
  const h = seeded(21);
  journeys(engineWalker(compileFunnel(assets), pageTypeOf), idTrafficSource, e.random, e.ids, 0, visitors, engineKeys);
  journeys(handWalker(handWritten(assets), pageTypeOf), idTrafficSource, h.random, h.ids, 0, visitors, handKeys);
  const differ = engineKeys.findIndex((key, i) => key !== handKeys[i]);
  if (differ >= 0 || engineKeys.length !== handKeys.length) {
    const at = differ >= 0 ? differ : Math.min(engineKeys.length, handKeys.length);
    throw new Error(`${name}: the engine and the hand-written walk disagree at walk ${at}:\n  engine ${engineKeys[at]}\n  hand   ${handKeys[at]}`);
  }
  return { destinations: new Set(engineKeys.map((key) => key.split('|').slice(0, 2).join('|'))).size };
}

export function measureRouting(name: string, assets: BenchAssets, handWritten: (assets: BenchAssets) => HandWalk): RoutingEngineFigure {
  const compiled = compileFunnel(assets);
  const pageTypeOf = new Map(assets.pages.map((p) => [p.idPage, p.pageType]));
  const engine = engineWalker(compiled, pageTypeOf);
  const hand = handWalker(handWritten(assets), pageTypeOf);
  const idTrafficSource = assets.trafficSources[0].idTrafficSource;
  const stream = (seed: number) => ({ random: seededRandom(seed), ids: counterIds(seed * 1e9) });

  // Same decisions, same answers: otherwise the comparison means nothing.
  const checked = 2000;
  const { destinations } = sameWalks(name, assets, handWritten, checked);

  // Warm-up, then rounds that pair the two (interleaved, so both see the same machine state).
  const engineStream = stream(1);
  const handStream = stream(1);
  let sink = 0;
  let next = 0;
  for (let i = 0; i < 3; i++) {
    sink += journeys(engine, idTrafficSource, engineStream.random, engineStream.ids, next, JOURNEYS / 2).sink;
    sink += journeys(hand, idTrafficSource, handStream.random, handStream.ids, next, JOURNEYS / 2).sink;
    next += JOURNEYS / 2;
  }
  // A round alternates the two in slices of CHUNK journeys (the order flipping each slice), so that
  // the neighbours' load, which swings within seconds on this machine, falls on both alike.
  const sides = [
    { walker: hand, s: handStream, cpu: [] as number[], wall: [] as number[] },
    { walker: engine, s: engineStream, cpu: [] as number[], wall: [] as number[] },
  ];
  let walks = 0;
  for (let round = 0; round < ROUNDS; round++) {
    const cpu = [0, 0];
    const wall = [0, 0];
    const walked = [0, 0];
    for (let slice = 0; slice < JOURNEYS / CHUNK; slice++) {
      for (const i of slice % 2 ? [1, 0] : [0, 1]) {
        const { walker, s } = sides[i];
        const cpuBefore = process.cpuUsage();
        const started = process.hrtime.bigint();
        const done = journeys(walker, idTrafficSource, s.random, s.ids, next, CHUNK);
        wall[i] += Number(process.hrtime.bigint() - started) / 1000;
        const used = process.cpuUsage(cpuBefore);
        cpu[i] += used.user + used.system;
        walked[i] += done.walks;
        sink += done.sink;
      }
      next += CHUNK;
    }
    sides.forEach((side, i) => {
      side.cpu.push(cpu[i] / walked[i]);
      side.wall.push(wall[i] / walked[i]);
    });
    walks = walked[1];
  }
  if (sink === 0) throw new Error('unreachable: walk answers are never empty');
  const [handSide, engineSide] = sides;
  const ratios = engineSide.cpu.map((micros, i) => micros / handSide.cpu[i]);
  const figure = (side: (typeof sides)[number]): WalkTime => ({
    microsPerWalk: median(side.cpu),
    walksPerSecond: 1e6 / median(side.cpu),
    wallMicrosPerWalk: median(side.wall),
  });
  return {
    funnel: name,
    walksPerJourney: walks / JOURNEYS,
    engine: figure(engineSide),
    handWritten: figure(handSide),
    ratio: median(ratios),
    ratios,
    compileMicros: compileTime(assets),
    checked,
    destinations,
  };
}
