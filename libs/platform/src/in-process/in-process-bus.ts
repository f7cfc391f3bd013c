import type { WritePacket } from '@nestjs/microservices';
import type { EventHandler, EventPublisher } from '../rpc/event-publisher';

/** Receives what a bus delivers: implemented by InProcessServer. */
export interface InProcessEndpoint {
  /** Runs the request handler; `respond` gets Nest's reply packets. Returns a cancel function. */
  deliverRequest(pattern: string, data: unknown, respond: (packet: WritePacket) => void): () => void;
  deliverEvent(pattern: string, data: unknown): void;
}

export interface InProcessRoutes {
  requestPatterns: readonly string[];
  eventPatterns: readonly string[];
}

/**
 * The in-process stand-in for NATS: which server answers which pattern. Create one per process
 * (standalone mode) and hand it to every InProcessServer and InProcessClient.
 * A request pattern has exactly one server (the in-process equivalent of one queue group);
 * an event pattern reaches every server that listens to it.
 */
export interface InProcessBusOptions {
  /**
   * Copy payloads and replies as JSON, as the wire would (default). Standalone mode turns it off:
   * its callers never mutate what they pass, the distributed suites cover JSON-ness, and the copies
   * are a large share of an in-process round trip.
   */
  copyPayloads?: boolean;
}

export class InProcessBus implements EventPublisher {
  private readonly requestRoutes = new Map<string, InProcessEndpoint>();
  readonly copy: <T>(value: T) => T;

  constructor(options: InProcessBusOptions = {}) {
    this.copy = options.copyPayloads === false ? <T>(value: T) => value : copyAcrossBoundary;
  }

  private readonly eventRoutes = new Map<string, InProcessEndpoint[]>();
  /** Plain callbacks (ServiceClient.subscribe), next to the servers' @EventPattern handlers. */
  private readonly subscribers = new Map<string, Set<{ handler: EventHandler }>>();

  /**
   * Delivers an event to every server listening to the pattern and to every subscriber, like a
   * NATS publish. Subscribers run synchronously, before this returns: a publisher that publishes
   * before it replies knows they have seen the event by the time its caller gets the reply.
   */
  publish(pattern: string, data: unknown): void {
    for (const endpoint of this.eventEndpoints(pattern)) endpoint.deliverEvent(pattern, data);
    const subscribers = this.subscribers.get(pattern);
    if (!subscribers) return;
    for (const subscriber of [...subscribers]) {
      try {
        subscriber.handler(this.copy(data));
      } catch {
        // A subscriber's failure is its own (as over NATS); the publisher and other subscribers go on.
      }
    }
  }

  /** Calls `handler` with each event published on `pattern` until the returned function is called. */
  subscribe(pattern: string, handler: EventHandler): () => void {
    const subscriber = { handler };
    const subscribers = this.subscribers.get(pattern) ?? new Set();
    subscribers.add(subscriber);
    this.subscribers.set(pattern, subscribers);
    return () => {
      subscribers.delete(subscriber);
      if (subscribers.size === 0 && this.subscribers.get(pattern) === subscribers) this.subscribers.delete(pattern);
    };
  }

  register(endpoint: InProcessEndpoint, routes: InProcessRoutes): void {
    const taken = routes.requestPatterns.filter((pattern) => {
      const owner = this.requestRoutes.get(pattern);
      return owner !== undefined && owner !== endpoint;
    });
    if (taken.length > 0) {
      // Two modules answering one subject is a wiring mistake; fail the start, do not pick one.
      throw new Error(`in-process bus: message pattern(s) already served by another server: ${taken.join(', ')}`);
    }
    for (const pattern of routes.requestPatterns) this.requestRoutes.set(pattern, endpoint);
    for (const pattern of routes.eventPatterns) {
      const listeners = this.eventRoutes.get(pattern) ?? [];
      if (!listeners.includes(endpoint)) this.eventRoutes.set(pattern, [...listeners, endpoint]);
    }
  }

  unregister(endpoint: InProcessEndpoint): void {
    for (const [pattern, owner] of this.requestRoutes) {
      if (owner === endpoint) this.requestRoutes.delete(pattern);
    }
    for (const [pattern, listeners] of this.eventRoutes) {
      const remaining = listeners.filter((listener) => listener !== endpoint);
      if (remaining.length > 0) this.eventRoutes.set(pattern, remaining);
      else this.eventRoutes.delete(pattern);
    }
  }

  requestEndpoint(pattern: string): InProcessEndpoint | undefined {
    return this.requestRoutes.get(pattern);
  }

  eventEndpoints(pattern: string): readonly InProcessEndpoint[] {
    return this.eventRoutes.get(pattern) ?? [];
  }
}

/**
 * Gives the receiver its own copy, as the wire would: caller and handler never share mutable
 * objects, and values change exactly as over NATS's JSON (Dates become strings, undefined fields
 * vanish), so standalone mode cannot hide a serialization bug that distributed mode would show.
 */
export function copyAcrossBoundary<T>(value: T): T {
  if (value === undefined || value === null || typeof value !== 'object') return value;
  return JSON.parse(JSON.stringify(value)) as T;
}
