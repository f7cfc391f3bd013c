// The walk: compileFunnel once per funnel version, then startWalk (or its drivers walk / walkSync) per request.
import { compileFunnel as compileGraph } from './compile/compile-funnel';
import { CompiledGraph } from './compile/graph';
import type { CompiledFunnel, FunnelAssets, MiddlewareAnswer, MiddlewareCall, WalkInput, WalkOutcome, WalkResult } from './model';
import { startAction, startEntrance } from './walk/start';

export { seededIds, seededRandom } from './random';

/** Indexes a funnel and its assets for walking; compiles each logic script once. */
export function compileFunnel(assets: FunnelAssets): CompiledFunnel {
  return compileGraph(assets);
}

/** Walks one step of a visitor synchronously, pausing at a middleware node for its answer. */
export function startWalk(funnel: CompiledFunnel, input: WalkInput): WalkOutcome {
  if (!(funnel instanceof CompiledGraph)) throw new TypeError('startWalk takes a funnel compiled by compileFunnel');
  const { step } = input;
  return 'entrance' in step ? startEntrance(funnel, input, step.entrance) : startAction(funnel, input, step.action);
}

/** Walks one step, asking `middleware` for each middleware node's answer (a rejection takes the default route). */
export async function walk(funnel: CompiledFunnel, input: WalkInput, middleware: (call: MiddlewareCall) => Promise<MiddlewareAnswer>): Promise<WalkResult> {
  let outcome = startWalk(funnel, input);
  while (!outcome.done) {
    let answer: MiddlewareAnswer;
    try {
      answer = await middleware(outcome.call);
    } catch (error) {
      answer = { failure: error instanceof Error ? error.message : String(error) };
    }
    outcome = outcome.resume(answer);
  }
  return outcome.result;
}

/** Walks one step with middleware answers known up front (idNode -> answer; a node without one fails to its default). */
export function walkSync(funnel: CompiledFunnel, input: WalkInput, answers: Readonly<Record<string, MiddlewareAnswer>> = {}): WalkResult {
  let outcome = startWalk(funnel, input);
  while (!outcome.done) outcome = outcome.resume(answers[outcome.call.idNode] ?? { failure: 'no answer was given for this middleware node' });
  return outcome.result;
}
