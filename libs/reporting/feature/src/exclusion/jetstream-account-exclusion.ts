import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { KV, NatsConnection } from 'nats';
import { REPORTING_ACCOUNT_LEASES_BUCKET } from '@funnel/contracts';
import { isWrongLastSequence, kvCompareAndSet } from '@funnel/platform';
import { ExclusionClosedError, InProcessAccountExclusion, type AccountExclusion, type AccountHold } from './account-exclusion';

export interface JetStreamAccountExclusionOptions {
  /** A connected client (the queues' connection); never closed here. */
  connection: NatsConnection;
  /** The key-value bucket of the leases, one key per account (default `REPORTING_ACCOUNT_LEASES`). */
  bucket?: string;
  /** Bucket replicas in a NATS cluster (default 1). */
  replicas?: number;
  /**
   * How long a lease whose holder stopped renewing it (its process died) blocks the account (default
   * 30000): another process takes it over once it has seen the same revision for this long.
   */
  ttlMs?: number;
  /** How often a waiter looks at a lease held elsewhere (default 250). */
  pollMs?: number;
  /** This process's name in the leases (default host, pid and a random suffix). */
  holder?: string;
  /** Told about failures that do not stop anyone: a renewal that failed or lost the lease, a release that failed. */
  onError?: (error: unknown) => void;
  /** The clock of the takeover (default `performance.now`): only ever compared with itself. */
  now?: () => number;
}

const DEFAULT_TTL_MS = 30_000;
const DEFAULT_POLL_MS = 250;
/** Characters a KV key may hold (account ids are asset ids: letters and digits). */
const KEY = /^[A-Za-z0-9_=-]+$/;

/** A lease's value: who holds it, and since when (for people reading the bucket; never compared across machines). */
interface LeaseValue {
  holder: string;
  at: string;
}

export class AccountLeaseLost extends Error {
  constructor(accountId: string, holder: string) {
    super(`${holder} lost the lease of account ${accountId} while applying its job: another process took it over after the lease ttl`);
    this.name = 'AccountLeaseLost';
  }
}

/**
 * A lease per account in a JetStream KV bucket, shared by every replica, in front of this process's
 * own line per account (InProcessAccountExclusion, so one process asks for a lease once at a time).
 * The lease is a key written only by compare-and-set: `create` when free (absent or deleted), the
 * holder renews it (`update` on its revision) every `ttlMs / 3` and deletes it on its revision when
 * done. A waiter polls the key; a holder that died stops renewing, and a waiter that has seen the
 * same revision for `ttlMs` by its own clock takes the lease over (as the asset event relay's lease
 * does: no clocks compared across machines).
 */
export class JetStreamAccountExclusion implements AccountExclusion {
  private readonly local = new InProcessAccountExclusion();
  private readonly nc: NatsConnection;
  private readonly bucketName: string;
  private readonly replicas: number;
  private readonly ttlMs: number;
  private readonly pollMs: number;
  readonly holder: string;
  private readonly onError: (error: unknown) => void;
  private readonly now: () => number;
  private kv: Promise<KV> | undefined;
  private readonly sleepers = new Set<() => void>();
  private closing = false;

  constructor(options: JetStreamAccountExclusionOptions) {
    this.nc = options.connection;
    this.bucketName = options.bucket ?? REPORTING_ACCOUNT_LEASES_BUCKET;
    this.replicas = options.replicas ?? 1;
    this.ttlMs = options.ttlMs ?? DEFAULT_TTL_MS;
    this.pollMs = options.pollMs ?? DEFAULT_POLL_MS;
    this.holder = options.holder ?? `${hostname()}-${process.pid}-${randomUUID().slice(0, 8)}`;
    this.onError = options.onError ?? (() => undefined);
    this.now = options.now ?? (() => performance.now());
  }

  acquire(accountId: string): Promise<AccountHold> {
    if (!KEY.test(accountId)) return Promise.reject(new Error(`account id ${JSON.stringify(accountId)} cannot name a lease`));
    // Takes this process's place in the account's line at once (the order of the calls).
    const turn = this.local.acquire(accountId);
    return turn.then(async (local) => {
      let revision: number;
      try {
        revision = await this.take(accountId);
      } catch (error) {
        await local.release();
        throw error;
      }
      return this.hold(accountId, revision, local);
    });
  }

  async close(): Promise<void> {
    this.closing = true;
    await this.local.close();
    for (const wake of [...this.sleepers]) wake();
  }

  /** Waits until the account's lease is free or stale, then takes it; its revision. */
  private async take(accountId: string): Promise<number> {
    let seen: { revision: number; since: number } | undefined;
    for (;;) {
      if (this.closing) throw new ExclusionClosedError();
      try {
        const kv = await this.bucket();
        const entry = await kv.get(accountId);
        if (!entry || entry.operation !== 'PUT') {
          const revision = await kvCompareAndSet(() => kv.create(accountId, this.value()));
          if (revision !== undefined) return revision;
        } else {
          const now = this.now();
          if (seen?.revision !== entry.revision) seen = { revision: entry.revision, since: now };
          // This process's own lease is a leftover (a release NATS missed): its line lets one holder at a time.
          const leftover = holderOf(entry.string()) === this.holder;
          if (leftover || now - seen.since >= this.ttlMs) {
            const revision = await kvCompareAndSet(() => kv.update(accountId, this.value(), entry.revision));
            if (revision !== undefined) return revision;
          }
        }
      } catch (error) {
        // NATS unreachable for a moment: keep waiting (the delivery is kept alive meanwhile).
        this.onError(error);
      }
      await this.sleep(this.pollMs);
    }
  }

  /** Renews the lease until released; releasing deletes it (on its revision) and lets this process's next waiter go. */
  private hold(accountId: string, taken: number, local: AccountHold): AccountHold {
    let revision: number | undefined = taken;
    let renewing: Promise<void> = Promise.resolve();
    const renew = setInterval(
      () => {
        renewing = (async () => {
          if (revision === undefined) return;
          try {
            const kv = await this.bucket();
            revision = await kvCompareAndSet(() => kv.update(accountId, this.value(), revision!));
            if (revision === undefined) this.onError(new AccountLeaseLost(accountId, this.holder));
          } catch (error) {
            this.onError(error);
          }
        })();
      },
      Math.max(1, Math.floor(this.ttlMs / 3)),
    );
    // A holder that never releases (its handler hangs) does not keep the process alive.
    renew.unref();
    let released: Promise<void> | undefined;
    return {
      release: () =>
        (released ??= (async () => {
          clearInterval(renew);
          await renewing;
          try {
            if (revision !== undefined) await (await this.bucket()).delete(accountId, { previousSeq: revision });
          } catch (error) {
            // Lost meanwhile, or NATS unreachable: the lease runs out after its ttl.
            if (!isWrongLastSequence(error)) this.onError(error);
          } finally {
            await local.release();
          }
        })()),
    };
  }

  private value(): string {
    const value: LeaseValue = { holder: this.holder, at: new Date().toISOString() };
    return JSON.stringify(value);
  }

  private bucket(): Promise<KV> {
    this.kv ??= this.nc
      .jetstream()
      .views.kv(this.bucketName, { history: 1, replicas: this.replicas })
      .catch((error: unknown) => {
        this.kv = undefined;
        throw error;
      });
    return this.kv;
  }

  /** Sleeps, cut short by close(). */
  private sleep(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        this.sleepers.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      this.sleepers.add(wake);
    });
  }
}

function holderOf(text: string): string | undefined {
  try {
    return (JSON.parse(text) as Partial<LeaseValue>).holder;
  } catch {
    return undefined;
  }
}
