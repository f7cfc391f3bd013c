// A checked script as one JavaScript function (see generator.ts for what the generated code may contain).
import type { Script } from '../ast';
import type { RuntimeEnv, RuntimeValue } from '../runtime';
import { generateScript } from './generator';

/** Runs a script: the value it returns, or for a literal key, that key's answer (see compileScript). */
export type ScriptFunction = (env: RuntimeEnv) => RuntimeValue | object | undefined;

/**
 * Compiles a script that passed the checker; `source` is the generated code, for inspection. Where the
 * script returns a literal key that `answers` holds, the function returns the answer instead, so the
 * caller need not look the key up.
 */
export function compileScript(script: Script, answers: ReadonlyMap<string, object> = new Map()): { run: ScriptFunction; source: string } {
  const generated = generateScript(script, answers);
  // The only text in `source` is the generator's own: user text arrives escaped or as the values passed here.
  const build = new Function(...generated.parameters, generated.source) as (...values: unknown[]) => ScriptFunction;
  return { run: build(...generated.values), source: generated.source };
}
