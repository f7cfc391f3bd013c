// Property tests explore new random cases on every local run; in CI (CI=true) they replay one fixed
// seed so that a landing never depends on the luck of the draw. FC_SEED picks a seed explicitly
// (e.g. to replay a failure printed by fast-check).
const fc = require('fast-check');

const seed = process.env.FC_SEED ?? (process.env.CI ? '20261123' : undefined);
if (seed !== undefined) fc.configureGlobal({ seed: Number(seed) });
