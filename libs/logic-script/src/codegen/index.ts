// A checked script as one JavaScript function (see generator.ts for what the generated code may contain).
import type { Script } from '../ast';
import type { RuntimeEnv, RuntimeValue } from '../runtime';
import { generateScript } from './generator';

export type ScriptFunction = (env: RuntimeEnv) => RuntimeValue | undefined;

/** Compiles a script that passed the checker; `source` is the generated code, for inspection. */
export function compileScript(script: Script): { run: ScriptFunction; source: string } {
  const generated = generateScript(script);
  // The only text in `source` is the generator's own: user text arrives escaped or as the values passed here.
  const build = new Function(...generated.parameters, generated.source) as (...values: unknown[]) => ScriptFunction;
  return { run: build(...generated.values), source: generated.source };
}
