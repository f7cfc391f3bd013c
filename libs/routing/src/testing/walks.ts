// Short ways to walk a compiled funnel in tests: seeded random and ids, entrance or action.
import { seededIds, seededRandom, walkSync } from '../engine';
import type { CompiledFunnel, MiddlewareAnswer, RoutingSession, RoutingStep, RoutingVisitor, WalkResult } from '../model';

export interface WalkOptions {
  seed?: string | number;
  session?: RoutingSession | null;
  answers?: Readonly<Record<string, MiddlewareAnswer>>;
}

/** One step of a visitor, reproducible from the seed (default 1). */
export function walkStep(funnel: CompiledFunnel, visitor: RoutingVisitor, step: RoutingStep, options: WalkOptions = {}): WalkResult {
  const random = seededRandom(options.seed ?? 1);
  return walkSync(funnel, { visitor, session: options.session ?? null, step, random, ids: seededIds(random, visitor.time) }, options.answers);
}
