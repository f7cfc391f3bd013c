import { NatsContext, ServerNats } from '@nestjs/microservices';
import type { NatsConnection } from 'nats';
import { isObservable } from 'rxjs';
import { coalesceWritesPerLoopTurn } from './nats-write-coalescing';
import type { EventPublisher } from './event-publisher';

type NatsMessage = Parameters<ServerNats['handleMessage']>[1];

const encoder = new TextEncoder();

/**
 * Nest's NATS server with two costs taken off the request path, the wire format unchanged:
 * handlers are found by a map lookup (the base class first tries JSON.parse on every subject, and
 * the exception that throws is a large share of a request), and a plain handler result is
 * published at once instead of through Server.send's stream scheduling. Its replies are written
 * once per event-loop turn (see coalesceWritesPerLoopTurn).
 *
 * It is also the service's EventPublisher: events go out on the connection that carries its
 * replies, so an event published before a handler returns reaches a subscriber that is also the
 * requester (the gateway) before the reply does: NATS keeps one connection's messages in order.
 */
export class LeanServerNats extends ServerNats implements EventPublisher {
  private connection?: NatsConnection;

  override async createNatsClient() {
    const client = await super.createNatsClient();
    coalesceWritesPerLoopTurn(client as unknown as NatsConnection);
    this.connection = client as unknown as NatsConnection;
    return client;
  }

  /** Nest's event wire format (`{ pattern, data }`, JSON); dropped when not connected (at most once). */
  publish(subject: string, data: unknown): void {
    const nc = this.connection;
    if (!nc || nc.isClosed()) return;
    try {
      nc.publish(subject, encoder.encode(JSON.stringify({ pattern: subject, data })));
    } catch (error) {
      this.logger.warn(`event on ${subject} not published: ${(error as Error).message}`);
    }
  }

  override getHandlerByPattern(pattern: string) {
    return this.messageHandlers.get(pattern) ?? super.getHandlerByPattern(pattern);
  }

  override async handleMessage(channel: string, natsMsg: NatsMessage): Promise<void> {
    const handler = natsMsg.reply ? this.messageHandlers.get(channel) : undefined;
    if (!handler || handler.isEventHandler) return super.handleMessage(channel, natsMsg);
    const natsCtx = new NatsContext([natsMsg.subject, natsMsg.headers]);
    const message = await this.deserializer.deserialize(natsMsg.data, { channel, replyTo: natsMsg.reply });
    if (!('id' in message) || message.id === undefined) return this.handleEvent(channel, message, natsCtx);
    const publish = this.getPublisher(natsMsg, message.id, natsCtx);
    return this.onProcessingStartHook(this.transportId, natsCtx, async () => {
      const result: unknown = await handler(message.data, natsCtx);
      if (!isObservable(result)) {
        publish({ response: result, isDisposed: true });
        return;
      }
      this.send(this.transformToObservable(result), publish);
    });
  }
}
