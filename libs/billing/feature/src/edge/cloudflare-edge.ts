import { BillingErrorCodes, EdgeSslStatus, EdgeStatus, ServiceError } from '@funnel/contracts';
import { DomainRecord, EdgeView } from '@funnel/billing-domain';
import { EdgeProvider, ProvisionRequest } from './edge-provider';
import type { RoutingCheck } from '../checks/domain-checker';

export interface CloudflareEdgeOptions {
  /** CLOUDFLARE_API_TOKEN: a token with SSL and Certificates edit on the zone. */
  apiToken: string;
  /** CLOUDFLARE_ZONE_ID: the SaaS zone that serves the custom hostnames. */
  zoneId: string;
  /** CLOUDFLARE_API_URL (default https://api.cloudflare.com/client/v4). */
  apiUrl?: string;
  /** Bound of one API call (default 3000 ms). */
  timeoutMs?: number;
}

/** The parts of Cloudflare's custom hostname object the service reads. */
interface CustomHostname {
  id: string;
  hostname: string;
  status?: string;
  verification_errors?: string[];
  ownership_verification?: { type?: string; name?: string; value?: string };
  ssl?: {
    status?: string;
    txt_name?: string;
    txt_value?: string;
    validation_records?: { txt_name?: string; txt_value?: string }[];
    validation_errors?: { message?: string }[];
  };
}

interface Envelope<T> {
  success?: boolean;
  errors?: { code?: number; message?: string }[];
  result?: T;
}

/** What the service asks of every certificate: domain validation by TXT record. */
const SSL = { method: 'txt', type: 'dv', settings: { min_tls_version: '1.2' } } as const;

const ACTIVE_HOSTNAME = new Set(['active', 'active_redeploying', 'provisioned', 'test_active', 'test_active_apex']);

/** Cloudflare's hostname statuses on the spec's edge_status values. */
export function edgeStatusOf(status: string | undefined): EdgeStatus {
  if (status && ACTIVE_HOSTNAME.has(status)) return 'active';
  if (status === 'moved') return 'moved';
  if (status === 'deleted' || status === 'pending_deletion') return 'deleted';
  return 'pending';
}

/** Cloudflare's certificate statuses on the spec's edge_ssl_status values. */
export function edgeSslStatusOf(status: string | undefined): EdgeSslStatus {
  if (status === 'active') return 'active';
  if (status === undefined || status === 'initializing') return 'initializing';
  return 'pending_validation';
}

/**
 * Cloudflare for SaaS custom hostnames over the v4 API (plain fetch): create, get, refresh (PATCH
 * with the same `ssl` object, which makes Cloudflare validate again), delete. Ownership is
 * Cloudflare's own TXT record (`ownership_verification`); it counts as verified once Cloudflare
 * marks the hostname active.
 */
export class CloudflareEdge implements EdgeProvider {
  readonly name = 'cloudflare';
  private readonly base: string;
  private readonly timeoutMs: number;

  constructor(private readonly options: CloudflareEdgeOptions) {
    this.base = `${(options.apiUrl ?? 'https://api.cloudflare.com/client/v4').replace(/\/+$/, '')}/zones/${encodeURIComponent(options.zoneId)}/custom_hostnames`;
    this.timeoutMs = options.timeoutMs ?? 3000;
  }

  async provision(request: ProvisionRequest): Promise<EdgeView> {
    const created = await this.call<CustomHostname>('POST', '', { hostname: request.domain, ssl: SSL });
    return viewOf(created);
  }

  async observe(record: DomainRecord, check: Promise<RoutingCheck>, options: { recheck?: boolean } = {}): Promise<EdgeView> {
    const path = `/${encodeURIComponent(record.edge.edgeId)}`;
    const [hostname] = await Promise.all([
      options.recheck ? this.call<CustomHostname>('PATCH', path, { ssl: SSL }) : this.call<CustomHostname>('GET', path),
      check,
    ]);
    return viewOf(hostname);
  }

  async deprovision(record: DomainRecord): Promise<void> {
    await this.call('DELETE', `/${encodeURIComponent(record.edge.edgeId)}`, undefined, { missingIsDone: true });
  }

  private async call<T>(method: string, path: string, body?: unknown, options: { missingIsDone?: boolean } = {}): Promise<T> {
    let response: Response;
    try {
      response = await fetch(`${this.base}${path}`, {
        method,
        headers: { authorization: `Bearer ${this.options.apiToken}`, 'content-type': 'application/json', accept: 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
        redirect: 'error',
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (error) {
      const why = (error as Error).name === 'TimeoutError' ? `no answer within ${this.timeoutMs} ms` : 'the API could not be reached';
      throw new ServiceError(503, BillingErrorCodes.EDGE_UNAVAILABLE, `Cloudflare: ${why}`);
    }
    const envelope = (await response.json().catch(() => ({}))) as Envelope<T>;
    if (response.status === 404 && options.missingIsDone) return undefined as T;
    if (response.ok && envelope.success !== false) return envelope.result as T;
    const reason = (envelope.errors ?? [])
      .map((e) => `${e.message ?? 'error'}${e.code !== undefined ? ` (${e.code})` : ''}`)
      .join('; ')
      .slice(0, 300);
    if (response.status >= 500 || response.status === 429) {
      throw new ServiceError(503, BillingErrorCodes.EDGE_UNAVAILABLE, `Cloudflare answered HTTP ${response.status}${reason ? `: ${reason}` : ''}`);
    }
    throw ServiceError.conflict(BillingErrorCodes.EDGE_REJECTED, `Cloudflare refused the request (HTTP ${response.status})${reason ? `: ${reason}` : ''}`);
  }
}

function viewOf(hostname: CustomHostname): EdgeView {
  const ssl = hostname.ssl ?? {};
  // Older answers carry the TXT record on `ssl`, newer ones in `validation_records`.
  const validation = ssl.validation_records?.find((r) => r.txt_name) ?? {};
  const status = edgeStatusOf(hostname.status);
  return {
    edgeId: hostname.id,
    status,
    sslStatus: edgeSslStatusOf(ssl.status),
    sslTxtName: ssl.txt_name ?? validation.txt_name ?? '',
    sslTxtValue: ssl.txt_value ?? validation.txt_value ?? '',
    ownership: { type: 'txt', name: hostname.ownership_verification?.name ?? '', value: hostname.ownership_verification?.value ?? '' },
    ownershipVerified: status === 'active',
    verificationErrors: [...(hostname.verification_errors ?? []), ...(ssl.validation_errors ?? []).map((e) => e.message ?? '').filter((m) => m !== '')],
  };
}
