import {
  FUNNEL_KIND,
  ServiceError,
  WEBHOOK_CONFIG_KIND,
  WEBHOOK_PAYLOAD_SCHEMA,
  WEBHOOK_REQUEST_ID_HEADER,
  WEBHOOK_SCHEMA_HEADER,
  WEBHOOK_TRIGGER_HEADER,
  WEBHOOK_TRIGGERS,
  WebhookDeliverAnswer,
  WebhookDeliverRequest,
  WebhookTarget,
  WebhookTargetsAnswer,
  WebhookTargetsRequest,
  WebhookTrigger,
  isValidAssetId,
  webhookTriggersOf,
} from '@funnel/contracts';
import { AssetRecord, SecretCipher, isEncryptedSecret } from '@funnel/assets-domain';
import { OutboundHttp, deliverWebhook } from '@funnel/platform';
import type { ReadStore } from '@funnel/readstore';
import { assetDocumentId, assetsCollection } from '../asset-documents';

interface WebhookNode {
  idNode: string;
  idWebhookConfig: string;
}

/**
 * What reporting's webhook deliveries ask assets-service (`assets.internal.webhooktargets` and
 * `assets.internal.webhookdeliver`): the configs an event goes to, read from the read model of the
 * event's account, and one signed delivery with the config's secrets, decrypted here and never
 * answered. Reads go to the read model: a config saved a moment before an event may be missed (it is
 * there once the save's answer came).
 */
export class WebhookDispatch {
  private readonly collection = assetsCollection(this.readStore);

  constructor(
    private readonly readStore: ReadStore,
    private readonly secrets: SecretCipher,
    private readonly http: OutboundHttp | undefined,
  ) {}

  async targets(body: unknown): Promise<WebhookTargetsAnswer> {
    const request = parseTargets(body);
    const funnel = await this.record(FUNNEL_KIND.kind, request.accountId, request.idFunnel);
    const nodes = funnel ? webhookNodesOf(funnel) : [];
    const targets: WebhookTarget[] = [];
    if (request.trigger === 'node_execution') {
      const node = nodes.find((candidate) => candidate.idNode === request.idNode);
      if (node) {
        const config = await this.record(WEBHOOK_CONFIG_KIND.kind, request.accountId, node.idWebhookConfig);
        if (config && takes(config, request.trigger)) targets.push({ idWebhookConfig: node.idWebhookConfig, idNode: node.idNode });
      }
      return { targets };
    }
    const seen = new Set<string>();
    for (const node of nodes) {
      if (seen.has(node.idWebhookConfig)) continue;
      const config = await this.record(WEBHOOK_CONFIG_KIND.kind, request.accountId, node.idWebhookConfig);
      if (config && takes(config, request.trigger)) {
        seen.add(node.idWebhookConfig);
        targets.push({ idWebhookConfig: node.idWebhookConfig, idNode: node.idNode });
      }
    }
    const accountWide = await this.collection.find({ accountId: request.accountId, kind: WEBHOOK_CONFIG_KIND.kind, status: 'active' });
    for (const doc of accountWide) {
      if (seen.has(doc.assetId) || doc.record['allFunnels'] !== true || !takes(doc.record, request.trigger)) continue;
      seen.add(doc.assetId);
      targets.push({ idWebhookConfig: doc.assetId, idNode: null });
    }
    targets.sort((a, b) => (a.idWebhookConfig < b.idWebhookConfig ? -1 : a.idWebhookConfig > b.idWebhookConfig ? 1 : 0));
    return { targets };
  }

  async deliver(body: unknown): Promise<WebhookDeliverAnswer> {
    const request = parseDeliver(body);
    if (!this.http) throw new ServiceError(503, 'WEBHOOK.NO_OUTBOUND', 'this process sends no webhooks');
    const config = await this.record(WEBHOOK_CONFIG_KIND.kind, request.accountId, request.idWebhookConfig);
    if (!config) return { skipped: true, reason: 'the webhook config does not exist or is deleted' };
    if (config.status !== 'active') return { skipped: true, reason: `the webhook config is ${String(config.status)}` };
    if (config['enabled'] === false) return { skipped: true, reason: 'the webhook config is disabled' };
    if (typeof config['url'] !== 'string' || config['url'] === '') return { skipped: true, reason: 'the webhook config has no url' };
    if (!webhookTriggersOf(config).includes(request.trigger)) return { skipped: true, reason: `the webhook config no longer takes ${request.trigger}` };
    if (!isEncryptedSecret(config['signingSecret'])) return { skipped: true, reason: 'the webhook config has no signing secret' };
    const basicAuth = config['basicAuth'] as { username: string; password?: unknown } | undefined;
    const result = await deliverWebhook(this.http, {
      url: config['url'],
      headers: (config['headers'] ?? {}) as Record<string, string>,
      basicAuth: basicAuth
        ? { username: basicAuth.username, password: isEncryptedSecret(basicAuth.password) ? this.secrets.decrypt(basicAuth.password) : '' }
        : undefined,
      signingSecret: this.secrets.decrypt(config['signingSecret']),
      eventType: request.trigger,
      payload: null,
      body: request.body,
      messageId: request.deliveryId,
      ownHeaders: {
        [WEBHOOK_SCHEMA_HEADER]: WEBHOOK_PAYLOAD_SCHEMA,
        [WEBHOOK_TRIGGER_HEADER]: request.trigger,
        [WEBHOOK_REQUEST_ID_HEADER]: request.deliveryId,
      },
    });
    return { skipped: false, ...result };
  }

  private async record(kind: string, accountId: string, id: string): Promise<AssetRecord | undefined> {
    const doc = await this.collection.findOne({ _id: assetDocumentId(kind, accountId, id) });
    if (!doc || doc.accountId !== accountId || doc.status === 'deleted') return undefined;
    return doc.record;
  }
}

/** Whether a config sends events of the trigger now: active, enabled, with a URL, the trigger among its own. */
function takes(config: AssetRecord, trigger: WebhookTrigger): boolean {
  return (
    config.status === 'active' &&
    config['enabled'] !== false &&
    typeof config['url'] === 'string' &&
    config['url'] !== '' &&
    webhookTriggersOf(config).includes(trigger)
  );
}

/** The funnel's webhook nodes and the configs they name. */
export function webhookNodesOf(funnel: AssetRecord): WebhookNode[] {
  const nodes = Array.isArray(funnel['nodes']) ? (funnel['nodes'] as Record<string, unknown>[]) : [];
  const found: WebhookNode[] = [];
  for (const node of nodes) {
    if (node?.['nodeType'] !== 'webhook') continue;
    const id = (node['nodeWebhookParams'] as { idWebhookConfig?: unknown } | undefined)?.idWebhookConfig;
    if (typeof node['idNode'] === 'string' && typeof id === 'string' && id !== '') found.push({ idNode: node['idNode'], idWebhookConfig: id });
  }
  return found;
}

const asObject = (body: unknown): Record<string, unknown> => (typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {});

function id(input: Record<string, unknown>, field: string, optional = false): string | undefined {
  const value = input[field];
  if (value === undefined && optional) return undefined;
  if (typeof value !== 'string' || !isValidAssetId(value)) throw ServiceError.invalidField(field, 'isAssetId', `${field} must be an asset id`);
  return value;
}

function trigger(input: Record<string, unknown>): WebhookTrigger {
  const value = input['trigger'];
  if (!(WEBHOOK_TRIGGERS as readonly unknown[]).includes(value))
    throw ServiceError.invalidField('trigger', 'isIn', `trigger must be one of ${WEBHOOK_TRIGGERS.join(', ')}`);
  return value as WebhookTrigger;
}

function parseTargets(body: unknown): WebhookTargetsRequest {
  const input = asObject(body);
  const request: WebhookTargetsRequest = { accountId: id(input, 'accountId')!, trigger: trigger(input), idFunnel: id(input, 'idFunnel')! };
  const node = id(input, 'idNode', request.trigger !== 'node_execution');
  if (node !== undefined) request.idNode = node;
  return request;
}

function parseDeliver(body: unknown): WebhookDeliverRequest {
  const input = asObject(body);
  const deliveryId = input['deliveryId'];
  if (typeof deliveryId !== 'string' || !/^[A-Za-z0-9_.:-]{1,200}$/.test(deliveryId)) {
    throw ServiceError.invalidField('deliveryId', 'matches', 'deliveryId must be 1..200 letters, digits, _ . : -');
  }
  const payload = input['body'];
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) throw ServiceError.invalidField('body', 'isObject', 'body must be an object');
  return {
    accountId: id(input, 'accountId')!,
    idWebhookConfig: id(input, 'idWebhookConfig')!,
    trigger: trigger(input),
    deliveryId,
    body: payload as Record<string, unknown>,
  };
}
