import { FUNNEL_KIND, WEBHOOK_CONFIG_KIND, type WebhookTrigger } from '@funnel/contracts';
import type { AssetRecord } from '@funnel/assets-domain';
import { OutboundHttp, verifyWebhook } from '@funnel/platform';
import { EmbeddedReadStore } from '@funnel/readstore';
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { assetDocumentId, assetsCollection } from '../asset-documents';
import { AssetSecretBox } from '../secrets/asset-secret-box';
import { WebhookDispatch } from './webhook-dispatch';

const ACCOUNT = 'ACCOUNT00001';
const OTHER = 'ACCOUNT00002';
const FUNNEL = 'FUNNEL000001';
const secrets = AssetSecretBox.ephemeral();
const SIGNING_SECRET = `whsec_${randomBytes(32).toString('base64')}`;

/** Which configs each event goes to, and a delivery's checks, over the read model of the assets. */
describe('webhook dispatch: targets and deliveries', () => {
  let readStore: EmbeddedReadStore;
  let dispatch: WebhookDispatch;
  let http: OutboundHttp;
  let receiver: Server;
  let url: string;
  const received: { headers: IncomingHttpHeaders; body: string }[] = [];

  beforeAll(async () => {
    receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        received.push({ headers: req.headers, body: Buffer.concat(chunks).toString() });
        res.writeHead(req.url === '/gone' ? 410 : 200).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    receiver.closeAllConnections();
    await new Promise((resolve) => receiver.close(resolve));
  });

  beforeEach(() => {
    readStore = new EmbeddedReadStore();
    http = new OutboundHttp({ allowPrivate: true });
    dispatch = new WebhookDispatch(readStore, secrets, http);
    received.length = 0;
  });

  afterEach(async () => {
    await http.close();
    await readStore.close();
  });

  async function put(kind: string, id: string, record: Record<string, unknown>, accountId = ACCOUNT, status: AssetRecord['status'] = 'active') {
    await assetsCollection(readStore).bulkWrite([
      {
        insertOne: {
          document: {
            _id: assetDocumentId(kind, accountId, id),
            kind,
            accountId,
            assetId: id,
            status,
            idCategory: '',
            revision: 0,
            position: '0/0',
            record: { ...record, status } as AssetRecord,
          },
        },
      },
    ]);
  }
  const config = (id: string, fields: Record<string, unknown> = {}, accountId = ACCOUNT, status: AssetRecord['status'] = 'active') =>
    put(
      WEBHOOK_CONFIG_KIND.kind,
      id,
      { idWebhookConfig: id, url: `${url}/hook`, signingSecret: secrets.encrypt(SIGNING_SECRET), ...fields },
      accountId,
      status,
    );
  const funnel = (nodes: [idNode: string, idWebhookConfig: string][], accountId = ACCOUNT) =>
    put(
      FUNNEL_KIND.kind,
      FUNNEL,
      {
        idFunnel: FUNNEL,
        nodes: [
          { idNode: 'NODEROOT0001', nodeType: 'root' },
          ...nodes.map(([idNode, idWebhookConfig]) => ({ idNode, nodeType: 'webhook', nodeWebhookParams: { idWebhookConfig } })),
        ],
      },
      accountId,
    );
  const targets = async (trigger: WebhookTrigger, idNode?: string, accountId = ACCOUNT) =>
    (await dispatch.targets({ accountId, trigger, idFunnel: FUNNEL, ...(idNode ? { idNode } : {}) })).targets;

  it('sends node_execution to the config the passed webhook node names, when the config takes it (the default trigger)', async () => {
    await funnel([
      ['NODE00000001', 'WHCONFIG0001'],
      ['NODE00000002', 'WHCONFIG0002'],
    ]);
    await config('WHCONFIG0001');
    await config('WHCONFIG0002', { triggers: ['conversion_triggered'] });
    expect(await targets('node_execution', 'NODE00000001')).toEqual([{ idWebhookConfig: 'WHCONFIG0001', idNode: 'NODE00000001' }]);
    expect(await targets('node_execution', 'NODE00000002')).toEqual([]);
    expect(await targets('node_execution', 'NODE00000009')).toEqual([]);
  });

  it("sends conversions and custom events to the configs of the funnel's webhook nodes that take them, once each, and to allFunnels configs", async () => {
    await funnel([
      ['NODE00000001', 'WHCONFIG0002'],
      ['NODE00000002', 'WHCONFIG0002'],
      ['NODE00000003', 'WHCONFIG0001'],
    ]);
    await config('WHCONFIG0001', { triggers: ['node_execution'] });
    await config('WHCONFIG0002', { triggers: ['conversion_triggered', 'custom_event_triggered'] });
    await config('WHCONFIG0003', { triggers: ['conversion_triggered'], allFunnels: true });
    await config('WHCONFIG0004', { triggers: ['custom_event_triggered'], allFunnels: true });
    expect(await targets('conversion_triggered')).toEqual([
      { idWebhookConfig: 'WHCONFIG0002', idNode: 'NODE00000001' },
      { idWebhookConfig: 'WHCONFIG0003', idNode: null },
    ]);
    expect(await targets('custom_event_triggered')).toEqual([
      { idWebhookConfig: 'WHCONFIG0002', idNode: 'NODE00000001' },
      { idWebhookConfig: 'WHCONFIG0004', idNode: null },
    ]);
  });

  it('sends an allFunnels config node_execution only through a node that names it', async () => {
    await funnel([['NODE00000001', 'WHCONFIG0001']]);
    await config('WHCONFIG0001', { allFunnels: true });
    await config('WHCONFIG0002', { allFunnels: true });
    expect(await targets('node_execution', 'NODE00000001')).toEqual([{ idWebhookConfig: 'WHCONFIG0001', idNode: 'NODE00000001' }]);
  });

  it('sends nothing to a disabled, deleted or URL-less config, nor to the configs of another account', async () => {
    await funnel([
      ['NODE00000001', 'WHCONFIG0001'],
      ['NODE00000002', 'WHCONFIG0002'],
      ['NODE00000003', 'WHCONFIG0003'],
    ]);
    const all = { triggers: ['node_execution', 'conversion_triggered'] };
    await config('WHCONFIG0001', { ...all, enabled: false });
    await config('WHCONFIG0002', { ...all, url: '' });
    await config('WHCONFIG0003', all, ACCOUNT, 'deleted');
    await config('WHCONFIG0004', { ...all, allFunnels: true, enabled: false });
    await config('WHCONFIG0005', { ...all, allFunnels: true }, OTHER);
    for (const node of ['NODE00000001', 'NODE00000002', 'NODE00000003']) expect(await targets('node_execution', node)).toEqual([]);
    expect(await targets('conversion_triggered')).toEqual([]);
    // The other account's funnel of the same id is not this one's.
    expect(await targets('conversion_triggered', undefined, OTHER)).toEqual([{ idWebhookConfig: 'WHCONFIG0005', idNode: null }]);
  });

  it('refuses a targets request without a node for node_execution, or with a bad trigger', async () => {
    await expect(dispatch.targets({ accountId: ACCOUNT, trigger: 'node_execution', idFunnel: FUNNEL })).rejects.toMatchObject({ status: 400 });
    await expect(dispatch.targets({ accountId: ACCOUNT, trigger: 'visit', idFunnel: FUNNEL })).rejects.toMatchObject({ status: 400 });
  });

  describe('deliver', () => {
    const deliver = (idWebhookConfig: string, trigger: WebhookTrigger = 'node_execution') =>
      dispatch.deliver({ accountId: ACCOUNT, idWebhookConfig, trigger, deliveryId: 'HIT000000001.WHCONFIG0001', body: { event_id: 'HIT000000001' } });

    it('signs and sends the body with the config headers, the delivery id as webhook-id', async () => {
      await config('WHCONFIG0001', { headers: { 'X-Team': 'growth' } });
      expect(await deliver('WHCONFIG0001')).toMatchObject({ skipped: false, delivered: true, httpStatus: 200, error: null });
      expect(received).toHaveLength(1);
      expect(received[0].headers).toMatchObject({ 'webhook-id': 'HIT000000001.WHCONFIG0001', 'x-team': 'growth', 'x-webhook-trigger': 'node_execution' });
      expect(() => verifyWebhook(SIGNING_SECRET, received[0].headers, received[0].body)).not.toThrow();
      expect(JSON.parse(received[0].body)).toEqual({ event_id: 'HIT000000001' });
    });

    it("answers the receiver's failure for the queue to retry", async () => {
      await config('WHCONFIG0001', { url: `${url}/gone` });
      expect(await deliver('WHCONFIG0001')).toMatchObject({ skipped: false, delivered: false, httpStatus: 410 });
    });

    it('skips, sending nothing, a config changed since the event: gone, disabled, without URL or the trigger', async () => {
      await config('WHCONFIG0002', { enabled: false });
      await config('WHCONFIG0003', { url: '' });
      await config('WHCONFIG0004', { triggers: ['conversion_triggered'] });
      await config('WHCONFIG0005', {}, ACCOUNT, 'deleted');
      await config('WHCONFIG0006', {}, OTHER);
      const reasons = [];
      for (const id of ['WHCONFIG0002', 'WHCONFIG0003', 'WHCONFIG0004', 'WHCONFIG0005', 'WHCONFIG0006', 'WHCONFIG0009']) reasons.push(await deliver(id));
      expect(reasons).toEqual([
        { skipped: true, reason: 'the webhook config is disabled' },
        { skipped: true, reason: 'the webhook config has no url' },
        { skipped: true, reason: 'the webhook config no longer takes node_execution' },
        { skipped: true, reason: 'the webhook config does not exist or is deleted' },
        { skipped: true, reason: 'the webhook config does not exist or is deleted' },
        { skipped: true, reason: 'the webhook config does not exist or is deleted' },
      ]);
      expect(received).toEqual([]);
    });
  });
});
