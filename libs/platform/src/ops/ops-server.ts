import { type IncomingMessage, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';
import { type ReadinessCheck, readinessReport } from './readiness';

export interface OpsServerOptions {
  /** 0 picks a free port (see the returned `port`). */
  port: number;
  /** Defaults to all interfaces, as Kubernetes probes and Prometheus come from outside the pod. */
  host?: string;
  checks: readonly ReadinessCheck[];
  registry: Registry;
}

export interface OpsServer {
  port: number;
  close(): Promise<void>;
}

/**
 * Probes and metrics for apps without an HTTP server of their own (the NATS-only services):
 * GET /health/live, GET /health/ready (503 until every check passes), GET /metrics.
 */
export async function startOpsServer(options: OpsServerOptions): Promise<OpsServer> {
  const server = createServer((request, response) => {
    route(request, response, options).catch(() => send(response, 500, 'application/json', JSON.stringify({ status: 'error' })));
  });
  // Probes must not keep a draining process alive.
  server.keepAliveTimeout = 1000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeIdleConnections();
      }),
  };
}

async function route(request: IncomingMessage, response: ServerResponse, options: OpsServerOptions): Promise<void> {
  const path = (request.url ?? '/').split('?', 1)[0];
  if (request.method !== 'GET') {
    response.setHeader('allow', 'GET');
    return send(response, 405, 'application/json', JSON.stringify({ status: 'method not allowed' }));
  }
  switch (path) {
    case '/health/live':
      return send(response, 200, 'application/json', JSON.stringify({ status: 'ok' }));
    case '/health/ready': {
      const report = await readinessReport(options.checks);
      return send(response, report.ready ? 200 : 503, 'application/json', JSON.stringify(report));
    }
    case '/metrics':
      return send(response, 200, options.registry.contentType, await options.registry.metrics());
    default:
      return send(response, 404, 'application/json', JSON.stringify({ status: 'not found' }));
  }
}

function send(response: ServerResponse, status: number, contentType: string, body: string): void {
  response.writeHead(status, { 'content-type': contentType, 'cache-control': 'no-store' });
  response.end(body);
}
