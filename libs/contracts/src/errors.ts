import { boundErrorText } from './error-text';

/**
 * Typed service errors. They cross the wire as plain `{ status, code, message, details }` objects
 * and the gateway maps `status` to the HTTP answer.
 */
export type ServiceErrorStatus = 400 | 401 | 403 | 404 | 409 | 412 | 413 | 415 | 429 | 500 | 503 | 507;

/**
 * One problem of a rejected request, the one shape of every `details` entry: the field it is about
 * (a dotted path; '' for the request as a whole), the rule it breaks (`required`, `isString`,
 * `isAssetId` ...), and a sentence that names the field.
 */
export interface ErrorDetail {
  field: string;
  code: string;
  message: string;
  /** Where in a text field the problem is (1-based), for a script's diagnostics. */
  line?: number;
  column?: number;
}

export interface ServiceErrorShape {
  status: ServiceErrorStatus;
  code: string;
  message: string;
  details?: ErrorDetail[];
  /** Set on 500s only: the id under which the failure was logged. */
  correlationId?: string;
  /** Set on 429s: when to try again (the gateway answers it as Retry-After). */
  retryAfterSeconds?: number;
}

/**
 * A service's refusal. Its message and details are bounded when it is made (see boundErrorText), so
 * no error, over NATS or in an HTTP answer, echoes more than 1 KiB of what the client sent.
 */
export class ServiceError extends Error {
  readonly details: ErrorDetail[];

  constructor(
    readonly status: ServiceErrorStatus,
    readonly code: string,
    message: string,
    details: ErrorDetail[] = [],
    readonly correlationId?: string,
    readonly retryAfterSeconds?: number,
  ) {
    const bounded = boundErrorText(message, details);
    super(bounded.message);
    this.details = bounded.details;
    this.name = 'ServiceError';
  }

  toJSON(): ServiceErrorShape {
    const shape: ServiceErrorShape = { status: this.status, code: this.code, message: this.message, details: this.details };
    if (this.correlationId) shape.correlationId = this.correlationId;
    if (this.retryAfterSeconds !== undefined) shape.retryAfterSeconds = this.retryAfterSeconds;
    return shape;
  }

  static isShape(value: unknown): value is ServiceErrorShape {
    const v = value as ServiceErrorShape | null;
    return !!v && typeof v === 'object' && typeof v.status === 'number' && typeof v.code === 'string' && typeof v.message === 'string';
  }

  static fromShape(shape: ServiceErrorShape): ServiceError {
    return new ServiceError(shape.status, shape.code, shape.message, shape.details ?? [], shape.correlationId, shape.retryAfterSeconds);
  }

  static badRequest(code: string, message: string, details: ErrorDetail[] = []) {
    return new ServiceError(400, code, message, details);
  }
  /** A 400 about one field: the message names the field, and is its one detail. */
  static invalidField(field: string, rule: string, message: string, code: string = ErrorCodes.VALIDATION) {
    return new ServiceError(400, code, message, [{ field, code: rule, message }]);
  }
  static unauthorized(message = 'not authorized') {
    return new ServiceError(401, 'AUTH.UNAUTHORIZED', message);
  }
  static forbidden(message = 'forbidden') {
    return new ServiceError(403, 'AUTH.FORBIDDEN', message);
  }
  static notFound(code: string, message: string) {
    return new ServiceError(404, code, message);
  }
  static conflict(code: string, message: string, details: ErrorDetail[] = []) {
    return new ServiceError(409, code, message, details);
  }
  static preconditionFailed(code: string, message: string, details: ErrorDetail[] = []) {
    return new ServiceError(412, code, message, details);
  }
  static tooManyRequests(message: string, retryAfterSeconds: number, code = 'AUTH.TOO_MANY_ATTEMPTS') {
    return new ServiceError(429, code, message, [], undefined, retryAfterSeconds);
  }
  static unavailable(message = 'service unavailable') {
    return new ServiceError(503, 'SERVICE.UNAVAILABLE', message);
  }
  static internal(correlationId: string) {
    return new ServiceError(500, 'INTERNAL', 'internal error', [], correlationId);
  }
}

/** Stable error codes shared by services and gateway. */
export const ErrorCodes = {
  VALIDATION: 'REQUEST.VALIDATION_FAILED',
  MALFORMED_JSON: 'REQUEST.MALFORMED_JSON',
  BODY_TOO_LARGE: 'REQUEST.BODY_TOO_LARGE',
  /** A request over RPC_MAX_MESSAGE_BYTES: not sent to the service. */
  MESSAGE_TOO_LARGE: 'RPC.MESSAGE_TOO_LARGE',
  /** A reply over RPC_MAX_MESSAGE_BYTES: the service answered this instead. */
  REPLY_TOO_LARGE: 'RPC.REPLY_TOO_LARGE',
  /** A message on a service subject that is not a request in the transport's format. */
  MALFORMED_MESSAGE: 'RPC.MALFORMED_MESSAGE',
  JSON_TOO_DEEP: 'REQUEST.JSON_TOO_DEEP',
  /** An object of a body with more than MAX_OBJECT_FIELDS fields (400). */
  TOO_MANY_FIELDS: 'REQUEST.TOO_MANY_FIELDS',
  UNSUPPORTED_MEDIA_TYPE: 'REQUEST.UNSUPPORTED_MEDIA_TYPE',
  MALFORMED_URL: 'REQUEST.MALFORMED_URL',
  /** A request that is not valid HTTP (bad header line, conflicting Content-Length, broken chunks): 400, and the connection closed. */
  MALFORMED_HTTP: 'REQUEST.MALFORMED_HTTP',
  /** Headers larger than the server reads (431). */
  HEADERS_TOO_LARGE: 'REQUEST.HEADERS_TOO_LARGE',
  /** A client too slow to send its request (408). */
  REQUEST_TIMEOUT: 'REQUEST.TIMEOUT',
  RATE_LIMITED: 'REQUEST.RATE_LIMITED',
  INVALID_ID: 'REQUEST.INVALID_ID',
  ASSET_NOT_FOUND: 'ASSET.NOT_FOUND',
  ASSET_EXISTS: 'ASSET.ALREADY_EXISTS',
  ASSET_CONFLICT: 'ASSET.CONCURRENT_MODIFICATION',
  ASSET_INVALID_STATE: 'ASSET.INVALID_STATE',
  /** A write's If-Match names a revision the asset has moved on from (412; the message names the current one). */
  ASSET_REVISION_MISMATCH: 'ASSET.REVISION_MISMATCH',
  /** A write whose event is larger than the event log takes in one append (413; EventStoreDB's MaxAppendSize). */
  ASSET_TOO_LARGE: 'ASSET.TOO_LARGE',
  /** A field names an asset that does not exist in the account, is deleted, or is of the wrong kind or type. */
  INVALID_REFERENCE: 'ASSET.INVALID_REFERENCE',
  CASCADE_INVALID: 'ASSET.INVALID_CASCADE',
  ROUTE_NOT_FOUND: 'REQUEST.ROUTE_NOT_FOUND',
  SETTINGS_TOO_LARGE: 'SETTINGS.TOO_LARGE',
  API_KEY_NOT_FOUND: 'APIKEY.NOT_FOUND',
  MFA_INVALID: 'AUTH.MFA_INVALID',
  /** Too many wrong one-time codes: the user's second factor is refused for a while (429 with Retry-After). */
  MFA_LOCKED: 'AUTH.MFA_LOCKED',
  MFA_STATE: 'AUTH.MFA_STATE',
  /** A logic script's code does not pass the routing-script validator; the details are its diagnostics (with line and column). */
  SCRIPT_INVALID: 'SCRIPT.INVALID',
  /** A funnel's graph or references do not fit the rules; the details name each node or connection and field. */
  FUNNEL_INVALID: 'FUNNEL.INVALID',
  /** A write the service's storage has no room for (507): nothing was saved. */
  STORE_FULL: 'STORE.FULL',
  /** A write the service's storage refused: read-only or failing disk (503); nothing was saved. */
  STORE_UNAVAILABLE: 'STORE.UNAVAILABLE',
} as const;
