import { AssetKindDescriptor, ErrorCodes, ServiceError, WEBHOOK_DISABLED, WEBHOOK_NO_URL } from '@funnel/contracts';
import { AssetRecord, SecretCipher, isEncryptedSecret } from '@funnel/assets-domain';
import { OutboundHttp, deliverWebhook, generateSigningSecret } from '@funnel/platform';
import type { KindActionSet } from '../asset-actions';
import { idParam } from '../query-params';

/** The event type of the sample event `test/` sends. */
export const WEBHOOK_TEST_EVENT_TYPE = 'webhook.test';

export interface WebhookConfigActionsOptions {
  /** The cipher the pipeline stores secrets with (the same key file). */
  secrets: SecretCipher;
  /** The SSRF-guarded client deliveries go through. */
  http: OutboundHttp;
}

/**
 * A webhook config's own routes: its signing secret in clear (`secret/`), a new one (`secret/rotate/`)
 * and one signed sample event to its URL (`test/`). All need `assets:write`; a config that does not
 * exist in the caller's account, or is deleted, is a 404.
 */
export function webhookConfigActions({ secrets, http }: WebhookConfigActionsOptions): KindActionSet {
  const signingSecretOf = (kind: AssetKindDescriptor, record: AssetRecord): string => {
    // Every config gets one on create (webhookConfigRules.normalize); none means a record the service did not write.
    if (!isEncryptedSecret(record.signingSecret)) {
      throw ServiceError.conflict(ErrorCodes.ASSET_INVALID_STATE, `${kind.kind} ${String(record[kind.idField])} has no signing secret: rotate it to get one`);
    }
    return secrets.decrypt(record.signingSecret);
  };

  return {
    async secret(kind, context, { query }, assets) {
      const record = await assets.stored(kind, context, idParam(query, kind.idField));
      return { signingSecret: signingSecretOf(kind, record) };
    },

    async rotateSecret(kind, context, { query }, assets) {
      const signingSecret = generateSigningSecret();
      // The event carries the encrypted value only; the clear one is answered once, here.
      const encrypted = secrets.encrypt(signingSecret);
      await assets.updateWith(kind, context, idParam(query, kind.idField), (current) => ({ ...current, signingSecret: encrypted }));
      return { signingSecret };
    },

    async test(kind, context, { query }, assets) {
      const id = idParam(query, kind.idField);
      const record = await assets.stored(kind, context, id);
      if (record.enabled === false) throw ServiceError.conflict(WEBHOOK_DISABLED, `${kind.kind} ${id} is disabled: enable it to send a test event`);
      if (typeof record.url !== 'string' || record.url === '') throw ServiceError.conflict(WEBHOOK_NO_URL, `${kind.kind} ${id} has no url to send to`);
      const basicAuth = record.basicAuth as { username: string; password?: unknown } | undefined;
      return deliverWebhook(http, {
        url: record.url,
        headers: (record.headers ?? {}) as Record<string, string>,
        basicAuth: basicAuth
          ? { username: basicAuth.username, password: isEncryptedSecret(basicAuth.password) ? secrets.decrypt(basicAuth.password) : '' }
          : undefined,
        signingSecret: signingSecretOf(kind, record),
        eventType: WEBHOOK_TEST_EVENT_TYPE,
        payload: { test: true, [kind.idField]: id, [kind.nameField]: record[kind.nameField] },
      });
    },
  };
}
