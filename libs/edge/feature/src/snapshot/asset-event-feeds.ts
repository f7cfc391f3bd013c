import { type NatsConnection, type Subscription as NatsSubscription } from 'nats';
import { ASSET_EVENTS_SUBJECTS, type AssetEventMessage } from '@funnel/contracts';
import { type EventStore, START_POSITION, type Subscription, parsePosition } from '@funnel/eventstore';
import type { AssetRegistry } from '@funnel/assets-domain';
import { assetEventMessage } from '@funnel/assets-feature';

/** Where the feed's events go. */
export interface AssetEventSink {
  /** Events in log order (at least once). */
  events(events: AssetEventMessage[]): void;
  /** Events may have been missed (a lost connection or subscription): the snapshot reloads. */
  lost(reason: string): void;
}

/**
 * The asset events the snapshot follows. `live` feeds deliver from the moment they start (the
 * snapshot starts them before its load and drops what the load already has); `replay` feeds deliver
 * every event after the position they are given (the load's).
 */
export interface AssetEventFeed {
  readonly mode: 'live' | 'replay';
  start(sink: AssetEventSink, from: string | null): Promise<void>;
  stop(): Promise<void>;
}

const DECODER = new TextDecoder();

/**
 * Distributed mode: the asset events as the relay publishes them on `assets.events.>`, received as a
 * plain NATS subscriber so that every edge replica gets every event (the stream's reader consumers
 * share their deliveries among a reader's processes, and the edge's replicas each need all of them).
 * Only assets-service may publish there. NATS keeps no message for a subscriber that is away, so a
 * reconnect (the server or the network was lost, or the server dropped a slow consumer) is reported
 * as `lost` and the snapshot reloads; nothing else can lose a message between the relay and here.
 */
export class NatsAssetEventFeed implements AssetEventFeed {
  readonly mode = 'live' as const;
  private nc: NatsConnection | undefined;
  private subscription: NatsSubscription | undefined;

  /** `connect` opens the feed's own connection (the tracking-edge user); the feed closes it on stop. */
  constructor(private readonly connect: () => Promise<NatsConnection>) {}

  async start(sink: AssetEventSink): Promise<void> {
    const nc = (this.nc = await this.connect());
    this.subscription = nc.subscribe(ASSET_EVENTS_SUBJECTS, {
      callback: (error, message) => {
        if (error) return sink.lost(`asset events subscription: ${error.message}`);
        let payload: AssetEventMessage;
        try {
          payload = JSON.parse(DECODER.decode(message.data)) as AssetEventMessage;
        } catch {
          return;
        }
        sink.events([payload]);
      },
    });
    // Flushed: the server has the subscription before the load begins.
    await nc.flush();
    void (async () => {
      for await (const status of nc.status()) if (status.type === 'reconnect') sink.lost('NATS connection was lost and is back');
    })().catch(() => undefined);
  }

  async stop(): Promise<void> {
    this.subscription?.unsubscribe();
    const nc = this.nc;
    this.nc = undefined;
    if (nc && !nc.isClosed()) await nc.close();
  }
}

/**
 * Standalone mode: the in-process event log itself (as the projections and the relay follow it),
 * from the load's position, each event turned into the stream's message (secrets removed).
 */
export class EventStoreAssetEventFeed implements AssetEventFeed {
  readonly mode = 'replay' as const;
  private subscription: Subscription | undefined;

  constructor(
    private readonly eventStore: EventStore,
    private readonly registry: AssetRegistry,
  ) {}

  async start(sink: AssetEventSink, from: string | null): Promise<void> {
    this.subscription = this.eventStore.subscribeToAll({
      from: from === null ? START_POSITION : parsePosition(from),
      streamNamePrefixes: this.registry.streamPrefixes(),
      batchSize: 1000,
      onEvents: (events) => {
        const messages: AssetEventMessage[] = [];
        for (const event of events) {
          const message = assetEventMessage(this.registry, event);
          if (message) messages.push(message.payload);
        }
        if (messages.length) sink.events(messages);
      },
      onError: (error) => sink.lost(`event log subscription: ${error.message}`),
    });
  }

  async stop(): Promise<void> {
    const subscription = this.subscription;
    this.subscription = undefined;
    await subscription?.stop();
  }
}
