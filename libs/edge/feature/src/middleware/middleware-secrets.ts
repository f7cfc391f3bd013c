// The secrets a middleware call sends (basic-auth password, HMAC secret), which the edge's snapshot
// lacks: asked of the assets service (`assets.internal.middlewaresecrets`, tracking-edge user only),
// in clear over the service bus, once per version of the config or funnel, and kept in memory only.
import { ASSETS_MIDDLEWARE_SECRETS_SUBJECT, type CallerContext, type MiddlewareSecretsAnswer } from '@funnel/contracts';
import type { ServiceClient } from '@funnel/platform';
import type { MiddlewareCall } from '@funnel/routing';

const NO_CALLER: CallerContext = { accountId: '', userId: '', permissions: [], correlationId: 'tracking-edge-middleware' };

/** Where the edge gets a call's secrets. */
export interface MiddlewareSecretSource {
  secretsOf(accountId: string, idFunnel: string, call: MiddlewareCall): Promise<MiddlewareSecretsAnswer>;
}

/**
 * Asks the assets service, caching the answer per config record and node-overrides object: the
 * snapshot replaces a record when its asset changes (and a funnel is compiled again when one of its
 * assets does), so a new version is asked for once and an old one is dropped with its record. A
 * failed request is not cached (the next call asks again).
 */
export class ServiceMiddlewareSecrets implements MiddlewareSecretSource {
  private readonly cache = new WeakMap<object, WeakMap<object, Promise<MiddlewareSecretsAnswer>>>();
  private readonly noOverrides = {};

  constructor(
    private readonly client: Pick<ServiceClient, 'request'>,
    private readonly timeoutMs?: number,
  ) {}

  secretsOf(accountId: string, idFunnel: string, call: MiddlewareCall): Promise<MiddlewareSecretsAnswer> {
    const overridesKey = call.overrides ?? this.noOverrides;
    let byOverrides = this.cache.get(call.config);
    if (byOverrides === undefined) this.cache.set(call.config, (byOverrides = new WeakMap()));
    const cached = byOverrides.get(overridesKey);
    if (cached !== undefined) return cached;
    const asked = this.client.request<MiddlewareSecretsAnswer>(
      ASSETS_MIDDLEWARE_SECRETS_SUBJECT,
      {
        context: NO_CALLER,
        body: {
          accountId,
          idMiddlewareConfig: call.idMiddlewareConfig,
          ...(call.overrides === undefined ? {} : { idFunnel, idNode: call.idNode }),
        },
      },
      { timeoutMs: this.timeoutMs },
    );
    const kept = byOverrides;
    kept.set(overridesKey, asked);
    asked.catch(() => kept.delete(overridesKey));
    return asked;
  }
}
