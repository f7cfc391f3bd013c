import { FastifyInstance, FastifyRequest } from 'fastify';
import { ErrorCodes, MAX_OBJECT_FIELDS, ServiceError } from '@funnel/contracts';

/** The largest request body of a route that names no other (413 above). */
export const MAX_BODY_BYTES = 1024 * 1024;

/** The largest body any route takes (`ForwardedRoute.maxBodyBytes`): what Fastify reads at most before the route's own bound is checked. */
export const LARGEST_BODY_BYTES = 16 * 1024 * 1024;

const BODY_LIMIT = Symbol('bodyLimit');

/** A route's body bound for this request, set before the body is read (the parser and the 413 use it). */
export function useBodyLimit(request: FastifyRequest, limit: number): void {
  (request as unknown as Record<symbol, number>)[BODY_LIMIT] = limit;
}

/** The body bound of this request's route (MAX_BODY_BYTES unless its route names another). */
export function bodyLimitOf(request: FastifyRequest): number {
  return (request as unknown as Record<symbol, number | undefined>)[BODY_LIMIT] ?? MAX_BODY_BYTES;
}

/** 413 `REQUEST.BODY_TOO_LARGE`, naming the bound. */
export function bodyTooLarge(limit: number): ServiceError {
  return new ServiceError(413, ErrorCodes.BODY_TOO_LARGE, `the body is larger than ${limit} bytes`);
}

/** The deepest JSON nesting a body may have (objects and arrays together). */
export const MAX_JSON_DEPTH = 64;

const QUOTE = 34;
const BACKSLASH = 92;
const OPEN_BRACE = 123;
const OPEN_BRACKET = 91;
const CLOSE_BRACE = 125;
const CLOSE_BRACKET = 93;
const COLON = 58;

/** The most fields one JSON object of a body may have (the same bound as the services' validation, MAX_OBJECT_FIELDS). */
export const MAX_JSON_OBJECT_FIELDS = MAX_OBJECT_FIELDS;

/** What is wrong with the shape of a JSON text before it is parsed. */
export type JsonShapeProblem = 'too-deep' | 'too-many-fields';

/**
 * Whether JSON text nests objects and arrays deeper than `maxDepth`, or has an object of more than
 * `maxFields` fields, found by one scan of the text (brackets and colons inside strings do not count)
 * before anything is parsed: such a document never reaches the parser, the validators or the
 * transport, each of which recurses, and some of which take time growing faster than an object's
 * field count.
 */
export function jsonShapeProblem(text: string, maxDepth: number, maxFields: number): JsonShapeProblem | undefined {
  // A field takes at least 4 characters (`"":0`, and a separator).
  if (text.length <= maxDepth && text.length <= 4 * maxFields) return undefined;
  let depth = 0;
  // Per open level: its field count, or -1 for an array.
  const fields = new Int32Array(maxDepth + 1);
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      // Strings are most of a large body (ids, names, addresses): their end is found by indexOf, not char by char.
      let end = text.indexOf('"', i + 1);
      while (end > 0 && isEscaped(text, end)) end = text.indexOf('"', end + 1);
      if (end < 0) return undefined; // unterminated: the parser refuses it
      i = end;
    } else if (c === COLON) {
      if (depth > 0 && fields[depth] >= 0 && ++fields[depth] > maxFields) return 'too-many-fields';
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (++depth > maxDepth) return 'too-deep';
      fields[depth] = c === OPEN_BRACE ? 0 : -1;
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      if (depth > 0) depth--;
    }
  }
  return undefined;
}

/** Whether the quote at `at` is escaped: an odd number of backslashes comes right before it. */
function isEscaped(text: string, at: number): boolean {
  let backslashes = 0;
  for (let j = at - 1; j >= 0 && text.charCodeAt(j) === BACKSLASH; j--) backslashes++;
  return backslashes % 2 === 1;
}

/**
 * The only body parser of the gateway: `application/json` (any charset), parsed by Fastify's own
 * parser (which refuses `__proto__` and `constructor` keys) once the nesting is known to be at most
 * MAX_JSON_DEPTH and no object to have more than MAX_JSON_OBJECT_FIELDS fields. Every other content type is left without a parser, so Fastify answers 415 to it
 * (form bodies, text, multipart): every route of the API takes JSON.
 */
export function useJsonBodiesOnly(fastify: FastifyInstance): void {
  const parse = fastify.getDefaultJsonParser('error', 'error');
  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = body as string;
    // Fastify read at most the route's registered bound; the route's own may be smaller.
    const limit = bodyLimitOf(request);
    if (text.length > limit / 3 && Buffer.byteLength(text, 'utf8') > limit) {
      done(bodyTooLarge(limit), undefined);
      return;
    }
    const problem = jsonShapeProblem(text, MAX_JSON_DEPTH, MAX_JSON_OBJECT_FIELDS);
    if (problem === 'too-deep') {
      done(ServiceError.badRequest(ErrorCodes.JSON_TOO_DEEP, `the JSON body nests deeper than ${MAX_JSON_DEPTH} levels`), undefined);
      return;
    }
    if (problem === 'too-many-fields') {
      const message = `an object of the JSON body has more than ${MAX_JSON_OBJECT_FIELDS} fields`;
      done(ServiceError.badRequest(ErrorCodes.TOO_MANY_FIELDS, message, [{ field: '', code: 'maxFields', message }]), undefined);
      return;
    }
    parse(request, text, done);
  });
}
