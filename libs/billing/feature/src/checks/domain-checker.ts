import { timingSafeEqual } from 'node:crypto';
import { CheckDomainResponse } from '@funnel/contracts';
import { OutboundFailure, OutboundHttp, OutboundRefusedError } from '@funnel/platform';

/** The path every custom domain answers on our edge. */
export const DOMAIN_CHECK_PATH = '/debug/domain-check';
/** The answer's `service` field that marks our edge. */
export const EDGE_SERVICE_NAME = 'funnel-edge';

export interface DomainCheckerOptions {
  /** The SSRF-guarded client (public addresses only unless OUTBOUND_ALLOW_PRIVATE). */
  http: OutboundHttp;
  /** Bound of the whole check (default 3000 ms); keep it inside the gateway's RPC timeout. */
  timeoutMs?: number;
  /** The HTTPS port (443; DOMAIN_CHECK_PORT for tests and development). */
  port?: number;
  /** EDGE_CHECK_TOKEN: when set, the edge's answer must carry it as `token`. */
  edgeCheckToken?: string;
  clock?: () => number;
}

/** The check without the edge's view, which the caller adds. */
export type RoutingCheck = Omit<CheckDomainResponse, 'edge_status' | 'edge_ssl_status'>;

/**
 * The routing check of a domain: an HTTPS GET of `https://<domain>/debug/domain-check` through the
 * SSRF guard (resolved once, public addresses only, the socket connects to the checked address with
 * SNI = the domain, no redirects, a time bound, at most 64 KiB read). The TLS handshake must show a
 * certificate valid for the name, from a trusted chain, not expired (`ssl_error` says why not; no
 * answer is read over a handshake that failed). `found` means the answer comes from our edge: HTTP
 * 200 with `{ "service": "funnel-edge", "domain": "<domain>" }` (and `token` = EDGE_CHECK_TOKEN when set).
 */
export class DomainChecker {
  private readonly timeoutMs: number;
  private readonly port: number;
  private readonly clock: () => number;

  constructor(private readonly options: DomainCheckerOptions) {
    this.timeoutMs = options.timeoutMs ?? 3000;
    this.port = options.port ?? 443;
    this.clock = options.clock ?? Date.now;
  }

  async check(domain: string): Promise<RoutingCheck> {
    const started = performance.now();
    const result: RoutingCheck = {
      success: true,
      found: false,
      ssl_valid: false,
      http_status: 0,
      ssl_error: '',
      response_time_ms: 0,
      error_message: '',
      check_timestamp: Math.floor(this.clock() / 1000),
      error_code: '',
    };
    const url = `https://${domain}${this.port === 443 ? '' : `:${this.port}`}${DOMAIN_CHECK_PATH}`;
    try {
      const response = await this.options.http.request({
        url,
        headers: { accept: 'application/json' },
        timeoutMs: this.timeoutMs,
        maxResponseBytes: 64 * 1024,
      });
      result.ssl_valid = true;
      result.http_status = response.status;
      result.response_time_ms = response.timeMs;
      if (response.status !== 200) {
        result.error_message = `${DOMAIN_CHECK_PATH} answered HTTP ${response.status}, not our edge's answer`;
      } else if (!this.isOurEdge(response.body, domain)) {
        result.error_message = `${DOMAIN_CHECK_PATH} answered, but not as our edge does: the domain does not point to us`;
      } else {
        result.found = true;
      }
    } catch (error) {
      result.response_time_ms = Math.round(performance.now() - started);
      if (error instanceof OutboundFailure && error.code === 'OUTBOUND.TLS_FAILED') {
        result.ssl_error = sslErrorOf(error.reason ?? '', domain);
        result.error_message = `the TLS handshake failed: ${result.ssl_error}`;
      } else if (error instanceof OutboundFailure && error.code === 'OUTBOUND.TIMEOUT') {
        result.error_message = `no answer within ${this.timeoutMs} ms`;
      } else if (error instanceof OutboundFailure || error instanceof OutboundRefusedError) {
        result.error_message = error.message;
      } else {
        throw error;
      }
    }
    return result;
  }

  private isOurEdge(body: Buffer, domain: string): boolean {
    let answer: { service?: unknown; domain?: unknown; token?: unknown };
    try {
      answer = JSON.parse(body.toString('utf8')) as typeof answer;
    } catch {
      return false;
    }
    if (answer === null || typeof answer !== 'object' || answer.service !== EDGE_SERVICE_NAME || answer.domain !== domain) return false;
    const expected = this.options.edgeCheckToken;
    if (expected === undefined) return true;
    return typeof answer.token === 'string' && sameText(answer.token, expected);
  }
}

function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

const UNTRUSTED = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_UNTRUSTED',
  'CERT_SIGNATURE_FAILURE',
]);

/** Why a handshake failed, in words (with the system's code). */
export function sslErrorOf(code: string, domain: string): string {
  if (code === 'CERT_HAS_EXPIRED') return `the certificate has expired (${code})`;
  if (code === 'CERT_NOT_YET_VALID') return `the certificate is not valid yet (${code})`;
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID' || code === 'HOSTNAME_MISMATCH') return `the certificate is not valid for ${domain} (${code})`;
  if (UNTRUSTED.has(code)) return `the certificate chain is not trusted (${code})`;
  return `the TLS handshake failed (${code || 'unknown error'})`;
}
