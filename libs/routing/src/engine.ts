// The walk. (Contract first: the implementation lands with issue 21's engine work.)
import type { CompiledFunnel, FunnelAssets, MiddlewareAnswer, MiddlewareCall, RandomSource, IdSource, WalkInput, WalkOutcome, WalkResult } from './model';

/** Indexes a funnel and its assets for walking; compiles each logic script once. */
export function compileFunnel(_assets: FunnelAssets): CompiledFunnel {
  throw new Error('compileFunnel: not built yet');
}

/** Walks one step of a visitor synchronously, pausing at a middleware node for its answer. */
export function startWalk(_funnel: CompiledFunnel, _input: WalkInput): WalkOutcome {
  throw new Error('startWalk: not built yet');
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

/** A reproducible RandomSource from a seed. */
export function seededRandom(_seed: string | number): RandomSource {
  throw new Error('seededRandom: not built yet');
}

/** Reproducible ids (asset-id format) drawn from a RandomSource, for the simulator and tests. */
export function seededIds(_random: RandomSource, _time: number): IdSource {
  throw new Error('seededIds: not built yet');
}
