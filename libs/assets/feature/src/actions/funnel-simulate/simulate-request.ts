// The simulator's request, checked: the DTO's rules (steps, seed, middleware answers), then the visitor
// as the dry-run visitor context of the evaluate routes (plus `ip`), then one of idFunnel and funnel.
// Every problem is a 400 naming its field.
import { isIP } from 'node:net';
import { ErrorCodes, ErrorDetail, SimulateFunnelRequestDto, SimulateMiddlewareAnswer, ServiceError, generateAssetId, validateBody } from '@funnel/contracts';
import { DryRunInput, dryRunInstant, dryRunProblems } from '@funnel/visitor-context';
import type { RoutingStep } from '@funnel/routing';

export interface SimulationRequest {
  /** A stored funnel's id, or undefined when `funnel` (an unsaved record) is given. */
  idFunnel?: string;
  funnel?: Record<string, unknown>;
  visitor: DryRunInput;
  ip: string;
  /** The instant of every step: the visitor's `time`, else now. */
  time: number;
  steps: RoutingStep[];
  /** The seed given, else a new one (answered, so the walk can be replayed). */
  seed: string | number;
  middleware: Readonly<Record<string, SimulateMiddlewareAnswer>>;
}

/** The visitor's fields besides the dry-run context's. */
const IP_FIELD = 'ip';
/** Dry-run fields that mean nothing in a walk (the node's connections give the route keys). */
const NOT_IN_A_WALK = ['routeKeys'];

/** The problems of the `visitor` field, each named under `visitor`. */
function visitorProblems(visitor: Record<string, unknown>): ErrorDetail[] {
  const { [IP_FIELD]: ip, ...context } = visitor;
  const problems: ErrorDetail[] = dryRunProblems(context).map((p) => ({ ...p, field: p.field ? `visitor.${p.field}` : 'visitor' }));
  for (const field of NOT_IN_A_WALK) {
    if (field in context)
      problems.push({
        field: `visitor.${field}`,
        code: 'unknownField',
        message: `visitor.${field} is not taken here: a walk routes on the funnel's connections`,
      });
  }
  if (ip !== undefined && (typeof ip !== 'string' || isIP(ip) === 0))
    problems.push({ field: 'visitor.ip', code: 'isIp', message: 'visitor.ip must be an IPv4 or IPv6 address' });
  return problems;
}

/** The request body checked (a 400 naming every problem's field otherwise). `now` gives the time when the visitor has none. */
export function parseSimulationRequest(body: unknown, now: () => Date = () => new Date()): SimulationRequest {
  const dto = validateBody(SimulateFunnelRequestDto, body);
  const problems = visitorProblems(dto.visitor);
  if (dto.idFunnel === undefined && dto.funnel === undefined)
    problems.push({ field: 'idFunnel', code: 'required', message: 'idFunnel (a stored funnel) or funnel (an unsaved record) is required' });
  if (dto.idFunnel !== undefined && dto.funnel !== undefined)
    problems.push({ field: 'funnel', code: 'notAllowed', message: 'give idFunnel (a stored funnel) or funnel (an unsaved record), not both' });
  if (problems.length) throw ServiceError.badRequest(ErrorCodes.VALIDATION, `invalid body: ${problems[0].message}`, problems);
  const { [IP_FIELD]: ip, ...context } = dto.visitor;
  const visitor = context as unknown as DryRunInput;
  return {
    ...(dto.idFunnel !== undefined ? { idFunnel: dto.idFunnel } : { funnel: dto.funnel }),
    visitor,
    ip: typeof ip === 'string' ? ip : '',
    time: dryRunInstant(visitor, now()).getTime(),
    steps: dto.steps.map((step): RoutingStep => (step.entrance ? { entrance: { ...step.entrance } } : { action: step.action! })),
    seed: dto.seed ?? generateAssetId(),
    middleware: dto.middleware ?? {},
  };
}
