import { Logger } from '@nestjs/common';
import type { AssetEventMessage } from '@funnel/contracts';
import type { ServiceClient } from '@funnel/platform';
import { type CompiledFunnel, type FunnelAssets, compileFunnel } from '@funnel/routing';
import { AssetSnapshotState, CompiledFunnels, DomainDirectory } from '@funnel/edge-domain';
import type { AssetEventFeed, AssetEventSink } from './asset-event-feeds';
import { loadEdgeDomains, loadSnapshotAssets } from './snapshot-sources';

export interface EdgeSnapshotOptions {
  /** Reaches `assets.internal.edgesnapshot` and `billing.internal.domains` (the in-process bus, or NATS as tracking-edge). */
  client: ServiceClient;
  feed: AssetEventFeed;
  /** The engine's compileFunnel unless given (tests inject one). */
  compile?: (assets: FunnelAssets) => CompiledFunnel;
  /** Assets and domains per load request (EDGE_SNAPSHOT_PAGE_SIZE, default 1000). */
  pageSize?: number;
  /** How often the custom domains are read again (EDGE_DOMAINS_REFRESH_MS, default 10 s; 0: only at load). */
  domainsRefreshMs?: number;
  /** Wait before a failed load is tried again (default 1 s, doubling up to 30 s). */
  retryDelayMs?: number;
  /** Bound of one load request (default 30 s). */
  requestTimeoutMs?: number;
  logger?: Pick<Logger, 'log' | 'warn' | 'error'>;
  now?: () => number;
}

export interface EdgeSnapshotStats {
  ready: boolean;
  assets: number;
  domains: number;
  /** The latest log position reflected. */
  position: string | null;
  loads: number;
  eventsApplied: number;
  /** Events whose revision was not the next one (each led to a reload). */
  gaps: number;
  compiled: number;
  /** occurredAt of the latest applied event to now, ms (0 before any event). */
  lastEventDelayMs: number;
}

interface Generation {
  state: AssetSnapshotState;
  funnels: CompiledFunnels<CompiledFunnel>;
}

/**
 * The tracking edge's in-memory copy of every routing asset (issue 22). `start()` loads every
 * account's routing assets and custom domains, then follows the asset events from the load's
 * position (before `ready`, requests find nothing); a lost feed, or an event showing a gap, makes it
 * load again in the background while it keeps answering from what it has, then swap. Custom domains
 * (billing has no event stream) are read again every `domainsRefreshMs`.
 */
export class EdgeSnapshot {
  private readonly logger: Pick<Logger, 'log' | 'warn' | 'error'>;
  private readonly compile: (assets: FunnelAssets) => CompiledFunnel;
  private readonly now: () => number;
  private current: Generation;
  private readonly domains = new DomainDirectory();
  /** While a load of a live feed runs: the events received meanwhile, applied to the new generation. */
  private buffered: AssetEventMessage[] | undefined;
  private loaded = false;
  private stopped = false;
  private loading: Promise<void> | undefined;
  private reloadWanted = false;
  private domainsTimer: NodeJS.Timeout | undefined;
  private retryTimer: { timer: NodeJS.Timeout; resolve: () => void } | undefined;
  private readonly counters = { loads: 0, eventsApplied: 0, gaps: 0, lastEventDelayMs: 0 };
  private feedStarted = false;
  private readyWaiters: (() => void)[] = [];
  private readonly listeners = new Set<(event: AssetEventMessage, delayMs: number) => void>();

  constructor(private readonly options: EdgeSnapshotOptions) {
    this.logger = options.logger ?? new Logger('EdgeSnapshot');
    this.compile = options.compile ?? compileFunnel;
    this.now = options.now ?? Date.now;
    this.current = this.generation();
  }

  /** Loaded once (readiness); stays true across reloads, which serve from the previous load meanwhile. */
  get ready(): boolean {
    return this.loaded;
  }

  /** Resolves once loaded (retrying a failed load); does not wait for it. */
  start(): void {
    this.requestLoad();
    const every = this.options.domainsRefreshMs ?? 10_000;
    if (every > 0) this.domainsTimer = setInterval(() => void this.refreshDomains(), every);
  }

  /** Resolves when loaded (at once when it is). */
  whenReady(): Promise<void> {
    return this.loaded ? Promise.resolve() : new Promise((resolve) => this.readyWaiters.push(resolve));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.domainsTimer);
    if (this.retryTimer) {
      clearTimeout(this.retryTimer.timer);
      this.retryTimer.resolve();
    }
    await this.loading?.catch(() => undefined);
    await this.options.feed.stop();
  }

  /** The account's funnel, compiled (cached until an asset it names changes); undefined when missing or deleted. Archived: check `assets.funnel.status`. */
  funnel(accountId: string, idFunnel: string): CompiledFunnel | undefined {
    return this.current.funnels.get(accountId, idFunnel);
  }

  /** The account's live (not deleted) record of an asset, e.g. a traffic source for an entrance link. */
  asset(accountId: string, kind: string, assetId: string): Readonly<Record<string, unknown>> | undefined {
    return this.current.state.get(accountId, kind, assetId);
  }

  /** The account owning a custom domain (`Host` header, port and case ignored), or undefined. */
  accountOfDomain(host: string): string | undefined {
    return this.domains.accountOf(host);
  }

  get stats(): EdgeSnapshotStats {
    return {
      ready: this.loaded,
      assets: this.current.state.size,
      domains: this.domains.size,
      position: this.current.state.position,
      compiled: this.current.funnels.compiled,
      ...this.counters,
    };
  }

  /** Calls `listener` after each applied event with its delay (occurredAt to now, ms): metrics, tests. Returns the unsubscribe. */
  onApplied(listener: (event: AssetEventMessage, delayMs: number) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Loads everything again (in the background; the current snapshot answers meanwhile). */
  reload(reason: string): Promise<void> {
    this.logger.warn(`asset snapshot reloads: ${reason}`);
    return this.requestLoad();
  }

  private generation(): Generation {
    const state = new AssetSnapshotState();
    return { state, funnels: new CompiledFunnels(state, this.compile) };
  }

  private requestLoad(): Promise<void> {
    if (this.loading) {
      this.reloadWanted = true;
      return this.loading;
    }
    this.loading = this.loadUntilDone().finally(() => {
      this.loading = undefined;
      if (this.reloadWanted && !this.stopped) {
        this.reloadWanted = false;
        void this.requestLoad();
      }
    });
    return this.loading;
  }

  private async loadUntilDone(): Promise<void> {
    let delay = this.options.retryDelayMs ?? 1000;
    while (!this.stopped) {
      try {
        await this.loadOnce();
        return;
      } catch (error) {
        if (this.stopped) return;
        this.logger.warn(`asset snapshot load failed: ${(error as Error).message}; trying again in ${delay} ms`);
        await new Promise<void>((resolve) => (this.retryTimer = { timer: setTimeout(resolve, delay), resolve }));
        delay = Math.min(delay * 2, 30_000);
      }
    }
  }

  private readonly sink: AssetEventSink = {
    events: (events) => this.receive(events),
    lost: (reason) => void this.reload(reason),
  };

  private async loadOnce(): Promise<void> {
    const { feed, client } = this.options;
    const pageSize = this.options.pageSize ?? 1000;
    const timeoutMs = this.options.requestTimeoutMs ?? 30_000;
    if (feed.mode === 'live') {
      this.buffered = [];
      if (!this.feedStarted) {
        await feed.start(this.sink, null);
        this.feedStarted = true;
      }
    } else if (this.feedStarted) {
      await feed.stop();
      this.feedStarted = false;
    }
    try {
      const [{ assets, position }, domains] = await Promise.all([
        loadSnapshotAssets(client, pageSize, timeoutMs),
        loadEdgeDomains(client, pageSize, timeoutMs),
      ]);
      const next = this.generation();
      for (const asset of assets) next.state.put(asset);
      next.state.markLoaded(position);
      if (this.stopped) return;
      this.domains.replace(domains);
      this.current = next;
      const buffered = this.buffered ?? [];
      this.buffered = undefined;
      this.receive(buffered);
      if (feed.mode === 'replay') {
        await feed.start(this.sink, position);
        this.feedStarted = true;
      }
      this.counters.loads++;
      this.logger.log(`asset snapshot loaded: ${assets.length} assets, ${domains.length} custom domains, at ${position ?? 'the start'}`);
      if (!this.loaded) {
        this.loaded = true;
        for (const resolve of this.readyWaiters.splice(0)) resolve();
      }
    } finally {
      this.buffered = undefined;
    }
  }

  /** Applies events to the snapshot answering now; while a live feed's load runs, keeps them for the new one too. */
  private receive(events: AssetEventMessage[]): void {
    if (this.buffered) this.buffered.push(...events);
    if (!this.loaded && this.buffered) return;
    const { state, funnels } = this.current;
    for (const event of events) {
      const before = state.revisionOf(event.accountId, event.kind, event.assetId);
      const outcome = state.apply(event);
      if (!outcome.applied) continue;
      funnels.invalidate(outcome.change);
      this.counters.eventsApplied++;
      const occurred = Date.parse(event.occurredAt);
      const delayMs = Number.isFinite(occurred) ? Math.max(0, this.now() - occurred) : 0;
      this.counters.lastEventDelayMs = delayMs;
      for (const listener of this.listeners) listener(event, delayMs);
      if (outcome.gap && !this.buffered) {
        this.counters.gaps++;
        void this.reload(`${event.kind} ${event.assetId} revision ${event.revision} arrived after revision ${before ?? 'none'}`);
      }
    }
  }

  private async refreshDomains(): Promise<void> {
    if (!this.loaded || this.stopped) return;
    try {
      this.domains.replace(await loadEdgeDomains(this.options.client, this.options.pageSize ?? 1000, this.options.requestTimeoutMs ?? 30_000));
    } catch (error) {
      this.logger.warn(`custom domains refresh failed: ${(error as Error).message}`);
    }
  }
}
