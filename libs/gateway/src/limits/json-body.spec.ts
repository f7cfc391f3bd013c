import { MAX_JSON_DEPTH, jsonShapeProblem } from './json-body';

/** Whether JSON text nests deeper than `maxDepth` (the depth part of jsonShapeProblem). */
const nestsDeeperThan = (text: string, maxDepth: number) => jsonShapeProblem(text, maxDepth, Number.MAX_SAFE_INTEGER) === 'too-deep';

describe('jsonShapeProblem: depth', () => {
  const objects = (levels: number) => '{"a":'.repeat(levels - 1) + '{}' + '}'.repeat(levels - 1);
  const arrays = (levels: number) => '['.repeat(levels) + ']'.repeat(levels);

  it('accepts up to the limit and refuses one level more, for objects and arrays alike', () => {
    expect(nestsDeeperThan(objects(MAX_JSON_DEPTH), MAX_JSON_DEPTH)).toBe(false);
    expect(nestsDeeperThan(objects(MAX_JSON_DEPTH + 1), MAX_JSON_DEPTH)).toBe(true);
    expect(nestsDeeperThan(arrays(MAX_JSON_DEPTH), MAX_JSON_DEPTH)).toBe(false);
    expect(nestsDeeperThan(arrays(MAX_JSON_DEPTH + 1), MAX_JSON_DEPTH)).toBe(true);
    expect(nestsDeeperThan(`[${'{"a":['.repeat(40)}${']}'.repeat(40)}]`, MAX_JSON_DEPTH)).toBe(true);
  });

  it('counts depth, not the number of brackets', () => {
    expect(nestsDeeperThan(JSON.stringify(Array.from({ length: 1000 }, () => ({ a: [1] }))), 3)).toBe(false);
  });

  it('ignores brackets inside strings, escaped quotes included', () => {
    expect(nestsDeeperThan(JSON.stringify({ text: '['.repeat(500) }), 2)).toBe(false);
    expect(nestsDeeperThan(JSON.stringify({ text: `\\"${'{'.repeat(100)}"\\` }), 2)).toBe(false);
    expect(nestsDeeperThan(`{"a\\"[[[[":[[1]]}`, 2)).toBe(true);
    // A string ending in a backslash (escaped itself) still ends at its quote.
    expect(nestsDeeperThan(JSON.stringify({ a: 'x\\', b: [[1]] }), 2)).toBe(true);
    expect(nestsDeeperThan(JSON.stringify({ a: 'x\\\\', b: [[1]] }), 2)).toBe(true);
  });
});

describe('jsonShapeProblem', () => {
  const fields = (n: number) => JSON.stringify(Object.fromEntries(Array.from({ length: n }, (_, i) => [`f${i}`, i])));

  it('given an object of more fields than the bound at any depth, then it says so; up to the bound, nothing', () => {
    expect(jsonShapeProblem(fields(1000), MAX_JSON_DEPTH, 1000)).toBeUndefined();
    expect(jsonShapeProblem(fields(1001), MAX_JSON_DEPTH, 1000)).toBe('too-many-fields');
    expect(jsonShapeProblem(`{"a":[1,${fields(1001)}]}`, MAX_JSON_DEPTH, 1000)).toBe('too-many-fields');
  });

  it('counts each object on its own, and neither array items nor colons inside strings', () => {
    expect(jsonShapeProblem(JSON.stringify(Array.from({ length: 50 }, () => JSON.parse(fields(100)))), MAX_JSON_DEPTH, 100)).toBeUndefined();
    expect(jsonShapeProblem(JSON.stringify({ a: { b: JSON.parse(fields(60)) }, c: JSON.parse(fields(60)) }), MAX_JSON_DEPTH, 100)).toBeUndefined();
    expect(jsonShapeProblem(JSON.stringify({ list: Array.from({ length: 5000 }, (_, i) => i) }), MAX_JSON_DEPTH, 100)).toBeUndefined();
    expect(jsonShapeProblem(JSON.stringify({ text: ':'.repeat(5000), 'k:e:y': '":"' }), MAX_JSON_DEPTH, 100)).toBeUndefined();
  });
});
