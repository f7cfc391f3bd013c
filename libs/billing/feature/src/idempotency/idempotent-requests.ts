import { createHash } from 'node:crypto';
import { CallerContext, ServiceError } from '@funnel/contracts';
import { EventStore, WrongExpectedRevisionError } from '@funnel/eventstore';
import {
  IdempotencyEvent,
  IdempotencyState,
  IdempotencyStreams,
  IdempotentOutcome,
  asIdempotencyEvent,
  checkIdempotencyKey,
  decideIdempotentRequest,
  evolveIdempotency,
  isFinalOutcome,
} from '@funnel/billing-domain';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** A canonical JSON text (keys sorted), so the same body sent with another key order is the same request. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * Mutations with an `Idempotency-Key` header: the key's requests are a stream of their own per
 * account (`billingidempotency-<accountId>.<sha256(key)>`), started by an append at the revision
 * read (so of two requests racing with one key, one runs and the other gets 409
 * IDEMPOTENCY_KEY_IN_USE), completed with the answer, which the same request gets again for 24 h.
 */
export class IdempotentRequests {
  constructor(
    private readonly eventStore: EventStore,
    private readonly clock: () => number = Date.now,
  ) {}

  /** Runs `work` once per key and request; without a key, simply runs it. */
  async run<T>(
    context: CallerContext,
    key: string | undefined,
    request: { subject: string; params?: unknown; body?: unknown },
    work: () => Promise<T>,
  ): Promise<T> {
    if (key === undefined) return work();
    const stream = IdempotencyStreams.key(context.accountId, sha256(checkIdempotencyKey(key)));
    const fingerprint = sha256(canonical({ subject: request.subject, params: request.params ?? {}, body: request.body ?? null }));
    const { state, revision } = await this.load(stream);
    const decision = decideIdempotentRequest(state, fingerprint, this.clock());
    if (decision.type === 'refuse') throw decision.error;
    if (decision.type === 'replay') return replay<T>(decision.outcome);
    const started = await this.append(context, stream, revision, {
      type: 'IdempotentRequestStarted',
      data: { accountId: context.accountId, fingerprint, startedAt: this.clock() },
    }).catch(async (error: unknown) => {
      if (!(error instanceof WrongExpectedRevisionError)) throw error;
      // Another request with this key got there first: answer as it makes the key stand now.
      const now = await this.load(stream);
      const again = decideIdempotentRequest(now.state, fingerprint, this.clock());
      if (again.type === 'replay') return { replay: again.outcome };
      throw again.type === 'refuse' ? again.error : error;
    });
    if (typeof started === 'object') return replay<T>(started.replay);
    let outcome: IdempotentOutcome;
    try {
      outcome = { ok: true, result: await work() };
    } catch (error) {
      if (error instanceof ServiceError && isFinalOutcome(error)) {
        outcome = { ok: false, error: error.toJSON() };
      } else {
        await this.append(context, stream, started, { type: 'IdempotentRequestReleased', data: { accountId: context.accountId, releasedAt: this.clock() } });
        throw error;
      }
    }
    await this.append(context, stream, started, {
      type: 'IdempotentRequestCompleted',
      data: { accountId: context.accountId, fingerprint, completedAt: this.clock(), outcome },
    });
    return replay<T>(outcome);
  }

  private async load(stream: string): Promise<{ state: IdempotencyState; revision: number }> {
    let state: IdempotencyState = {};
    let revision = -1;
    for (const e of await this.eventStore.readStream(stream)) {
      revision = e.revision;
      const event = asIdempotencyEvent(e.type, e.data);
      if (event) state = evolveIdempotency(state, event);
    }
    return { state, revision };
  }

  /** Appends at `revision`; answers the new revision. */
  private async append(context: CallerContext, stream: string, revision: number, event: IdempotencyEvent): Promise<number> {
    const { nextExpectedRevision } = await this.eventStore.append(
      stream,
      [
        {
          type: event.type,
          data: event.data as unknown as Record<string, unknown>,
          metadata: { accountId: context.accountId, correlationId: context.correlationId },
        },
      ],
      { expectedRevision: revision < 0 ? 'no_stream' : revision },
    );
    return nextExpectedRevision;
  }
}

function replay<T>(outcome: IdempotentOutcome): T {
  if (outcome.ok) return outcome.result as T;
  throw ServiceError.fromShape(outcome.error);
}
