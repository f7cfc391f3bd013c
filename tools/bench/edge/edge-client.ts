import { Agent, request } from 'node:http';

/** One GET to the edge with a tracking domain's Host header, not following the redirect. */
export interface EdgeAnswer {
  status: number;
  location: string | undefined;
}

const agent = new Agent({ keepAlive: true, maxSockets: 4 });

export function edgeGet(port: number, host: string, path: string): Promise<EdgeAnswer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method: 'GET', headers: { host }, agent }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, location: res.headers.location }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

/** Polls until the edge redirects `path` (it answers 302 once its snapshot holds the funnel), within `timeoutMs`. */
export async function waitForRedirect(port: number, host: string, path: string, timeoutMs = 60_000): Promise<EdgeAnswer> {
  const deadline = Date.now() + timeoutMs;
  let last: EdgeAnswer | Error | undefined;
  while (Date.now() < deadline) {
    try {
      last = await edgeGet(port, host, path);
      if (last.status >= 300 && last.status < 400) return last;
    } catch (error) {
      last = error as Error;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`the edge did not redirect ${path} within ${timeoutMs} ms (last: ${last instanceof Error ? last.message : JSON.stringify(last)})`);
}
