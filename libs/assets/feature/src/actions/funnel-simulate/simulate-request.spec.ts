import { ServiceError, generateAssetId } from '@funnel/contracts';
import { parseSimulationRequest } from './simulate-request';

const idFunnel = generateAssetId();
const idTrafficSource = generateAssetId();
const valid = (over: Record<string, unknown> = {}) => ({
  idFunnel,
  visitor: { visitor: { country: 'DE' }, time: '2025-03-01T18:30:00Z' },
  steps: [{ entrance: { idTrafficSource } }, { action: 1 }],
  ...over,
});

/** The 400's details of a body, or a failure when it is accepted. */
function problemsOf(body: unknown): { field: string; code: string; message: string }[] {
  try {
    parseSimulationRequest(body);
  } catch (error) {
    if (error instanceof ServiceError && error.status === 400) return error.details as { field: string; code: string; message: string }[];
    throw error;
  }
  throw new Error('the body was accepted');
}

describe('the simulator request', () => {
  it('given a valid body, answers the steps as the engine takes them, the visitor time as the instant and the seed given', () => {
    const request = parseSimulationRequest(valid({ seed: 'replay-1', middleware: { [generateAssetId()]: 'call' } }));
    expect(request).toMatchObject({
      idFunnel,
      seed: 'replay-1',
      time: Date.UTC(2025, 2, 1, 18, 30),
      ip: '',
      steps: [{ entrance: { idTrafficSource } }, { action: 1 }],
      visitor: { visitor: { country: 'DE' } },
    });
    expect(request.funnel).toBeUndefined();
  });

  it('given no seed, answers a new one; given no time, takes now; keeps the visitor ip apart from its context', () => {
    const now = new Date(Date.UTC(2025, 0, 2));
    const request = parseSimulationRequest(valid({ visitor: { visitor: {}, ip: '203.0.113.7' } }), () => now);
    expect(request.seed).toEqual(expect.any(String));
    expect(String(request.seed).length).toBeGreaterThan(0);
    expect(request.time).toBe(now.getTime());
    expect(request.ip).toBe('203.0.113.7');
    expect(request.visitor).toEqual({ visitor: {} });
  });

  it('takes a whole number as seed', () => {
    expect(parseSimulationRequest(valid({ seed: 42 })).seed).toBe(42);
  });

  it.each([
    ['no steps', { steps: [] }, 'steps'],
    ['more than 20 steps', { steps: Array.from({ length: 21 }, () => ({ action: 1 })) }, 'steps'],
    ['a step with both entrance and action', { steps: [{ entrance: { idTrafficSource }, action: 1 }] }, 'steps'],
    ['a step with neither', { steps: [{}] }, 'steps'],
    ['action 0', { steps: [{ action: 0 }] }, 'steps.0.action'],
    ['action 65', { steps: [{ action: 65 }] }, 'steps.0.action'],
    ['an entrance without a traffic source', { steps: [{ entrance: {} }] }, 'steps.0.entrance.idTrafficSource'],
    ['an entrance node id that is not an id', { steps: [{ entrance: { idTrafficSource, idNode: 'x' } }] }, 'steps.0.entrance.idNode'],
    ['a negative entrance cost', { steps: [{ entrance: { idTrafficSource, cost: '-1' } }] }, 'steps.0.entrance.cost'],
    ['a relative entrance url', { steps: [{ entrance: { idTrafficSource, url: '/fts/abc' } }] }, 'steps.0.entrance.url'],
    ['a seed that is an object', { seed: { a: 1 } }, 'seed'],
    ['an empty seed', { seed: '' }, 'seed'],
    ['a middleware answer that is neither { routeId } nor "call"', { middleware: { [generateAssetId()]: 'later' } }, 'middleware'],
    ['a middleware answer keyed by something else than a node id', { middleware: { nope: 'call' } }, 'middleware'],
    ['no visitor', { visitor: undefined }, 'visitor'],
    ['a visitor attribute of the wrong type', { visitor: { visitor: { country: 7 } } }, 'visitor.visitor.country'],
    ['an unknown visitor attribute', { visitor: { visitor: { planet: 'Mars' } } }, 'visitor.visitor.planet'],
    ['a time without a zone', { visitor: { visitor: {}, time: '2025-03-01T18:30:00' } }, 'visitor.time'],
    ['an ip that is not an address', { visitor: { visitor: {}, ip: 'localhost' } }, 'visitor.ip'],
    ['route keys, which a walk does not take', { visitor: { visitor: {}, routeKeys: ['a'] } }, 'visitor.routeKeys'],
    ['neither idFunnel nor funnel', { idFunnel: undefined }, 'idFunnel'],
    ['both idFunnel and funnel', { funnel: { funnelName: 'draft' } }, 'funnel'],
    ['an idFunnel that is not an id', { idFunnel: 'short' }, 'idFunnel'],
  ])('refuses %s with a 400 naming the field', (_what, over, field) => {
    const problems = problemsOf(valid(over));
    expect(problems.map((p) => p.field)).toContain(field);
  });

  it('names the step that is not one request', () => {
    const [problem] = problemsOf(valid({ steps: [{ action: 1 }, { entrance: { idTrafficSource }, action: 2 }] }));
    expect(problem.message).toContain('steps[1]');
  });
});
