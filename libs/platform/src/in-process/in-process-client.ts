import { ClientProxy, type ReadPacket, type WritePacket } from '@nestjs/microservices';
import { NO_MESSAGE_HANDLER } from '@nestjs/microservices/constants';
import type { InProcessBus } from './in-process-bus';

type InProcessStatus = 'connected';

/**
 * Nest ClientProxy that reaches InProcessServers through an InProcessBus: the same `send`/`emit`
 * and the same error packets as ClientNats, without a network. Usable wherever a ClientProxy is.
 */
export class InProcessClient extends ClientProxy<Record<never, never>, InProcessStatus> {
  constructor(private readonly bus: InProcessBus) {
    super();
    this._status$.next('connected');
  }

  /** Nothing to connect to: ClientProxy.send calls this before every request. */
  connect(): Promise<void> {
    return Promise.resolve();
  }

  close(): Promise<void> {
    return Promise.resolve();
  }

  unwrap<T>(): T {
    return this.bus as T;
  }

  protected publish(packet: ReadPacket, callback: (packet: WritePacket) => void): () => void {
    const pattern = this.normalizePattern(packet.pattern);
    const endpoint = this.bus.requestEndpoint(pattern);
    if (!endpoint) {
      callback({ err: NO_MESSAGE_HANDLER, isDisposed: true });
      return () => undefined;
    }
    return endpoint.deliverRequest(pattern, packet.data, callback);
  }

  /** Fire and forget, as a NATS publish: resolves once handed to every listener, not when handled. */
  protected dispatchEvent<T = unknown>(packet: ReadPacket): Promise<T> {
    this.bus.publish(this.normalizePattern(packet.pattern), packet.data);
    return Promise.resolve(undefined as T);
  }
}
