import { type RpcRequest, ServiceError } from '@funnel/contracts';
import { NO_MESSAGE_HANDLER } from '@nestjs/microservices/constants';
import type { Logger } from 'pino';
import { createLogger } from '../logging/logger';
import { DEFAULT_RPC_TIMEOUT_MS, type ServiceClient, toServiceError } from '../rpc/service-client';
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

  constructor(
    private readonly bus: InProcessBus,
    options: { timeoutMs?: number; logger?: Logger } = {},
  ) {
    this.timeoutMs = options.timeoutMs ?? DEFAULT_RPC_TIMEOUT_MS;
    this.logger = options.logger ?? createLogger('rpc-client');
  }

  request<T>(subject: string, payload: RpcRequest): Promise<T> {
    const endpoint = this.bus.requestEndpoint(subject);
    if (!endpoint) return Promise.reject(toServiceError(NO_MESSAGE_HANDLER, subject, payload, this.logger));
    return new Promise<T>((resolve, reject) => {
      let response: unknown;
      let settled = false;
      const finish = (error?: unknown) => {
        settled = true;
        clearTimeout(timer);
        if (error === undefined) resolve(response as T);
        else reject(toServiceError(error, subject, payload, this.logger));
      };
      const timer = setTimeout(() => {
        cancel();
        finish(ServiceError.unavailable(`${subject.split('.', 1)[0]} did not answer within ${this.timeoutMs} ms`));
      }, this.timeoutMs);
      const cancel = endpoint.deliverRequest(subject, payload, (packet) => {
        if (settled) return;
        if (packet.err !== undefined && packet.err !== null) return finish(packet.err);
        if (packet.response !== undefined) response = packet.response;
        if (packet.isDisposed) finish();
      });
    });
  }

  /** Events published on the bus (InProcessBus.publish), delivered synchronously. */
  subscribe(subject: string, handler: EventHandler): () => void {
    return this.bus.subscribe(subject, handler);
  }

  async close(): Promise<void> {
    return;
  }
}
