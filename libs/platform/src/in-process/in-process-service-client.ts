import { type RpcRequest, ServiceError } from '@funnel/contracts';
import { NO_MESSAGE_HANDLER } from '@nestjs/microservices/constants';
import type { Logger } from 'pino';
import { createLogger } from '../logging/logger';
import { type RpcMetrics, rpcOutcomeOf } from '../ops/metrics';
import { DEFAULT_RPC_TIMEOUT_MS, type RequestOptions, type ServiceClient, toServiceError } from '../rpc/service-client';
import type { EventHandler } from '../rpc/event-publisher';
import type { InProcessBus } from './in-process-bus';

/**
 * The standalone gateway's ServiceClient: hands the request straight to the InProcessServer that
 * serves the subject and settles on its reply packet. Same patterns, same Nest handler pipeline
 * and the same error mapping as over NATS, without a ClientProxy's per-request observables.
 */
export class InProcessServiceClient implements ServiceClient {
  private readonly timeoutMs: number;
  private readonly logger: Logger;
  private readonly metrics?: RpcMetrics;
  /**
   * Requests awaiting their reply. All share one timeout, so insertion order is deadline order and
   * one timer, set for the oldest, serves them all: a setTimeout/clearTimeout pair per request was a
   * visible share of a standalone request's CPU.
   */
  private readonly waiting = new Set<Waiting>();
  private timer: NodeJS.Timeout | undefined;
  /** When the timer fires (performance.now() time). */
  private timerDeadline = Infinity;

  constructor(
    private readonly bus: InProcessBus,
    options: { timeoutMs?: number; logger?: Logger; metrics?: RpcMetrics } = {},
  ) {
    this.timeoutMs = options.timeoutMs ?? DEFAULT_RPC_TIMEOUT_MS;
    this.logger = options.logger ?? createLogger('rpc-client');
    this.metrics = options.metrics;
  }

  request<T>(subject: string, payload: RpcRequest, options: RequestOptions = {}): Promise<T> {
    const startedAt = performance.now();
    const timeoutMs = options.timeoutMs ?? this.timeoutMs;
    const endpoint = this.bus.requestEndpoint(subject);
    if (!endpoint) {
      const error = toServiceError(NO_MESSAGE_HANDLER, subject, payload, this.logger);
      this.metrics?.observe(subject, rpcOutcomeOf(error), (performance.now() - startedAt) / 1000);
      return Promise.reject(error);
    }
    return new Promise<T>((resolve, reject) => {
      let response: unknown;
      let settled = false;
      const waiting: Waiting = {
        deadline: performance.now() + timeoutMs,
        expire: () => {
          cancel();
          finish(ServiceError.unavailable(`${subject.split('.', 1)[0]} did not answer within ${timeoutMs} ms`));
        },
      };
      const finish = (error?: unknown) => {
        settled = true;
        this.stopWaiting(waiting);
        if (error === undefined) {
          this.metrics?.observe(subject, 'ok', (performance.now() - startedAt) / 1000);
          return resolve(response as T);
        }
        const serviceError = toServiceError(error, subject, payload, this.logger);
        this.metrics?.observe(subject, rpcOutcomeOf(serviceError), (performance.now() - startedAt) / 1000);
        reject(serviceError);
      };
      this.startWaiting(waiting);
      const cancel = endpoint.deliverRequest(subject, payload, (packet) => {
        if (settled) return;
        if (packet.err !== undefined && packet.err !== null) return finish(packet.err);
        if (packet.response !== undefined) response = packet.response;
        if (packet.isDisposed) finish();
      });
    });
  }

  private startWaiting(waiting: Waiting): void {
    this.waiting.add(waiting);
    // A request with a nearer deadline than the timer's (a shorter bound than a slow query's) resets it.
    if (!this.timer || waiting.deadline < this.timerDeadline) {
      clearTimeout(this.timer);
      this.timerDeadline = waiting.deadline;
      this.timer = setTimeout(this.expireOverdue, Math.max(1, Math.ceil(waiting.deadline - performance.now())));
    }
    // A waiting request keeps the process alive until it is answered or times out.
    else if (this.waiting.size === 1) this.timer.ref();
  }

  private stopWaiting(waiting: Waiting): void {
    this.waiting.delete(waiting);
    // Left set for the next request (re-setting it per request is the cost avoided), but idle.
    if (this.waiting.size === 0) this.timer?.unref();
  }

  /** Fails the requests whose deadline has passed, then sets the timer for the oldest one left. */
  private readonly expireOverdue = (): void => {
    this.timer = undefined;
    const now = performance.now();
    // Deadlines differ by request (RequestOptions.timeoutMs), so every waiting request is looked at.
    let next = Infinity;
    for (const waiting of [...this.waiting]) {
      if (waiting.deadline <= now) waiting.expire();
      else next = Math.min(next, waiting.deadline);
    }
    if (next !== Infinity) {
      this.timerDeadline = next;
      this.timer = setTimeout(this.expireOverdue, Math.max(1, Math.ceil(next - now)));
    }
  };

  /** Events published on the bus (InProcessBus.publish), delivered synchronously. */
  subscribe(subject: string, handler: EventHandler): () => void {
    return this.bus.subscribe(subject, handler);
  }

  async close(): Promise<void> {
    return;
  }
}

interface Waiting {
  /** performance.now() from which on the request fails with a 503. */
  readonly deadline: number;
  expire(): void;
}
