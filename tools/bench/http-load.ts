import autocannon from 'autocannon';

export interface LoadResult {
  requestsPerSecond: number;
  /** Responses received in the whole run. */
  requests: number;
  p99Ms: number;
  non2xx: number;
  /** Responses per status code (e.g. `{ '302': 41000 }`). */
  statusCodes: Record<string, number>;
  errors: number;
}

export interface LoadOptions {
  url: string;
  method?: 'GET' | 'POST' | 'PUT';
  headers?: Record<string, string>;
  /** A fresh body per request (e.g. a new asset id for each create). */
  body?: () => string;
  durationSeconds?: number;
  connections?: number;
}

/** Bounded load from this process against a server on loopback; stops by itself. */
export async function load(options: LoadOptions): Promise<LoadResult> {
  const result = await autocannon({
    url: options.url,
    method: options.method ?? 'GET',
    headers: options.headers,
    connections: options.connections ?? 32,
    pipelining: 1,
    duration: options.durationSeconds ?? 8,
    requests: options.body ? [{ setupRequest: (req: autocannon.Request) => ({ ...req, body: options.body!() }) }] : undefined,
  });
  return {
    requestsPerSecond: result.requests.average,
    requests: result.requests.total,
    p99Ms: result.latency.p99,
    non2xx: result.non2xx,
    statusCodes: Object.fromEntries(Object.entries(result.statusCodeStats ?? {}).map(([code, stats]) => [code, stats.count ?? 0])),
    errors: result.errors,
  };
}
