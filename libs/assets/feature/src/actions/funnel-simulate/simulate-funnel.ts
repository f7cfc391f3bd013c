// The simulator: a funnel (stored, or unsaved and checked as validate/ checks it) and every asset it
// names loaded from the caller's account, compiled once, then each request of the body walked in
// turn with the session carried over; the answer names every asset by id and name. Nothing is
// recorded; nothing is sent except to middleware destinations the request says to call.
import { AssetKindDescriptor, CallerContext, ErrorCodes, ServiceError } from '@funnel/contracts';
import type { FunnelRecord, SecretCipher } from '@funnel/assets-domain';
import type { OutboundHttp } from '@funnel/platform';
import { FUNNEL_ASSET_LISTS, RoutingSession, RoutingWarning, compileFunnel, seededIds, seededRandom, walk } from '@funnel/routing';
import type { KindActionAssets } from '../../asset-actions';
import { loadFunnelAssets } from './funnel-assets';
import { assetNames, nameIds } from './asset-names';
import { simulatorMiddleware } from './middleware-answers';
import { SimulationRequest, parseSimulationRequest } from './simulate-request';

export interface SimulateOptions {
  secrets: SecretCipher;
  http: OutboundHttp;
}

/** The funnel a simulation walks: the stored one (a 404 when it is not the caller's or is deleted), or the unsaved one when it passes validate's checks. */
async function funnelOf(kind: AssetKindDescriptor, context: CallerContext, request: SimulationRequest, assets: KindActionAssets): Promise<FunnelRecord> {
  if (request.idFunnel !== undefined) {
    const [stored] = await assets.find(kind.kind, context, [request.idFunnel]);
    if (!stored) throw ServiceError.notFound(ErrorCodes.ASSET_NOT_FOUND, `${kind.kind} ${request.idFunnel} not found`);
    return stored as unknown as FunnelRecord;
  }
  const { errors, code, record } = await assets.checked(kind, context, request.funnel);
  if (!record) {
    const details = errors.map((problem) => ({ ...problem, field: problem.field ? `funnel.${problem.field}` : 'funnel' }));
    throw ServiceError.badRequest(code, `invalid funnel: ${details[0]?.message ?? 'it does not pass validate'}`, details);
  }
  return record as unknown as FunnelRecord;
}

/**
 * A returning visitor's session before the first request, when the visitor holds tags or data
 * already (`visitorTags`, `dataBuffer`); null for a new visitor.
 */
function sessionBefore(request: SimulationRequest, idFunnel: string, visitorId: () => string): RoutingSession | null {
  const { visitorTags, dataBuffer } = request.visitor;
  if (!visitorTags?.length && !dataBuffer) return null;
  return {
    visitorId: visitorId(),
    startedAt: request.time,
    idFunnel,
    idTrafficSource: '',
    currentNode: '',
    lastHitId: '',
    currentPage: '',
    trackingFields: {},
    cost: '0',
    tags: [...new Set(visitorTags ?? [])].sort(),
    sticky: {},
    urlBuffer: { ...(dataBuffer ?? {}) },
  };
}

export async function simulateFunnel(
  kind: AssetKindDescriptor,
  context: CallerContext,
  body: unknown,
  assets: KindActionAssets,
  options: SimulateOptions,
): Promise<unknown> {
  const request = parseSimulationRequest(body);
  const funnel = await funnelOf(kind, context, request, assets);
  const entranceSources = request.steps.flatMap((step) => ('entrance' in step ? [step.entrance.idTrafficSource] : []));
  const snapshot = await loadFunnelAssets(funnel, entranceSources, (of, ids) => assets.find(of, context, ids));
  const compiled = compileFunnel(snapshot);
  const names = assetNames(snapshot, FUNNEL_ASSET_LISTS);
  const random = seededRandom(request.seed);
  const ids = seededIds(seededRandom(`${request.seed}/ids`), request.time);
  let session = sessionBefore(request, compiled.idFunnel, ids);
  const steps: unknown[] = [];
  for (const step of request.steps) {
    const warnings: RoutingWarning[] = [];
    const params = 'entrance' in step ? (request.visitor.trackingFields ?? {}) : {};
    const result = await walk(
      compiled,
      { visitor: { attributes: request.visitor.visitor, time: request.time, params, ip: request.ip }, session, step, random, ids },
      simulatorMiddleware(request.middleware, options, warnings),
    );
    session = result.session;
    steps.push(nameIds({ step, ...result, warnings: [...result.warnings, ...warnings] }, names));
  }
  return {
    seed: request.seed,
    idFunnel: compiled.idFunnel,
    funnelName: compiled.funnelName,
    warnings: nameIds([...compiled.warnings], names),
    steps,
  };
}
