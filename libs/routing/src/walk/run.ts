// Drives a walk from node to node until a page, a URL, a dead end, or a middleware node that waits
// for its answer.
import { MAX_SERVER_STEPS, type MiddlewareAnswer, type WalkOutcome } from '../model';
import { END, type NodeStep, type Pause } from '../compile/graph';
import type { Walk } from './walk';

export function runFrom(walk: Walk, idNode: string): WalkOutcome {
  let current = idNode;
  for (;;) {
    const node = walk.graph.nodes.get(current);
    if (node === undefined) {
      walk.deadEnd(current, 'missingNode', `node ${current} is not a node of funnel ${walk.graph.idFunnel}`);
      return { done: true, result: walk.finish() };
    }
    if (node.family.serverSide && ++walk.serverSteps > MAX_SERVER_STEPS) {
      walk.deadEnd(
        node.idNode,
        'loopCut',
        `the walk was cut at node ${node.idNode} (${node.nodeName}): more than ${MAX_SERVER_STEPS} server-side nodes in one request, a loop`,
      );
      return { done: true, result: walk.finish() };
    }
    walk.visit(node);
    const next = node.family.run(node, walk);
    if (typeof next === 'string') current = next;
    else return settle(walk, next);
  }
}

/** The outcome of a node that did not name a next node. */
export function settle(walk: Walk, step: Exclude<NodeStep, string>): WalkOutcome {
  if (step === END) return { done: true, result: walk.finish() };
  return paused(walk, step);
}

function paused(walk: Walk, pause: Pause): WalkOutcome {
  let resumed = false;
  return {
    done: false,
    call: pause.call,
    resume(answer: MiddlewareAnswer): WalkOutcome {
      if (resumed) throw new Error('this walk was already resumed with an answer for this middleware node');
      resumed = true;
      const next = pause.resume(answer);
      return typeof next === 'string' ? runFrom(walk, next) : settle(walk, next);
    },
  };
}
