export { seededRandom } from './seeded-random';
export { seededIds } from './seeded-ids';
export { sharesOf, cumulativeOf, pick } from './shares';
