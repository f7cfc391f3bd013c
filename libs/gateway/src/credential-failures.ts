import { Logger, LoggerService } from '@nestjs/common';
import { ServiceError } from '@funnel/contracts';

export interface CredentialFailurePolicy {
  /** Failed attempts from one address that block it. */
  limit: number;
  /** Failures count within this window from the first one; a blocked address stays blocked this long. */
  windowMs: number;
}

export const DEFAULT_CREDENTIAL_FAILURE_POLICY: CredentialFailurePolicy = { limit: 50, windowMs: 5 * 60_000 };

interface AddressState {
  failures: number;
  since: number;
  /** 0 while not blocked. */
  blockedUntil: number;
}

/** Addresses remembered at most (per gateway replica); past it, the one whose count began longest ago is forgotten. */
const MAX_ADDRESSES = 100_000;

/**
 * Failed credential attempts (an unknown, disabled or deleted API key; a forged, tampered or foreign
 * token) per client address, in this gateway replica's memory. After `limit` failures within
 * `windowMs` of the first, the address is blocked for `windowMs`: every credential it sends is
 * answered 429 `AUTH.TOO_MANY_ATTEMPTS` with Retry-After without being checked, a right one
 * included (the usual lockout: checking would let guessing go on). Expired tokens are not failures
 * (clients renew them), and neither are requests without any credential.
 */
export class CredentialFailures {
  private readonly byAddress = new Map<string, AddressState>();
  private readonly logger: LoggerService;

  constructor(
    private readonly policy: CredentialFailurePolicy = DEFAULT_CREDENTIAL_FAILURE_POLICY,
    private readonly now: () => number = Date.now,
    logger?: LoggerService,
  ) {
    this.logger = logger ?? new Logger('CredentialFailures');
  }

  /** Throws the 429 while `address` is blocked; otherwise returns (one map lookup: this is on every request). */
  check(address: string): void {
    const state = this.byAddress.get(address);
    if (state === undefined || state.blockedUntil === 0) return;
    const left = state.blockedUntil - this.now();
    if (left <= 0) return;
    throw ServiceError.tooManyRequests('too many failed credential attempts from this address; try again later', Math.ceil(left / 1000));
  }

  failed(address: string): void {
    const now = this.now();
    let state = this.byAddress.get(address);
    if (state === undefined || this.ended(state, now)) {
      // Re-inserted, so the map's order is the order of `since`: the first entry is the oldest.
      this.byAddress.delete(address);
      if (this.byAddress.size >= MAX_ADDRESSES) this.byAddress.delete(this.byAddress.keys().next().value!);
      state = { failures: 0, since: now, blockedUntil: 0 };
      this.byAddress.set(address, state);
    }
    state.failures++;
    if (state.blockedUntil === 0 && state.failures >= this.policy.limit) {
      state.blockedUntil = now + this.policy.windowMs;
      this.logger.warn(
        { msg: 'credential attempts blocked for an address', event: 'auth.failure', address, failures: state.failures, blockedForMs: this.policy.windowMs },
        'CredentialFailures',
      );
    }
  }

  /** Whether a state no longer counts: its window passed without a block, or its block ended. */
  private ended(state: AddressState, now: number): boolean {
    return state.blockedUntil === 0 ? now - state.since >= this.policy.windowMs : state.blockedUntil <= now;
  }
}
