import { MAX_JSON_DEPTH, jsonNestsDeeperThan } from './json-body';

describe('jsonNestsDeeperThan', () => {
  const objects = (levels: number) => '{"a":'.repeat(levels - 1) + '{}' + '}'.repeat(levels - 1);
  const arrays = (levels: number) => '['.repeat(levels) + ']'.repeat(levels);

  it('accepts up to the limit and refuses one level more, for objects and arrays alike', () => {
    expect(jsonNestsDeeperThan(objects(MAX_JSON_DEPTH), MAX_JSON_DEPTH)).toBe(false);
    expect(jsonNestsDeeperThan(objects(MAX_JSON_DEPTH + 1), MAX_JSON_DEPTH)).toBe(true);
    expect(jsonNestsDeeperThan(arrays(MAX_JSON_DEPTH), MAX_JSON_DEPTH)).toBe(false);
    expect(jsonNestsDeeperThan(arrays(MAX_JSON_DEPTH + 1), MAX_JSON_DEPTH)).toBe(true);
    expect(jsonNestsDeeperThan(`[${'{"a":['.repeat(40)}${']}'.repeat(40)}]`, MAX_JSON_DEPTH)).toBe(true);
  });

  it('counts depth, not the number of brackets', () => {
    expect(jsonNestsDeeperThan(JSON.stringify(Array.from({ length: 1000 }, () => ({ a: [1] }))), 3)).toBe(false);
  });

  it('ignores brackets inside strings, escaped quotes included', () => {
    expect(jsonNestsDeeperThan(JSON.stringify({ text: '['.repeat(500) }), 2)).toBe(false);
    expect(jsonNestsDeeperThan(JSON.stringify({ text: `\\"${'{'.repeat(100)}"\\` }), 2)).toBe(false);
    expect(jsonNestsDeeperThan(`{"a\\"[[[[":[[1]]}`, 2)).toBe(true);
  });
});
