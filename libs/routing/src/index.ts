// The routing engine: walks a funnel for a visitor, pure and deterministic given its inputs (the funnel
// and its assets, the visitor, the session, the step, a random source and an id source).
//
//   compileFunnel(assets) -> CompiledFunnel; startWalk / walk / walkSync -> WalkResult
//   seededRandom(seed), seededIds(random, time) -> reproducible chance and ids (simulator, tests)
export * from './model';
export { compileFunnel, startWalk, walk, walkSync, seededRandom, seededIds } from './engine';
export * from './middleware-answer';
