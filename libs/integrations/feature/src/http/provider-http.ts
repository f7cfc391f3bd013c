import { AdPlatformError } from '@funnel/integrations-domain';

/** One provider API call's answer, JSON-decoded. */
export interface ProviderAnswer {
  status: number;
  body: unknown;
  headers: Headers;
}

/**
 * Calls a provider's API (an address from configuration, not from users, so the SSRF guard of
 * user-given URLs does not apply): a time bound, no redirects, JSON in and out. A failure to reach
 * it is `unavailable`; what the provider answered is the adapter's to judge.
 */
export async function callProvider(
  url: URL,
  init: { method?: string; headers?: Record<string, string>; body?: string; timeoutMs: number },
): Promise<ProviderAnswer> {
  let response: Response;
  try {
    response = await fetch(url, {
      method: init.method ?? 'GET',
      headers: { accept: 'application/json', ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}), ...init.headers },
      body: init.body,
      redirect: 'manual',
      signal: AbortSignal.timeout(init.timeoutMs),
    });
  } catch (error) {
    const name = (error as Error).name;
    throw new AdPlatformError('unavailable', name === 'TimeoutError' ? `${url.host} did not answer in time` : `${url.host} could not be reached`);
  }
  const text = await response.text();
  let body: unknown = undefined;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  return { status: response.status, body, headers: response.headers };
}

/** A `Retry-After` header in seconds, when there is one. */
export function retryAfterOf(headers: Headers): number | undefined {
  const value = Number(headers.get('retry-after'));
  return Number.isFinite(value) && value > 0 ? value : undefined;
}
