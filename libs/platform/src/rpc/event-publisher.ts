/**
 * Fire-and-forget events from a service to other processes (cache invalidation and the like):
 * a NATS publish in distributed mode (LeanServerNats), a bus delivery in standalone mode
 * (InProcessBus). Subscribers receive them through ServiceClient.subscribe.
 *
 * Delivery is at most once: an event published while NATS is away is dropped, so a subscriber must
 * stay correct without it (the gateway's key cache expires within seconds anyway).
 */
export interface EventPublisher {
  /** Never throws. `data` must survive JSON. */
  publish(subject: string, data: unknown): void;
}

/** Nest injection token for the EventPublisher a service module publishes through. */
export const EVENT_PUBLISHER = Symbol.for('funnel.EventPublisher');

/** Publishes nothing: for modules run without any subscriber (tests, tools). */
export const NO_EVENT_PUBLISHER: EventPublisher = { publish: () => undefined };

/** A subscriber callback: gets the event's `data`. Its failures are contained (logged or dropped), never propagated. */
export type EventHandler = (data: unknown) => void;
