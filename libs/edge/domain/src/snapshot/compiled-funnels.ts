import { FUNNEL_KIND } from '@funnel/contracts';
import type { FunnelAssets } from '@funnel/routing';
import type { AssetSnapshotState, SnapshotChange } from './asset-snapshot-state';
import { ACCOUNT_WIDE_KINDS, collectFunnelAssets } from './funnel-assets';

interface Cached<T> {
  compiled: T;
  names: ReadonlySet<string>;
}

/**
 * Compiled funnels, per account, built on first use from the snapshot and kept until one of the
 * assets they name changes (or an account-wide kind of their account does). `compile` is the
 * engine's compileFunnel (injected: tests count its calls). A compile that throws is not kept.
 */
export class CompiledFunnels<T> {
  /** accountId -> idFunnel -> compiled. */
  private readonly byAccount = new Map<string, Map<string, Cached<T>>>();
  private compiles = 0;

  constructor(
    private readonly state: AssetSnapshotState,
    private readonly compile: (assets: FunnelAssets) => T,
  ) {}

  /** Funnels compiled since start (a cache miss each). */
  get compiled(): number {
    return this.compiles;
  }

  /** The compiled funnel, or undefined when the account has no such funnel (missing or deleted). */
  get(accountId: string, idFunnel: string): T | undefined {
    let funnels = this.byAccount.get(accountId);
    const cached = funnels?.get(idFunnel);
    if (cached) return cached.compiled;
    const collected = collectFunnelAssets(this.state, accountId, idFunnel);
    if (!collected) return undefined;
    const compiled = this.compile(collected.assets);
    this.compiles++;
    if (!funnels) this.byAccount.set(accountId, (funnels = new Map()));
    funnels.set(idFunnel, { compiled, names: collected.names });
    return compiled;
  }

  /** Forgets what `change` makes stale. */
  invalidate(change: SnapshotChange): void {
    const funnels = this.byAccount.get(change.accountId);
    if (!funnels) return;
    if (ACCOUNT_WIDE_KINDS.includes(change.kind)) {
      this.byAccount.delete(change.accountId);
      return;
    }
    if (change.kind === FUNNEL_KIND.kind) funnels.delete(change.assetId);
    for (const [idFunnel, cached] of funnels) if (cached.names.has(change.assetId)) funnels.delete(idFunnel);
  }

  clear(): void {
    this.byAccount.clear();
  }
}
