// How the simulator answers a middleware node: the route the request gives for it, or (`"call"`) the
// route the edge's matching (decideMiddlewareAnswer) takes on the answer of the configured destination called for real through the SSRF-guarded client with the
// reference payload, the config's method, headers, basic auth and HMAC signature (the node's
// destination overrides applied, stored secrets decrypted); no entry: the default route, warned.
import { MIDDLEWARE_CALL, SimulateMiddlewareAnswer } from '@funnel/contracts';
import { SecretCipher, isEncryptedSecret } from '@funnel/assets-domain';
import { OutboundHttp, callMiddleware } from '@funnel/platform';
import { type MiddlewareAnswer, type MiddlewareCall, type RoutingWarning, decideMiddlewareAnswer, middlewareRoutesOf } from '@funnel/routing';

interface Destination {
  url?: unknown;
  method?: unknown;
  headers?: unknown;
  timeoutMs?: unknown;
  basicAuth?: { username?: unknown; password?: unknown } | null;
  hmacSecret?: unknown;
}

const stringMap = (value: unknown): Record<string, string> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)
    ? Object.fromEntries(Object.entries(value).filter((entry): entry is [string, string] => typeof entry[1] === 'string'))
    : {};

/** The destination a call goes to: the config's, with the node's overrides (headers merged; basic auth and HMAC secret replaced when the node has its own). */
function destinationOf(call: MiddlewareCall): Destination {
  const destination = (call.config.destination ?? {}) as Destination;
  const overrides = (call.overrides ?? {}) as Destination;
  return {
    ...destination,
    headers: { ...stringMap(destination.headers), ...stringMap(overrides.headers) },
    basicAuth: overrides.basicAuth !== undefined ? overrides.basicAuth : destination.basicAuth,
    hmacSecret: isEncryptedSecret(overrides.hmacSecret) ? overrides.hmacSecret : destination.hmacSecret,
  };
}

/**
 * The middleware port of one simulated request: answers from `answers` by node id; `warnings` collects
 * what the answer of each node was not (none given, a failed call). Secrets are decrypted only to be
 * sent and never enter an answer or a warning.
 */
export function simulatorMiddleware(
  answers: Readonly<Record<string, SimulateMiddlewareAnswer>>,
  options: { secrets: SecretCipher; http: OutboundHttp },
  warnings: RoutingWarning[],
): (call: MiddlewareCall) => Promise<MiddlewareAnswer> {
  return async (call) => {
    const given = answers[call.idNode];
    if (given === undefined) {
      warnings.push({
        code: 'middlewareNotAnswered',
        idNode: call.idNode,
        message: `middleware node ${call.idNode} has no answer in the request (middleware.<idNode>: { routeId } or "call"): its default route was taken`,
      });
      return { failure: 'no answer was given for this middleware node' };
    }
    if (given !== MIDDLEWARE_CALL) return { routeId: given.routeId };
    const destination = destinationOf(call);
    const basicAuth = destination.basicAuth;
    const result = await callMiddleware(options.http, {
      url: typeof destination.url === 'string' ? destination.url : '',
      method: destination.method === 'GET' ? 'GET' : 'POST',
      headers: destination.headers as Record<string, string>,
      ...(basicAuth && typeof basicAuth.username === 'string'
        ? { basicAuth: { username: basicAuth.username, password: isEncryptedSecret(basicAuth.password) ? options.secrets.decrypt(basicAuth.password) : '' } }
        : {}),
      ...(isEncryptedSecret(destination.hmacSecret) ? { hmacSecret: options.secrets.decrypt(destination.hmacSecret) } : {}),
      payload: call.payload,
      timeoutMs: call.timeoutMs,
    });
    // The same matching as the edge's: the config's routes in priority order, on the answer.
    const decision = decideMiddlewareAnswer(
      middlewareRoutesOf(call.config),
      result.answer !== null
        ? { kind: 'answered', answer: result.answer, error: result.error }
        : { kind: result.timedOut ? 'timeout' : 'failure', error: result.error ?? 'the call failed' },
    );
    if ('routeId' in decision.answer) return decision.answer;
    warnings.push({
      code: decision.defaultReason === 'noMatch' ? 'middlewareNoMatch' : 'middlewareCallFailed',
      idNode: call.idNode,
      message:
        decision.defaultReason === 'noMatch'
          ? `the answer of middleware node ${call.idNode} matches no route of its config: its default route was taken`
          : `the call of middleware node ${call.idNode} failed (${decision.answer.failure}): its default route was taken`,
    });
    return decision.answer;
  };
}
