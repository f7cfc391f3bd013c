// The tracking edge assembled from its parts (either mode): the snapshot started, the visitor routes
// listening; closed in the order that loses nothing.
import { isIPv6, type AddressInfo } from 'node:net';
import { Logger } from '@nestjs/common';
import type { FastifyInstance } from 'fastify';
import type { Registry } from 'prom-client';
import type { ReadinessCheck } from '@funnel/platform';
import type { IdSource, RandomSource } from '@funnel/routing';
import { type EdgeSnapshot, registerEdgeSnapshotMetrics } from '../snapshot';
import type { HitSink } from '../hits';
import type { PostbackRelay } from '../postbacks';
import type { EdgeMiddleware } from '../middleware';
import type { SessionStore } from '../sessions';
import type { VisitorResolver } from '../visitor';
import type { EdgeHttpLimits } from './edge-routes-config';
import { createEdgeHttpApp } from './edge-http-app';
import { EdgeRouteMetrics } from './edge-route-metrics';
import { VisitorLinks } from './visitor-links';

export interface TrackingEdgeParts {
  /** Not started yet: the edge starts it, and stops it at close. */
  snapshot: EdgeSnapshot;
  /** Open; closed at close, after the routes stopped. */
  sessions: SessionStore;
  /** Open; closed at close (the hits waiting are written first). */
  hits: HitSink;
  /** Incoming postbacks (`/pb/`) and isConversion actions go to reporting through it. */
  postbacks?: PostbackRelay;
  visitors: Pick<VisitorResolver, 'resolve'>;
  /** Calls the middleware nodes' destinations (absent: each takes its default route). */
  middleware?: EdgeMiddleware;
  /** The app's registry: the edge's and the snapshot's series go there, and GET /metrics answers it. */
  registry: Registry;
  routes: { defaultDomain?: string; checkToken?: string; limits: EdgeHttpLimits };
  trustedProxies?: readonly string[];
  timeouts?: { headersMs: number; requestMs: number; keepAliveMs: number };
  /** More readiness checks (NATS connected, in distributed mode). */
  readiness?: readonly ReadinessCheck[];
  /** Released after everything else at close (the edge's NATS connections). */
  onClose?: () => Promise<void>;
  logger?: Pick<Logger, 'log' | 'warn' | 'error'>;
  /** Tests only. */
  random?: RandomSource;
  ids?: IdSource;
}

/**
 * A running tracking edge. `start` starts the snapshot's load (not waited for: `/health/ready` and
 * the visitor routes answer 503 until it is loaded; `whenReady()` waits) and listens.
 * `close` stops taking requests (in-flight ones finish), stops following the asset events, writes
 * the hits waiting and closes the session store, then `onClose`.
 */
export class TrackingEdge {
  private closed = false;

  private constructor(
    private readonly parts: TrackingEdgeParts,
    readonly app: FastifyInstance,
    readonly host: string,
    readonly port: number,
  ) {}

  /** `http://host:port` (IPv6 in brackets). */
  get url(): string {
    return `http://${isIPv6(this.host) ? `[${this.host}]` : this.host}:${this.port}`;
  }

  get snapshot(): EdgeSnapshot {
    return this.parts.snapshot;
  }

  whenReady(): Promise<void> {
    return this.parts.snapshot.whenReady();
  }

  static async start(parts: TrackingEdgeParts, listen: { port: number; host: string }): Promise<TrackingEdge> {
    const logger = parts.logger ?? new Logger('TrackingEdge');
    const { snapshot, registry } = parts;
    registerEdgeSnapshotMetrics(registry, snapshot);
    const links = new VisitorLinks({
      snapshot,
      sessions: parts.sessions,
      hits: parts.hits,
      postbacks: parts.postbacks,
      visitors: parts.visitors,
      middleware: parts.middleware,
      defaultDomain: parts.routes.defaultDomain,
      metrics: new EdgeRouteMetrics(registry),
      logger,
      random: parts.random,
      ids: parts.ids,
    });
    let closing = false;
    const app = createEdgeHttpApp({
      links,
      registry,
      readiness: [{ name: 'snapshot', check: () => snapshot.ready && !closing }, ...(parts.readiness ?? [])],
      serving: () => snapshot.ready,
      trustedProxies: parts.trustedProxies,
      checkToken: parts.routes.checkToken,
      limits: parts.routes.limits,
      timeouts: parts.timeouts,
    });
    snapshot.start();
    try {
      await app.listen({ port: listen.port, host: listen.host });
    } catch (error) {
      await snapshot.stop();
      throw error;
    }
    const { address, port } = app.server.address() as AddressInfo;
    const edge = new TrackingEdge(parts, app, address, port);
    edge.markClosing = () => (closing = true);
    return edge;
  }

  private markClosing: () => void = () => undefined;

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.markClosing();
    // In-flight requests finish (their hits are recorded) before the sink and the store close.
    await this.app.close();
    await this.parts.snapshot.stop();
    await this.parts.hits.close();
    await this.parts.sessions.close();
    await this.parts.onClose?.();
  }
}
