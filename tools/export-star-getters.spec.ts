import { transformSync } from '@swc/core';
const { bindExportStarGetters } = require('./export-star-getters') as { bindExportStarGetters: (code: string) => string };

/** TypeScript compiled to CommonJS as the runtime loader (@swc-node/register) compiles it. */
const compile = (source: string, filename: string) =>
  transformSync(source, { filename, jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'commonjs' } }).code;

/** Evaluates CommonJS modules by name (`./name` requires), each compiled and rewritten once. */
function load(sources: Record<string, string>, rewrite: (code: string) => string) {
  const cache = new Map<string, Record<string, unknown>>();
  const requireModule = (name: string): Record<string, unknown> => {
    const key = name.replace(/^\.\//, '');
    const cached = cache.get(key);
    if (cached) return cached;
    const module = { exports: {} as Record<string, unknown> };
    cache.set(key, module.exports);
    const code = key in sources ? rewrite(compile(sources[key], `${key}.ts`)) : undefined;
    if (code === undefined) throw new Error(`no module ${name}`);
    new Function('exports', 'require', 'module', code)(module.exports, requireModule, module);
    // A module may replace its exports (`module.exports = ...`).
    cache.set(key, module.exports);
    return module.exports;
  };
  return requireModule;
}

const sources = {
  counter: 'export let count = 1;\nexport function bump(): void { count++; }',
  inner: "export * from './counter';",
  barrel: "export * from './inner';\nexport const own = 'own';",
};

describe('bindExportStarGetters: barrels take over each compiled module’s own getter', () => {
  it('rewrites SWC’s shared from[k] getter and leaves code without the helper as it is', () => {
    const barrel = compile(sources.barrel, 'barrel.ts');
    expect(barrel).toContain('return from[k];');
    expect(bindExportStarGetters(barrel)).not.toBe(barrel);
    expect(bindExportStarGetters(barrel)).toContain('Object.getOwnPropertyDescriptor(from, k)');
    const plain = compile(sources.counter, 'counter.ts');
    expect(bindExportStarGetters(plain)).toBe(plain);
  });

  it('gives a barrel of barrels the module’s own getter, which still reads the live binding', () => {
    const requireModule = load(sources, bindExportStarGetters);
    const barrel = requireModule('barrel');
    const counter = requireModule('counter');
    expect(Object.getOwnPropertyDescriptor(barrel, 'count')!.get).toBe(Object.getOwnPropertyDescriptor(counter, 'count')!.get);
    expect(barrel.count).toBe(1);
    (barrel.bump as () => void)();
    expect(barrel.count).toBe(2);
    expect(barrel.own).toBe('own');
    expect(Object.keys(barrel).sort()).toEqual(['bump', 'count', 'own']);
  });

  it('keeps SWC’s getter for a module that is not compiled ESM (plain CommonJS exports)', () => {
    const requireModule = load({ ...sources, counter: 'module.exports = { count: 1 };' }, bindExportStarGetters);
    const barrel = requireModule('barrel');
    expect(barrel.count).toBe(1);
    (requireModule('counter') as { count: number }).count = 5;
    expect(barrel.count).toBe(5);
  });

  it('answers what SWC’s own getters answer', () => {
    const rewritten = load(sources, bindExportStarGetters)('barrel');
    const original = load(sources, (code) => code)('barrel');
    expect({ count: rewritten.count, own: rewritten.own }).toEqual({ count: original.count, own: original.own });
  });
});
