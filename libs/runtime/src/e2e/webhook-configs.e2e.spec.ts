import { generateAssetId } from '@funnel/contracts';
import { verifyWebhook } from '@funnel/platform';
import { selfSignedCertificate, tempDir } from '@funnel/testing';
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import type { IncomingHttpHeaders } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Deployment, describeInBothModes } from './harness';

const newId = () => generateAssetId();
const webhook = (over: Record<string, unknown> = {}) => ({
  idWebhookConfig: newId(),
  webhookConfigName: 'Orders hook',
  url: 'https://hooks.example.com/orders',
  ...over,
});
const SIGNING_SECRET = /^whsec_[A-Za-z0-9+/]{43}=$/;

/** The receiver a user would run, over HTTPS with a certificate of its own: it records what it gets and answers 200 (500 on /fail). */
interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}
const { cert, key } = selfSignedCertificate(['localhost', '127.0.0.1', '::1']);
const caDir = tempDir('webhook-ca');
const caFile = join(caDir.path, 'receiver-ca.pem');
writeFileSync(caFile, cert);
const received: Received[] = [];
let receiver: Server;
let receiverPort: number;

beforeAll(async () => {
  receiver = createServer({ cert, key }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({ path: req.url!, headers: req.headers, body: Buffer.concat(chunks).toString() });
      res.writeHead(req.url === '/fail' ? 500 : 200).end('ok');
    });
  });
  // Dual-stack: 127.0.0.1, ::1 and ::ffff:127.0.0.1 all reach it, so a refusal that failed would show here.
  await new Promise<void>((resolve) => receiver.listen(0, '::', resolve));
  receiverPort = (receiver.address() as AddressInfo).port;
});

afterAll(async () => {
  receiver.closeAllConnections();
  await new Promise((resolve) => receiver.close(resolve));
});

/** Every file under a directory, as raw bytes (the SQLite event log, its WAL, the key files ...). */
function rawFilesUnder(dir: string): { name: string; bytes: Buffer }[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => {
      const name = join(entry.parentPath, entry.name);
      return { name, bytes: readFileSync(name) };
    });
}

describeInBothModes(
  '/v1/webhookconfig',
  (d) => {
    const call = (...args: Parameters<Deployment['api']['call']>) => d().api.call(...args);
    const save = async <T extends Record<string, unknown>>(body: T, method: 'POST' | 'PUT' = 'POST', key?: string): Promise<T> => {
      const res = await call(method, '/webhookconfig/save/', { body, key });
      expect({ status: res.status, body: res.body }).toEqual({ status: 200, body: undefined });
      return body;
    };
    const find = (id: string, key?: string) => call('GET', `/webhookconfig/find/byId/?idWebhookConfig=${id}`, { key });
    const secretOf = async (id: string) => {
      const res = await call('GET', `/webhookconfig/secret/?idWebhookConfig=${id}`);
      expect(res.status).toBe(200);
      return res.body.signingSecret as string;
    };
    const sendTest = (id: string, key?: string) => call('POST', `/webhookconfig/test/?idWebhookConfig=${id}`, { key });
    const hookUrl = (path = '/hook') => `https://127.0.0.1:${receiverPort}${path}`;

    describe('authentication and permissions', () => {
      it.each([
        ['GET', '/webhookconfig/list/?status=all'],
        ['GET', '/webhookconfig/find/byId/?idWebhookConfig=ID'],
        ['POST', '/webhookconfig/save/'],
        ['GET', '/webhookconfig/secret/?idWebhookConfig=ID'],
        ['POST', '/webhookconfig/secret/rotate/?idWebhookConfig=ID'],
        ['POST', '/webhookconfig/test/?idWebhookConfig=ID'],
      ])('%s %s answers 401 without a key', async (method, path) => {
        expect((await call(method, path.replace('ID', newId()), { key: '', body: method === 'GET' ? undefined : webhook() })).status).toBe(401);
      });

      it('lets an assets:read key read configs but not their signing secret, a rotation or a test delivery (403)', async () => {
        const { idWebhookConfig: id } = await save(webhook());
        const generated = await call('POST', '/apikeys/generate/', { body: { name: 'reader', permissions: ['assets:read'] } });
        expect(generated.status).toBe(200);
        const reader = generated.body.key as string;
        expect((await find(id, reader)).status).toBe(200);
        expect((await call('GET', `/webhookconfig/secret/?idWebhookConfig=${id}`, { key: reader })).status).toBe(403);
        expect((await call('POST', `/webhookconfig/secret/rotate/?idWebhookConfig=${id}`, { key: reader })).status).toBe(403);
        expect((await sendTest(id, reader)).status).toBe(403);
      });
    });

    describe('save and read', () => {
      it('creates with the documented defaults and answers the full record with hasSigningSecret, never the secret', async () => {
        const body = await save(webhook());
        const found = await find(body.idWebhookConfig as string);
        expect(found.status).toBe(200);
        expect(found.body).toEqual({
          ...body,
          description: '',
          enabled: true,
          targetType: 'custom',
          headers: {},
          triggers: ['node_execution'],
          allFunnels: false,
          status: 'active',
          idCategory: '',
          categoryName: '',
          owner: expect.any(String),
          hasSigningSecret: true,
          hasBasicAuthPassword: false,
        });
        expect((await call('GET', `/webhookconfig/find/byId?idWebhookConfig=${body.idWebhookConfig}`)).body).toEqual(found.body);
      });

      it('keeps every field of the write model and shows the basic-auth password as ******** with hasBasicAuthPassword', async () => {
        const body = await save(
          webhook({
            description: 'orders to Zapier',
            enabled: false,
            targetType: 'zapier',
            headers: { 'X-Api-Key': 'k-1', Accept: 'application/json' },
            basicAuth: { username: 'hook-user', password: 'pw-shown-nowhere-1' },
          }),
        );
        const found = await find(body.idWebhookConfig as string);
        expect(found.body).toMatchObject({
          description: 'orders to Zapier',
          enabled: false,
          targetType: 'zapier',
          headers: { 'X-Api-Key': 'k-1', Accept: 'application/json' },
          basicAuth: { username: 'hook-user', password: '********' },
          hasBasicAuthPassword: true,
          hasSigningSecret: true,
        });
        expect(found.text).not.toContain('pw-shown-nowhere-1');
        expect(found.body).not.toHaveProperty('signingSecret');
      });

      it('refuses to create an id that exists (409) and updates with PUT (404 for an unknown id)', async () => {
        const body = await save(webhook());
        expect((await call('POST', '/webhookconfig/save/', { body })).status).toBe(409);
        await save({ ...body, webhookConfigName: 'Renamed' }, 'PUT');
        expect((await find(body.idWebhookConfig as string)).body.webhookConfigName).toBe('Renamed');
        expect((await call('PUT', '/webhookconfig/save/', { body: webhook() })).status).toBe(404);
      });

      it.each([
        ['an unknown targetType', { targetType: 'slack' }, 'targetType'],
        ['a relative url', { url: '/hooks/orders' }, 'url'],
        ['an ftp url', { url: 'ftp://example.com/orders' }, 'url'],
        ['credentials in the url', { url: 'https://user:pw@example.com/orders' }, 'url'],
        ['a reserved header', { headers: { 'Webhook-Signature': 'v1,forged' } }, 'headers.Webhook-Signature'],
        ['a Content-Type header', { headers: { 'content-type': 'text/plain' } }, 'headers.content-type'],
        ['an invalid header name', { headers: { 'Bad Name': 'x' } }, 'headers.Bad Name'],
        ['a header value with a line break', { headers: { 'X-Split': 'a\r\nInjected: 1' } }, 'headers.X-Split'],
        ['a header value over 1024 characters', { headers: { 'X-Long': 'v'.repeat(1025) } }, 'headers.X-Long'],
        ['51 headers', { headers: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`X-H${i}`, 'v'])) }, 'headers'],
        ['an Authorization header with basic auth', { headers: { Authorization: 'Bearer t' }, basicAuth: { username: 'u' } }, 'headers.Authorization'],
        ['basic auth without a username', { basicAuth: { password: 'p' } }, 'basicAuth.username'],
        ['enabled as text', { enabled: 'yes' }, 'enabled'],
        ['a missing name', { webhookConfigName: undefined }, 'webhookConfigName'],
        ['a 257-character name', { webhookConfigName: 'n'.repeat(257) }, 'webhookConfigName'],
      ])('refuses %s with a 400 naming the field and stores nothing', async (_what, over, field) => {
        const body = webhook(over);
        const res = await call('POST', '/webhookconfig/save/', { body });
        expect(res.status).toBe(400);
        expect(res.body.details).toEqual(expect.arrayContaining([expect.objectContaining({ field })]));
        expect((await find(body.idWebhookConfig)).status).toBe(404);
      });

      it('names header faults with the codes of middleware destination headers, and a reserved name or an Authorization beside basicAuth with its own', async () => {
        const headers = { 'X-Long': 'v'.repeat(1025), 'x-long': 'w', 'X-Number': 5, 'Webhook-Id': 'msg_x', Authorization: 'Bearer t' };
        const res = await call('POST', '/webhookconfig/save/', { body: webhook({ headers, basicAuth: { username: 'u' } }) });
        expect(res.body.details.map((detail: { field: string; code: string }) => `${detail.field}:${detail.code}`).sort()).toEqual([
          'headers.Authorization:conflict',
          'headers.Webhook-Id:reserved',
          'headers.X-Long:maxLength',
          'headers.X-Number:isString',
          'headers.x-long:unique',
        ]);
        const many = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`X-H${i}`, 'v']));
        expect((await call('POST', '/webhookconfig/save/', { body: webhook({ headers: many }) })).body.details).toEqual([
          expect.objectContaining({ field: 'headers', code: 'maxEntries' }),
        ]);
      });

      it('accepts every target type', async () => {
        for (const targetType of ['custom', 'zapier', 'make', 'n8n', 'pabbly', 'integrately', 'pipedream', 'ifttt']) {
          const body = await save(webhook({ targetType }));
          expect((await find(body.idWebhookConfig as string)).body.targetType).toBe(targetType);
        }
      });
    });

    describe('write-only secrets', () => {
      it('keeps the password when the read record is saved back, removes it with null, and basic auth goes when left out', async () => {
        const body = await save(webhook({ basicAuth: { username: 'u1', password: 'first-password-77' } }));
        const id = body.idWebhookConfig as string;
        const read = (await find(id)).body;
        await save({ ...read, webhookConfigName: 'Saved back' }, 'PUT');
        expect((await find(id)).body).toMatchObject({
          webhookConfigName: 'Saved back',
          basicAuth: { username: 'u1', password: '********' },
          hasBasicAuthPassword: true,
        });

        await save({ ...read, basicAuth: { username: 'u2', password: null } }, 'PUT');
        const removed = (await find(id)).body;
        expect(removed).toMatchObject({ basicAuth: { username: 'u2' }, hasBasicAuthPassword: false });
        expect(removed.basicAuth).not.toHaveProperty('password');

        await save({ ...read, basicAuth: { username: 'u3', password: 'second-password-88' } }, 'PUT');
        expect((await find(id)).body.hasBasicAuthPassword).toBe(true);
        const { basicAuth: _left, ...withoutBasicAuth } = read;
        await save(withoutBasicAuth, 'PUT');
        const none = (await find(id)).body;
        expect(none).not.toHaveProperty('basicAuth');
        expect(none.hasBasicAuthPassword).toBe(false);
      });

      it('ignores a signing secret sent on create or update, and keeps the service-made one across updates', async () => {
        const mine = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
        const body = await save(webhook({ signingSecret: mine }));
        const id = body.idWebhookConfig as string;
        const made = await secretOf(id);
        expect(made).toMatch(SIGNING_SECRET);
        expect(made).not.toBe(mine);
        await save({ ...body, webhookConfigName: 'Changed', signingSecret: mine, hasSigningSecret: false }, 'PUT');
        expect(await secretOf(id)).toBe(made);
        expect((await find(id)).body.hasSigningSecret).toBe(true);
      });

      it('answers the signing secret on secret/, replaces it on secret/rotate/, and shows it in no find or list answer', async () => {
        const { idWebhookConfig: id } = await save(webhook());
        const first = await secretOf(id as string);
        expect(await secretOf(id as string)).toBe(first);
        const rotated = await call('POST', `/webhookconfig/secret/rotate/?idWebhookConfig=${id}`);
        expect(rotated.status).toBe(200);
        expect(rotated.body).toEqual({ signingSecret: expect.stringMatching(SIGNING_SECRET) });
        expect(rotated.body.signingSecret).not.toBe(first);
        expect(await secretOf(id as string)).toBe(rotated.body.signingSecret);
        for (const path of [
          `/webhookconfig/find/byId/?idWebhookConfig=${id}`,
          `/webhookconfig/find/byIds/?idWebhookConfigs=${id}`,
          '/webhookconfig/list/?status=all',
          '/webhookconfig/find/byStatus/?status=all',
        ]) {
          const res = await call('GET', path);
          expect(res.status).toBe(200);
          expect(res.text).not.toContain(first.slice(6));
          expect(res.text).not.toContain(rotated.body.signingSecret.slice(6));
        }
      });

      it('answers 404 for the secret, a rotation or a test of a config that is missing or deleted, and 400 for a bad id', async () => {
        const { idWebhookConfig: id } = await save(webhook());
        expect((await call('DELETE', `/webhookconfig/delete/?idWebhookConfig=${id}`)).status).toBe(200);
        for (const missing of [id, newId()]) {
          expect((await call('GET', `/webhookconfig/secret/?idWebhookConfig=${missing}`)).body.code).toBe('ASSET.NOT_FOUND');
          expect((await call('POST', `/webhookconfig/secret/rotate/?idWebhookConfig=${missing}`)).status).toBe(404);
          expect((await sendTest(missing as string)).status).toBe(404);
        }
        expect((await call('GET', '/webhookconfig/secret/?idWebhookConfig=nope')).status).toBe(400);
        expect((await call('GET', '/webhookconfig/secret/')).status).toBe(400);
      });

      it('writes no password or signing secret in clear to the event log or any other file under DATA_DIR', async () => {
        const password = 'raw-scan-password-5c1e';
        const { idWebhookConfig: id } = await save(webhook({ webhookConfigName: 'raw-scan-config', basicAuth: { username: 'raw-scan-user', password } }));
        const before = await secretOf(id as string);
        const after = (await call('POST', `/webhookconfig/secret/rotate/?idWebhookConfig=${id}`)).body.signingSecret as string;
        const copy = await call('POST', `/webhookconfig/duplicate/?idWebhookConfig=${id}`, { body: { name: 'raw-scan-copy' } });
        const copySecret = await secretOf(copy.body.id);

        const files = rawFilesUnder(d().dataDir);
        expect(files.map((f) => f.name).some((name) => name.endsWith('events.sqlite'))).toBe(true);
        const everything = Buffer.concat(files.map((f) => f.bytes));
        // The scan sees what was saved: the non-secret fields are there in clear.
        expect(everything.includes('raw-scan-user')).toBe(true);
        expect(everything.includes('raw-scan-copy')).toBe(true);
        for (const clear of [password, before, after, copySecret, before.slice(6), after.slice(6), copySecret.slice(6)]) {
          expect(files.filter((f) => f.bytes.includes(clear)).map((f) => f.name)).toEqual([]);
        }
      });
    });

    describe('routes', () => {
      it('lists slim records (WebhookConfigInfo) by status and category; status is required', async () => {
        const category = { idCategory: newId(), categoryName: 'Hooks', categoryType: 'webhookconfig' };
        expect((await call('POST', '/category/save/', { body: category })).status).toBe(200);
        const body = await save(
          webhook({ idCategory: category.idCategory, targetType: 'make', headers: { 'X-A': 'b' }, basicAuth: { username: 'u', password: 'p' } }),
        );
        const list = await call('GET', `/webhookconfig/list/?status=active&idCategory=${category.idCategory}`);
        expect(list.status).toBe(200);
        expect(list.body).toEqual([
          {
            idWebhookConfig: body.idWebhookConfig,
            webhookConfigName: 'Orders hook',
            status: 'active',
            targetType: 'make',
            enabled: true,
            idCategory: category.idCategory,
            categoryName: 'Hooks',
          },
        ]);
        expect((await call('GET', '/webhookconfig/list/')).status).toBe(400);
        expect((await call('GET', `/webhookconfig/list/?status=archived&idCategory=${category.idCategory}`)).body).toEqual([]);
        expect((await call('GET', `/webhookconfig/find/byStatus/?status=active`)).body).toEqual(expect.arrayContaining(list.body));
        const inCategory = await call('GET', `/webhookconfig/find/byCategory/?idCategory=${category.idCategory}`);
        expect(inCategory.body).toEqual([expect.objectContaining({ idWebhookConfig: body.idWebhookConfig, hasBasicAuthPassword: true })]);
      });

      it('finds by comma-separated ids, leaving unknown ones out', async () => {
        const a = await save(webhook());
        const b = await save(webhook());
        const res = await call('GET', `/webhookconfig/find/byIds/?idWebhookConfigs=${a.idWebhookConfig},${newId()},${b.idWebhookConfig}`);
        expect(res.status).toBe(200);
        expect(res.body.map((r: { idWebhookConfig: string }) => r.idWebhookConfig).sort()).toEqual([a.idWebhookConfig, b.idWebhookConfig].sort());
        expect(res.body.every((r: Record<string, unknown>) => r.hasSigningSecret === true && !('signingSecret' in r))).toBe(true);
      });

      it('deletes by query idWebhookConfig and by a StringList body (soft: readable with status=all)', async () => {
        const a = await save(webhook());
        const b = await save(webhook());
        const byQuery = await call('DELETE', `/webhookconfig/delete/?idWebhookConfig=${a.idWebhookConfig}`);
        expect({ status: byQuery.status, text: byQuery.text }).toEqual({ status: 200, text: '' });
        expect((await call('DELETE', '/webhookconfig/delete/', { body: { entries: [b.idWebhookConfig] } })).status).toBe(200);
        expect((await find(a.idWebhookConfig as string)).status).toBe(404);
        expect((await find(b.idWebhookConfig as string)).status).toBe(404);
        const all = (await call('GET', '/webhookconfig/list/?status=all')).body as { idWebhookConfig: string; status: string }[];
        expect(all.find((r) => r.idWebhookConfig === a.idWebhookConfig)?.status).toBe('deleted');
        expect((await call('DELETE', `/webhookconfig/delete/?idWebhookConfig=${newId()}`)).status).toBe(404);
        expect((await call('DELETE', '/webhookconfig/delete/')).status).toBe(400);
      });

      it('archives and unarchives (back to active)', async () => {
        const { idWebhookConfig: id } = await save(webhook());
        expect((await call('PUT', '/webhookconfig/archive/', { body: { entries: [id] } })).status).toBe(200);
        expect((await find(id as string)).body.status).toBe('archived');
        expect((await call('PUT', '/webhookconfig/unarchive/', { body: { entries: [id] } })).status).toBe(200);
        expect((await find(id as string)).body.status).toBe('active');
      });

      it('moves to a category of type webhookconfig only', async () => {
        const { idWebhookConfig: id } = await save(webhook());
        const hooks = { idCategory: newId(), categoryName: 'Moved hooks', categoryType: 'webhookconfig' };
        const tags = { idCategory: newId(), categoryName: 'Tags', categoryType: 'visitorTag' };
        for (const category of [hooks, tags]) expect((await call('POST', '/category/save/', { body: category })).status).toBe(200);
        expect((await call('PUT', '/webhookconfig/move-category/', { body: { entries: [id], idCategory: hooks.idCategory } })).status).toBe(200);
        expect((await find(id as string)).body).toMatchObject({ idCategory: hooks.idCategory, categoryName: 'Moved hooks' });
        expect((await call('PUT', '/webhookconfig/move-category/', { body: { entries: [id], idCategory: tags.idCategory } })).status).toBe(400);
      });

      it('duplicates as an active copy with the password kept and a signing secret of its own', async () => {
        const source = await save(webhook({ enabled: false, basicAuth: { username: 'dup-user', password: 'dup-password' } }));
        await call('PUT', '/webhookconfig/archive/', { body: { entries: [source.idWebhookConfig] } });
        const res = await call('POST', `/webhookconfig/duplicate/?idWebhookConfig=${source.idWebhookConfig}`, {
          body: { name: 'Copy of orders', bodyUpdates: { description: 'copy', signingSecret: 'whsec_forged' } },
        });
        expect(res.status).toBe(200);
        expect(res.body).toEqual({ id: expect.stringMatching(/^[0-9A-Za-z]{12}$/) });
        const copy = (await find(res.body.id)).body;
        expect(copy).toMatchObject({
          idWebhookConfig: res.body.id,
          webhookConfigName: 'Copy of orders',
          description: 'copy',
          status: 'active',
          enabled: false,
          basicAuth: { username: 'dup-user', password: '********' },
          hasBasicAuthPassword: true,
          hasSigningSecret: true,
        });
        const copySecret = await secretOf(res.body.id);
        expect(copySecret).toMatch(SIGNING_SECRET);
        expect(copySecret).not.toBe(await secretOf(source.idWebhookConfig as string));
        expect((await call('POST', `/webhookconfig/duplicate/?idWebhookConfig=${newId()}`, { body: { name: 'x' } })).status).toBe(404);
      });
    });

    describe('accounts', () => {
      it("answers 404 for another account's config on every route, and the id is free in each account", async () => {
        const { apiKey: other } = await d().newAccount(`webhooks-${newId()}@example.com`);
        const body = await save(webhook());
        const id = body.idWebhookConfig as string;
        expect((await find(id, other)).status).toBe(404);
        expect((await call('GET', `/webhookconfig/find/byIds/?idWebhookConfigs=${id}`, { key: other })).body).toEqual([]);
        expect((await call('GET', '/webhookconfig/list/?status=all', { key: other })).body).toEqual([]);
        expect((await call('GET', `/webhookconfig/secret/?idWebhookConfig=${id}`, { key: other })).status).toBe(404);
        expect((await call('POST', `/webhookconfig/secret/rotate/?idWebhookConfig=${id}`, { key: other })).status).toBe(404);
        expect((await sendTest(id, other)).status).toBe(404);
        expect((await call('PUT', '/webhookconfig/save/', { body, key: other })).status).toBe(404);
        expect((await call('POST', `/webhookconfig/duplicate/?idWebhookConfig=${id}`, { body: { name: 'x' }, key: other })).status).toBe(404);
        for (const op of ['archive', 'unarchive']) {
          expect((await call('PUT', `/webhookconfig/${op}/`, { body: { entries: [id] }, key: other })).status).toBe(404);
        }
        expect((await call('PUT', '/webhookconfig/move-category/', { body: { entries: [id], idCategory: '' }, key: other })).status).toBe(404);
        expect((await call('DELETE', `/webhookconfig/delete/?idWebhookConfig=${id}`, { key: other })).status).toBe(404);
        const secret = await secretOf(id);

        const theirs = await save({ ...body, webhookConfigName: 'Theirs' }, 'POST', other);
        expect((await find(id, other)).body.webhookConfigName).toBe('Theirs');
        expect((await find(id)).body.webhookConfigName).toBe('Orders hook');
        expect(await secretOf(id)).toBe(secret);
        expect(theirs.idWebhookConfig).toBe(id);
      });
    });

    describe('test delivery (OUTBOUND_ALLOW_PRIVATE=true, the receiver trusted through OUTBOUND_CA_FILE)', () => {
      it('sends one Standard Webhooks event, signed with the signing secret, with the headers and basic auth', async () => {
        const body = await save(
          webhook({ url: hookUrl(), headers: { 'X-Custom': 'yes' }, basicAuth: { username: 'hook-user', password: 'hook-password-7f3a' } }),
        );
        const id = body.idWebhookConfig as string;
        // Saved back from a read: the password stays the one given at first.
        await save({ ...(await find(id)).body, webhookConfigName: 'Orders hook v2' }, 'PUT');
        const secret = await secretOf(id);
        const count = received.length;

        const res = await sendTest(id);
        expect(res.status).toBe(200);
        expect(res.body).toEqual({ delivered: true, httpStatus: 200, responseTimeMs: expect.any(Number), error: null });
        expect(received).toHaveLength(count + 1);
        const request = received.at(-1)!;
        expect(request.path).toBe('/hook');
        expect(() => verifyWebhook(secret, request.headers, request.body)).not.toThrow();
        expect(request.headers).toMatchObject({
          'content-type': 'application/json',
          'x-custom': 'yes',
          authorization: `Basic ${Buffer.from('hook-user:hook-password-7f3a').toString('base64')}`,
        });
        expect(JSON.parse(request.body)).toEqual({
          type: 'webhook.test',
          timestamp: expect.any(String),
          data: { test: true, idWebhookConfig: id, webhookConfigName: 'Orders hook v2' },
        });
      });

      it('signs with the new secret once rotated (the old one no longer verifies)', async () => {
        const { idWebhookConfig: id } = await save(webhook({ url: hookUrl() }));
        const old = await secretOf(id as string);
        const rotated = (await call('POST', `/webhookconfig/secret/rotate/?idWebhookConfig=${id}`)).body.signingSecret as string;
        expect((await sendTest(id as string)).body.delivered).toBe(true);
        const request = received.at(-1)!;
        expect(() => verifyWebhook(rotated, request.headers, request.body)).not.toThrow();
        expect(() => verifyWebhook(old, request.headers, request.body)).toThrow();
      });

      it('reports a receiver error as not delivered', async () => {
        const { idWebhookConfig: id } = await save(webhook({ url: hookUrl('/fail') }));
        expect((await sendTest(id as string)).body).toEqual({ delivered: false, httpStatus: 500, responseTimeMs: expect.any(Number), error: 'HTTP 500' });
      });

      it('refuses a disabled config (409) and one without a url (409), sending nothing', async () => {
        const disabled = await save(webhook({ url: hookUrl(), enabled: false }));
        const noUrl = await save(webhook({ url: undefined }));
        const count = received.length;
        const a = await sendTest(disabled.idWebhookConfig as string);
        expect({ status: a.status, code: a.body.code }).toEqual({ status: 409, code: 'WEBHOOK.DISABLED' });
        const b = await sendTest(noUrl.idWebhookConfig as string);
        expect({ status: b.status, code: b.body.code }).toEqual({ status: 409, code: 'WEBHOOK.NO_URL' });
        expect(received).toHaveLength(count);
      });
    });
  },
  { OUTBOUND_ALLOW_PRIVATE: 'true', OUTBOUND_CA_FILE: caFile },
);

describeInBothModes('/v1/webhookconfig/test/ with OUTBOUND_ALLOW_PRIVATE off', (d) => {
  const call = (...args: Parameters<Deployment['api']['call']>) => d().api.call(...args);

  it.each([
    ['127.0.0.1', () => `https://127.0.0.1:${receiverPort}/hook`],
    ['10.0.0.1', () => 'https://10.0.0.1/hook'],
    ['169.254.169.254', () => 'http://169.254.169.254/latest/meta-data/'],
    ['[::1]', () => `https://[::1]:${receiverPort}/hook`],
    ['[::ffff:127.0.0.1]', () => `https://[::ffff:127.0.0.1]:${receiverPort}/hook`],
    ['localhost (a name that resolves to loopback)', () => `https://localhost:${receiverPort}/hook`],
  ])('refuses %s before connecting: delivered false, the error names the refusal', async (_address, url) => {
    const body = { idWebhookConfig: newId(), webhookConfigName: 'Internal', url: url() };
    expect((await call('POST', '/webhookconfig/save/', { body })).status).toBe(200);
    const count = received.length;
    const res = await call('POST', `/webhookconfig/test/?idWebhookConfig=${body.idWebhookConfig}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      delivered: false,
      httpStatus: null,
      responseTimeMs: expect.any(Number),
      error: expect.stringMatching(/^address refused: .*not a public address/),
    });
    expect(received).toHaveLength(count);
  });
});
