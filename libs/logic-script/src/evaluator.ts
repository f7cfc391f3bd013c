// Compiling and running scripts. evaluate() never throws: whatever goes wrong, the visitor is routed
// to the fallback key and the result says why.
import type { VisitorAttributes } from '@funnel/visitor-context';
import { compileScript, ScriptFunction } from './codegen';
import type { Diagnostic } from './diagnostics';
import { FALLBACK_ROUTE_KEY, isRouteKey } from './rules';
import { RuntimeEnv, RuntimeFailure } from './runtime';
import { analyze, ValidationResult } from './validate';

export interface EvaluationContext {
  visitor?: VisitorAttributes;
  trackingFields?: Record<string, string>;
  dataBuffer?: Record<string, string>;
  visitorTags?: Iterable<string> | string[];
  /** The instant the visitor arrived; time variables and helpers derive from it. */
  now: Date;
  /** Keys the node's connections accept; when given, any other key routes to the fallback. */
  routeKeys?: readonly string[];
}

export type EvaluationReasonCode =
  /** The script returned an accepted key. */
  | 'RETURNED'
  | 'INVALID_SCRIPT'
  | 'INVALID_CONTEXT'
  | 'RUNTIME_ERROR'
  /** The returned value does not match the route-key pattern. */
  | 'INVALID_ROUTE_KEY'
  /** The returned key is valid but no connection of the node accepts it. */
  | 'UNKNOWN_ROUTE_KEY';

/** Results may be shared between evaluations and are frozen. */
export interface EvaluationResult {
  routeKey: string;
  /** True when the fallback key was chosen because the script could not decide. */
  fallback: boolean;
  /** Human-readable explanation. */
  reason: string;
  reasonCode: EvaluationReasonCode;
}

function fallback(reasonCode: EvaluationReasonCode, reason: string): EvaluationResult {
  return { routeKey: FALLBACK_ROUTE_KEY, fallback: true, reason, reasonCode };
}

function returned(key: string): EvaluationResult {
  return Object.freeze({ routeKey: key, fallback: false, reason: `the script returned "${key}"`, reasonCode: 'RETURNED' as const });
}

/** The result of each literal key a script returns, made once per script. */
function literalAnswers(routeKeys: readonly string[]): Map<string, EvaluationResult> {
  return new Map(routeKeys.map((key) => [key, returned(key)]));
}

/** Bounds the per-script result cache when keys are computed (e.g. return strings.ToLower(city)). */
const MAX_CACHED_RESULTS = 256;

/** A script that passed validation, compiled to a JavaScript function. Reusable across any number of evaluations. */
export class CompiledScript {
  /** Results by returned key, shared (and frozen) so that a routine evaluation allocates nothing. */
  private readonly results = new Map<string, EvaluationResult>();
  private readonly env: RuntimeEnv;

  /** @internal */
  constructor(
    readonly code: string,
    /** Literal keys the script can return (see ValidationResult.routeKeys). */
    readonly routeKeys: readonly string[],
    readonly warnings: readonly Diagnostic[],
    private readonly execute: ScriptFunction,
    /** Results of the literal keys, which the generated function returns as they are. */
    answers: ReadonlyMap<string, EvaluationResult>,
  ) {
    this.env = new RuntimeEnv();
    for (const [key, result] of answers) this.results.set(key, result);
  }

  /** @internal Runs the script; throws what the script throws (evaluate() turns that into the fallback). */
  run(context: EvaluationContext): EvaluationResult {
    // Evaluations are synchronous, so one environment serves them all; only a re-entrant call (from a
    // visitorTags iterator calling evaluate) needs its own.
    const env = this.env.busy ? new RuntimeEnv() : this.env;
    env.busy = true;
    env.reset(context.visitor, context.trackingFields, context.dataBuffer, context.visitorTags, context.now);
    let value: ReturnType<ScriptFunction>;
    try {
      value = this.execute(env);
    } finally {
      env.release();
    }
    let result: EvaluationResult | undefined;
    if (typeof value === 'object' && value !== null) {
      // A literal key, answered by the generated function itself.
      result = value as EvaluationResult;
      value = result.routeKey;
    } else if (typeof value !== 'string') return fallback('RUNTIME_ERROR', 'the script ended without returning a route key');
    else result = this.results.get(value);
    if (result === undefined) {
      if (!isRouteKey(value)) {
        return fallback(
          'INVALID_ROUTE_KEY',
          `the script returned ${JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}...` : value)}, which is not a valid route key`,
        );
      }
      result = returned(value);
      if (this.results.size < MAX_CACHED_RESULTS) this.results.set(value, result);
    }
    const accepted = context.routeKeys;
    if (accepted !== undefined && value !== FALLBACK_ROUTE_KEY && !(Array.isArray(accepted) && accepted.includes(value))) {
      return fallback('UNKNOWN_ROUTE_KEY', `the script returned "${value}", which no connection of the node accepts`);
    }
    return result;
  }
}

export type CompileResult = { ok: true; script: CompiledScript } | { ok: false; result: ValidationResult };

export function compile(code: string): CompileResult {
  const analysis = analyze(code);
  if (!analysis.result.valid || !analysis.script) return { ok: false, result: analysis.result };
  try {
    const { routeKeys, warnings } = analysis.result;
    const answers = literalAnswers(routeKeys);
    const execute = compileScript(analysis.script, answers).run;
    return { ok: true, script: new CompiledScript(code, Object.freeze(routeKeys), Object.freeze(warnings), execute, answers) };
  } catch (error) {
    const message = `the compiler failed unexpectedly: ${error instanceof Error ? error.message : String(error)}`;
    return { ok: false, result: { valid: false, routeKeys: [], errors: [{ line: 1, column: 1, code: 'INTERNAL_ERROR', message }], warnings: [] } };
  }
}

// Compiled forms of scripts evaluated by source text, so a caller passing strings still compiles once.
const COMPILE_CACHE_SIZE = 128;
const compileCache = new Map<string, CompileResult>();

function compileCached(code: string): CompileResult {
  const cached = compileCache.get(code);
  if (cached) return cached;
  const compiled = compile(code);
  if (compileCache.size >= COMPILE_CACHE_SIZE) compileCache.delete(compileCache.keys().next().value as string);
  compileCache.set(code, compiled);
  return compiled;
}

export function evaluate(script: CompiledScript | string, context: EvaluationContext): EvaluationResult {
  try {
    let compiled: CompiledScript;
    if (script instanceof CompiledScript) compiled = script;
    else if (typeof script === 'string') {
      const outcome = compileCached(script);
      if (!outcome.ok) {
        const first = outcome.result.errors[0];
        return fallback('INVALID_SCRIPT', `the script is invalid: ${first ? `line ${first.line}, column ${first.column}: ${first.message}` : 'unknown error'}`);
      }
      compiled = outcome.script;
    } else return fallback('INVALID_SCRIPT', 'the script is neither source code nor a compiled script');

    if (typeof context !== 'object' || context === null) return fallback('INVALID_CONTEXT', 'the evaluation context is missing');
    return compiled.run(context);
  } catch (error) {
    if (error instanceof RuntimeFailure) return fallback('RUNTIME_ERROR', `the script failed: ${error.message}`);
    // Anything else (e.g. a stack overflow) is still the script's failure from the visitor's point of view.
    return fallback('RUNTIME_ERROR', `the script failed unexpectedly: ${error instanceof Error ? error.message : String(error)}`);
  }
}
