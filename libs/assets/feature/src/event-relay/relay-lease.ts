import type { KV, KvEntry } from 'nats';
import { GlobalPosition, START_POSITION, parsePosition, positionToString } from '@funnel/eventstore';
import { kvCompareAndSet } from '@funnel/platform';

/** The one key of the relay's bucket: who relays, and up to where the stream has everything. */
export const RELAY_LEASE_KEY = 'relay';

interface LeaseValue {
  /** The relay holding the lease; null once it let go (a standby may take over at once). */
  holder: string | null;
  /** The checkpoint: every event up to here is in the stream. */
  position: string;
  /** When it was written (for people reading the bucket; never compared across machines). */
  at: string;
}

/** The lease this relay holds: the key's revision it last wrote, which every write must still find. */
export interface HeldLease {
  position: GlobalPosition;
  revision: number;
}

/** Thrown when another relay took the lease over (the key moved on since this one wrote it). */
export class RelayLeaseLost extends Error {
  constructor(holder: string) {
    super(`relay ${holder} lost its lease: another replica took it over`);
    this.name = 'RelayLeaseLost';
  }
}

/**
 * One active relay across replicas, and its checkpoint, in one JetStream KV key written only by
 * compare-and-set on its revision. The holder writes its checkpoint (at least every `ttlMs / 3`,
 * as a heartbeat); a standby takes the lease over when it has seen the same revision for `ttlMs` by
 * its own clock (no clocks compared across machines), or at once when the holder let go. A holder
 * that was taken over finds out at its next write (the revision moved on) and stops: the lease
 * fences the checkpoint, and JetStream's de-duplication absorbs what it sent meanwhile.
 */
export class RelayLease {
  private seen: { revision: number; since: number } | undefined;

  constructor(
    private readonly kv: KV,
    readonly holder: string,
    readonly ttlMs: number,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Takes the lease when it is free or stale; undefined while another relay holds it. */
  async tryAcquire(): Promise<HeldLease | undefined> {
    const entry = await this.kv.get(RELAY_LEASE_KEY);
    if (!entry || entry.operation !== 'PUT') {
      // First relay ever (or the bucket was emptied): from the start of the log.
      const revision = await kvCompareAndSet(() => this.kv.create(RELAY_LEASE_KEY, this.encode(START_POSITION)));
      return revision === undefined ? undefined : { position: START_POSITION, revision };
    }
    const current = decode(entry);
    const now = this.now();
    if (this.seen?.revision !== entry.revision) this.seen = { revision: entry.revision, since: now };
    const stale = now - this.seen.since >= this.ttlMs;
    if (current.holder !== null && current.holder !== this.holder && !stale) return undefined;
    const position = parsePosition(current.position);
    const revision = await kvCompareAndSet(() => this.kv.update(RELAY_LEASE_KEY, this.encode(position), entry.revision));
    return revision === undefined ? undefined : { position, revision };
  }

  /** Writes the checkpoint (and renews the lease); throws RelayLeaseLost when another relay holds it now. */
  async write(lease: HeldLease, position: GlobalPosition, release = false): Promise<void> {
    const revision = await kvCompareAndSet(() => this.kv.update(RELAY_LEASE_KEY, this.encode(position, release), lease.revision));
    if (revision === undefined) throw new RelayLeaseLost(this.holder);
    lease.revision = revision;
    lease.position = position;
  }

  /** The stored checkpoint (START_POSITION when none). */
  async checkpoint(): Promise<GlobalPosition> {
    const entry = await this.kv.get(RELAY_LEASE_KEY);
    return entry && entry.operation === 'PUT' ? parsePosition(decode(entry).position) : START_POSITION;
  }

  private encode(position: GlobalPosition, release = false): string {
    const value: LeaseValue = { holder: release ? null : this.holder, position: positionToString(position), at: new Date().toISOString() };
    return JSON.stringify(value);
  }
}

function decode(entry: KvEntry): LeaseValue {
  return JSON.parse(entry.string()) as LeaseValue;
}
