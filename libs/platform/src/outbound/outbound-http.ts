import { Agent, errors as undiciErrors, request } from 'undici';
import { ipLiteralOf, isPublicAddress } from './address-policy';
import { type AddressResolver, OutboundRefusedError, guardedLookup, systemResolver } from './guarded-lookup';

export interface OutboundHttpOptions {
  /** OUTBOUND_ALLOW_PRIVATE: lifts the address rule, for tests and development only. */
  allowPrivate?: boolean;
  resolver?: AddressResolver;
  /** Bound of the whole exchange (connect, headers, body); default 3 s. */
  timeoutMs?: number;
  /** The most of a response body that is read; the rest is dropped and `truncated` set. Default 64 KiB. */
  maxResponseBytes?: number;
  /** PEM certificates trusted for https instead of Node's bundled CAs: tests trust their self-signed server with it. */
  ca?: string | string[];
}

export interface OutboundRequest {
  url: string;
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'HEAD';
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  timeoutMs?: number;
  maxResponseBytes?: number;
}

export interface OutboundResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  /** The body was longer than maxResponseBytes and was cut there. */
  truncated: boolean;
  /** From sending the request to the last byte read. */
  timeMs: number;
}

/** The request was sent (or tried) and failed on the way: timeout, refused connection, TLS, reset. */
export class OutboundFailure extends Error {
  constructor(
    readonly code: 'OUTBOUND.TIMEOUT' | 'OUTBOUND.CONNECTION_FAILED' | 'OUTBOUND.TLS_FAILED',
    message: string,
    /** The system's code of the failure when there is one (`CERT_HAS_EXPIRED`, `ECONNREFUSED` ...). */
    readonly reason?: string,
  ) {
    super(message);
    this.name = 'OutboundFailure';
  }
}

/**
 * Checks a URL before any connection: http(s) only, no credentials in it, and an IP-literal host
 * must be public (Node and undici skip `lookup` for literals, so the guarded lookup never sees them).
 */
export function assertOutboundUrl(raw: string, allowPrivate: boolean): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new OutboundRefusedError('OUTBOUND.INVALID_URL', 'not an absolute URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new OutboundRefusedError('OUTBOUND.INVALID_URL', `${url.protocol} URLs are not allowed`);
  if (url.username || url.password) throw new OutboundRefusedError('OUTBOUND.INVALID_URL', 'credentials in the URL are not allowed');
  const literal = ipLiteralOf(url.hostname);
  if (literal !== undefined && !allowPrivate && !isPublicAddress(literal)) {
    throw new OutboundRefusedError('OUTBOUND.ADDRESS_REFUSED', `${literal} is not a public address`);
  }
  return url;
}

const TLS_CODES = /^(ERR_TLS|CERT_|UNABLE_TO_|SELF_SIGNED|DEPTH_ZERO|ERR_SSL|HOSTNAME_MISMATCH)/;

/**
 * The one way the service makes HTTP requests to addresses users give it (webhook deliveries,
 * postbacks, domain checks, providers): the SSRF rule (public unicast addresses only, resolved
 * once, the socket connects to the checked address), no redirects (a 3xx is answered as it is),
 * a time bound on the whole exchange, and a cap on how much of the answer is read.
 */
export class OutboundHttp {
  private readonly allowPrivate: boolean;
  private readonly agent: Agent;
  private readonly timeoutMs: number;
  private readonly maxResponseBytes: number;

  constructor(options: OutboundHttpOptions = {}) {
    this.allowPrivate = options.allowPrivate ?? false;
    this.timeoutMs = options.timeoutMs ?? 3000;
    this.maxResponseBytes = options.maxResponseBytes ?? 64 * 1024;
    this.agent = new Agent({
      connect: {
        lookup: guardedLookup(options.resolver ?? systemResolver, this.allowPrivate),
        timeout: this.timeoutMs,
        ...(options.ca !== undefined ? { ca: options.ca } : {}),
      },
      keepAliveTimeout: 10_000,
      // undici follows no redirects unless a redirect interceptor is composed in: a 3xx comes back as is.
    });
  }

  async request(req: OutboundRequest): Promise<OutboundResponse> {
    const url = assertOutboundUrl(req.url, this.allowPrivate);
    const timeoutMs = req.timeoutMs ?? this.timeoutMs;
    const maxBytes = req.maxResponseBytes ?? this.maxResponseBytes;
    const started = performance.now();
    try {
      const response = await request(url, {
        method: req.method ?? 'GET',
        headers: req.headers,
        body: req.body,
        dispatcher: this.agent,
        signal: AbortSignal.timeout(timeoutMs),
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      });
      const chunks: Buffer[] = [];
      let size = 0;
      let truncated = false;
      for await (const chunk of response.body as AsyncIterable<Buffer>) {
        const room = maxBytes - size;
        if (chunk.length > room) {
          chunks.push(chunk.subarray(0, room));
          size = maxBytes;
          truncated = true;
          response.body.destroy();
          break;
        }
        chunks.push(chunk);
        size += chunk.length;
      }
      return {
        status: response.statusCode,
        headers: response.headers,
        body: Buffer.concat(chunks, size),
        truncated,
        timeMs: Math.round(performance.now() - started),
      };
    } catch (error) {
      throw this.classify(error);
    }
  }

  close(): Promise<void> {
    return this.agent.close();
  }

  private classify(error: unknown): Error {
    if (error instanceof OutboundRefusedError) return error;
    const cause = (error as { cause?: unknown }).cause;
    if (cause instanceof OutboundRefusedError) return cause;
    const err = error as NodeJS.ErrnoException;
    const code = String(err.code ?? (cause as NodeJS.ErrnoException | undefined)?.code ?? '');
    if (
      err.name === 'TimeoutError' ||
      err.name === 'AbortError' ||
      error instanceof undiciErrors.HeadersTimeoutError ||
      error instanceof undiciErrors.BodyTimeoutError ||
      error instanceof undiciErrors.ConnectTimeoutError
    ) {
      return new OutboundFailure('OUTBOUND.TIMEOUT', 'no answer in time');
    }
    if (TLS_CODES.test(code)) return new OutboundFailure('OUTBOUND.TLS_FAILED', `TLS failed: ${code}`, code);
    return new OutboundFailure('OUTBOUND.CONNECTION_FAILED', `connection failed${code ? `: ${code}` : ''}`, code || undefined);
  }
}
