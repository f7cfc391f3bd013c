import { request } from 'node:http';

/** What a visitor's browser gets from the tracking edge for one request (redirects not followed). */
export interface EdgeAnswer {
  status: number;
  location: string | undefined;
  contentType: string | undefined;
  body: string;
}

/**
 * One request to the edge at `port` as a browser on the tracking domain `host` sends it (the Host
 * header names the domain; the TCP connection goes to 127.0.0.1). fetch() cannot set Host, so this
 * uses node:http.
 */
export function visit(
  port: number,
  host: string,
  path: string,
  options: { method?: string; body?: string; headers?: Record<string, string> } = {},
): Promise<EdgeAnswer> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = {
      host,
      'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36',
      ...options.headers,
    };
    if (options.body !== undefined) headers['content-type'] ??= 'application/json';
    const req = request({ host: '127.0.0.1', port, path, method: options.method ?? 'GET', headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          location: res.headers.location,
          contentType: res.headers['content-type'],
          body: Buffer.concat(chunks).toString('utf8'),
        }),
      );
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

/** The query parameters of a redirect's Location. */
export function paramsOf(location: string | undefined): Record<string, string> {
  if (!location) throw new Error('the answer has no Location');
  return Object.fromEntries(new URL(location).searchParams);
}
